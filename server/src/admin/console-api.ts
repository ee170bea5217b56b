/**
 * The owner console's JSON API (`/admin/api/*`, PROTOCOL.md section 2c), which its page
 * uses and nothing else: conversations listed, searched and read whole, transcripts
 * exported by day range, a visitor erased. Every call is the owner's (owner-access.ts) and
 * is logged with how it proved so; every answer is `no-store`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import {
  MAX_LISTING,
  transcriptOf,
  type ConversationArchive,
  type ListingCursor,
} from '../history/archive.js';
import type { HistoryStore } from '../history/store.js';
import type { SessionHub } from '../sessions/session-hub.js';
import { dayStats, type ModelPrices } from './day-stats.js';
import { registerHandoffRoutes } from './handoff-routes.js';
import { dayRange, transcriptStream, type TranscriptFormat } from './transcript-export.js';
import type { OwnerAccess, OwnerProof } from './owner-access.js';
import type { VisitorErasure } from './visitor-erasure.js';

export const CONSOLE_API = '/admin/api';
/** The longest search, in characters. */
const MAX_QUERY_CHARS = 200;
const DEFAULT_LISTING = 50;

export interface ConsoleApiOptions {
  access: OwnerAccess;
  archive: ConversationArchive;
  erasure: VisitorErasure;
  /** The conversations' hub and history: a person's replies and watching live (handoff-routes.ts). */
  hub: SessionHub;
  store: HistoryStore;
  /** USD per million tokens by model: the stats' `costUsd`. */
  prices?: ModelPrices;
  /** The host guard and the security headers, as every route of the plugin has them. */
  guarded: onRequestHookHandler[];
}

type Query = Record<string, string | undefined>;

export function registerConsoleApi(app: FastifyInstance, options: ConsoleApiOptions): void {
  const { access, archive, erasure, guarded, prices } = options;
  const proofs = new WeakMap<FastifyRequest, OwnerProof>();
  const owner = async (request: FastifyRequest, reply: FastifyReply) => {
    const proof = await access.check(request, reply);
    if (proof) proofs.set(request, proof);
    return proof ? undefined : reply;
  };
  const onRequest = [...guarded, owner, noStore];
  /** The audit log: what the owner did, and how it proved it was the owner. */
  const audit = (request: FastifyRequest, action: string, facts: object = {}) =>
    request.log.info({ admin: action, via: proofs.get(request), ...facts }, `console: ${action}`);

  app.post(`${CONSOLE_API}/login`, { onRequest: [...guarded, noStore] }, async (request, reply) => {
    if (!access.login(request, reply)) {
      request.log.warn({ admin: 'login' }, 'console: a wrong admin token');
      return reply;
    }
    request.log.info({ admin: 'login' }, 'console: logged in');
    return reply.code(204).send();
  });

  app.post(`${CONSOLE_API}/logout`, { onRequest: [...guarded, noStore] }, async (request, reply) => {
    access.logout(request, reply);
    return reply.code(204).send();
  });

  // Whether the page's cookie still holds: the page asks before it shows its login. It
  // also says whether a person may answer (section 8): the page offers its replies and
  // live view only then, since their routes do not exist otherwise.
  const session = options.hub.handoffs ? { handoffOffered: true } : {};
  app.get(`${CONSOLE_API}/session`, { onRequest }, async () => session);

  app.get<{ Querystring: Query }>(`${CONSOLE_API}/conversations`, { onRequest }, async (request, reply) => {
    const { q, rating, handoff, limit, cursor } = request.query;
    if (q !== undefined && q.length > MAX_QUERY_CHARS)
      return badRequest(reply, `q: at most ${MAX_QUERY_CHARS} characters`);
    if (rating !== undefined && rating !== 'up' && rating !== 'down')
      return badRequest(reply, "rating: 'up' or 'down'");
    if (handoff !== undefined && handoff !== 'waiting' && handoff !== 'active')
      return badRequest(reply, "handoff: 'waiting' or 'active'");
    const count = limit === undefined ? DEFAULT_LISTING : Number(limit);
    if (!Number.isInteger(count) || count < 1 || count > MAX_LISTING)
      return badRequest(reply, `limit: a whole number from 1 to ${MAX_LISTING}`);
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    if (after === null) return badRequest(reply, 'cursor: not one this server gave');
    const page = await archive.conversations({
      limit: count,
      ...(q ? { q } : {}),
      ...(rating ? { rating } : {}),
      ...(handoff ? { handoff } : {}),
      ...(after ? { cursor: after } : {}),
    });
    audit(request, 'list', { q, rating, handoff });
    return {
      conversations: page.conversations.map((listing) => ({
        ...listing,
        anonymous: listing.visitorId?.startsWith('anon:') ?? false,
      })),
      ...(page.next ? { next: encodeCursor(page.next) } : {}),
    };
  });

  app.get<{ Params: { sessionId: string } }>(
    `${CONSOLE_API}/conversations/:sessionId`,
    { onRequest },
    async (request, reply) => {
      const { sessionId } = request.params;
      const conversation = await archive.conversation(sessionId);
      audit(request, 'read', { sessionId });
      if (!conversation) return reply.code(404).send({ error: 'no such conversation' });
      return conversation;
    },
  );

  app.get<{ Querystring: Query }>(`${CONSOLE_API}/transcripts`, { onRequest }, async (request, reply) => {
    const { from, to, format = 'jsonl' } = request.query;
    if (format !== 'jsonl' && format !== 'csv') return badRequest(reply, "format: 'jsonl' or 'csv'");
    const range = dayRange(from, to);
    if ('error' in range) return badRequest(reply, range.error);
    audit(request, 'export', { from, to, format });
    const name = `aalis-transcripts-${range.from}-to-${range.to}.${format}`;
    return reply
      .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(
        transcriptStream(
          transcriptOf(archive.messages(range.start, range.end)),
          format as TranscriptFormat,
          request.log,
        ),
      );
  });

  app.get<{ Querystring: Query }>(`${CONSOLE_API}/stats`, { onRequest }, async (request, reply) => {
    const range = dayRange(request.query.from, request.query.to);
    if ('error' in range) return badRequest(reply, range.error);
    audit(request, 'stats', { from: range.from, to: range.to });
    return { days: await dayStats(archive, range.start, range.end, prices) };
  });

  app.delete<{ Params: { visitorId: string } }>(
    `${CONSOLE_API}/visitors/:visitorId`,
    { onRequest },
    async (request, reply) => {
      const { visitorId } = request.params;
      if (!/^(user|anon):./.test(visitorId)) return badRequest(reply, 'not a visitor id (user:… or anon:…)');
      const sessions = await erasure.erase(visitorId);
      audit(request, 'erase_visitor', { visitorId, sessions: sessions.length });
      return reply.code(204).send();
    },
  );

  registerHandoffRoutes(app, CONSOLE_API, { hub: options.hub, store: options.store, onRequest, audit });
}

async function noStore(_request: FastifyRequest, reply: FastifyReply) {
  void reply.header('cache-control', 'no-store');
}

function badRequest(reply: FastifyReply, error: string) {
  return reply.code(400).send({ error });
}

function encodeCursor(cursor: ListingCursor): string {
  return Buffer.from(JSON.stringify([cursor.lastAt, cursor.sessionId])).toString('base64url');
}

/** The cursor, or null for text that is not one. */
function decodeCursor(text: string): ListingCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(value) && Number.isSafeInteger(value[0]) && typeof value[1] === 'string')
      return { lastAt: value[0] as number, sessionId: value[1] };
  } catch {
    // Not JSON: not ours.
  }
  return null;
}
