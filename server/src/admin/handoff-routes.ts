/**
 * The console's side of a handoff (PROTOCOL.md section 8), under `/admin/api`:
 * - `POST /conversations/:sessionId/messages {text, operator?}`: a person's reply; every
 *   tab of the conversation gets it, and the conversation is theirs (`active`);
 * - `POST /conversations/:sessionId/release`: the conversation goes back to the model;
 * - `GET /conversations/:sessionId/events`: the conversation live, as Server-Sent Events
 *   of its frames (`ready` first, then what its tabs get), from any instance.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { ServerFrame } from '@aalis/protocol';
import type { HistoryStore } from '../history/store.js';
import { MAX_OPERATOR_TEXT } from '../sessions/handoff-desk.js';
import type { Peer } from '../sessions/hub-options.js';
import type { SessionHub } from '../sessions/session-hub.js';

/** What a watcher may leave unread before it is cut off. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** A comment line now and then, so proxies keep an idle stream open. */
const KEEPALIVE_MS = 20_000;

export interface HandoffRoutesOptions {
  hub: SessionHub;
  store: HistoryStore;
  /** The owner's check, the host guard and no-store, as every console route has them. */
  onRequest: onRequestHookHandler[];
  audit(request: FastifyRequest, action: string, facts?: object): void;
}

type Conversation = { Params: { sessionId: string } };

export function registerHandoffRoutes(
  app: FastifyInstance,
  base: string,
  options: HandoffRoutesOptions,
): void {
  const { hub, store, onRequest, audit } = options;
  const handoffs = hub.handoffs;
  if (!handoffs) return;
  // A shutdown ends the live streams: the server must not wait for a console to go away.
  const open = new Set<ServerResponse>();
  app.addHook('preClose', async () => {
    for (const response of open) response.end();
  });
  /** The conversation's owner, or undefined after answering 404. */
  const ownerOf = async (sessionId: string, reply: FastifyReply) => {
    const owner = await store.ownerOf(sessionId);
    if (owner === undefined) void reply.code(404).send({ error: 'no such conversation' });
    return owner;
  };

  app.post<Conversation & { Body: unknown }>(
    `${base}/conversations/:sessionId/messages`,
    { onRequest },
    async (request, reply) => {
      const { text, operator } = (request.body ?? {}) as { text?: unknown; operator?: unknown };
      if (typeof text !== 'string' || !text.trim() || text.length > MAX_OPERATOR_TEXT)
        return reply.code(400).send({ error: `text: 1 to ${MAX_OPERATOR_TEXT} characters` });
      if (operator !== undefined && (typeof operator !== 'string' || operator.length > 80))
        return reply.code(400).send({ error: 'operator: a name of at most 80 characters' });
      const { sessionId } = request.params;
      const owner = await ownerOf(sessionId, reply);
      if (owner === undefined) return reply;
      const message = await handoffs.reply(sessionId, owner, text, operator as string | undefined);
      audit(request, 'reply', { sessionId, operator: message.author });
      return { message };
    },
  );

  app.post<Conversation>(
    `${base}/conversations/:sessionId/release`,
    { onRequest },
    async (request, reply) => {
      const { sessionId } = request.params;
      const owner = await ownerOf(sessionId, reply);
      if (owner === undefined) return reply;
      await handoffs.release(sessionId, owner);
      audit(request, 'release', { sessionId });
      return reply.code(204).send();
    },
  );

  app.get<Conversation>(`${base}/conversations/:sessionId/events`, { onRequest }, async (request, reply) => {
    const { sessionId } = request.params;
    const watcher = new SseWatcher();
    if (!(await hub.watch(watcher, sessionId)))
      return reply.code(404).send({ error: 'no such conversation' });
    audit(request, 'watch', { sessionId });
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    open.add(reply.raw);
    const stop = () => {
      open.delete(reply.raw);
      clearInterval(keepalive);
      hub.leave(watcher, sessionId);
    };
    const keepalive = setInterval(() => reply.raw.write(': keepalive\n\n'), KEEPALIVE_MS);
    keepalive.unref();
    reply.raw.on('close', stop);
    watcher.attach(reply.raw, () => {
      stop();
      reply.raw.destroy();
    });
  });
}

/** The console as one more tab of the conversation: its frames written as SSE. */
class SseWatcher implements Peer {
  readonly id = `console-${randomUUID()}`;
  /** The person sees a tool call's argument text as it is written, as the model writes it. */
  readonly argumentText = true;
  #response: ServerResponse | undefined;
  #cut: (() => void) | undefined;
  /** Frames that came before the response was ready, in order. */
  #waiting: string[] = [];

  deliver(_frame: ServerFrame, text: string): void {
    const event = `data: ${text}\n\n`;
    if (!this.#response) {
      this.#waiting.push(event);
      return;
    }
    this.#response.write(event);
    // A console that stops reading is cut off rather than held in memory.
    if (this.#response.writableLength > MAX_BUFFERED_BYTES) this.#cut?.();
  }

  attach(response: ServerResponse, cut: () => void): void {
    this.#response = response;
    this.#cut = cut;
    for (const event of this.#waiting.splice(0)) response.write(event);
  }
}
