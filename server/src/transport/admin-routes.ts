/**
 * The owner's switch (PROTOCOL.md section 2b): `POST /admin/pause` and `/admin/resume`,
 * `GET /admin/status`, each needing `Authorization: Bearer <AALIS_ADMIN_TOKEN>` (anything
 * else is 401, compared in constant time). Without an admin token the routes do not
 * exist (404), so a server nobody configured has no switch to find. The state lives in
 * the pause switch (budgets/pause-switch.ts): every instance on the same Redis, and the
 * next start, see it.
 *
 *   curl -X POST -H "Authorization: Bearer $AALIS_ADMIN_TOKEN" -d '{"reason":"bill"}' \
 *     -H 'content-type: application/json' https://chat.example.com/admin/pause
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { PauseState, PauseSwitch } from '../budgets/pause-switch.js';
import type { Logger } from '../util/logger.js';
import { sameSecret } from './same-secret.js';

export const ADMIN_PATHS = { pause: '/admin/pause', resume: '/admin/resume', status: '/admin/status' };

export interface AdminRoutesOptions {
  adminToken: string;
  pause: PauseSwitch;
  /** The host guard and the security headers, as every route of the plugin has them. */
  guarded: onRequestHookHandler[];
  now?: () => number;
}

/** What the routes answer: the state, with `since` as an ISO time for people reading it. */
const stateBody = (state: PauseState) => ({
  paused: state.paused,
  since: state.since === null ? null : new Date(state.since).toISOString(),
  reason: state.reason,
});

export function registerAdminRoutes(app: FastifyInstance, options: AdminRoutesOptions): void {
  const { adminToken, pause, guarded, now = Date.now } = options;
  const owner = async (request: FastifyRequest, reply: FastifyReply) => {
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (given === undefined || !sameSecret(given, adminToken)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .header('cache-control', 'no-store')
        .send({ error: 'the admin token (Authorization: Bearer <AALIS_ADMIN_TOKEN>) is missing or wrong' });
    }
  };
  const onRequest = [...guarded, owner];
  const answer = (reply: FastifyReply, state: PauseState) =>
    reply.header('cache-control', 'no-store').send(stateBody(state));
  const log = (request: FastifyRequest): Logger => request.log;

  app.get(ADMIN_PATHS.status, { onRequest }, async (_request, reply) => answer(reply, await pause.state()));

  app.post<{ Body: { reason?: unknown } | undefined }>(
    ADMIN_PATHS.pause,
    { onRequest },
    async (request, reply) => {
      const reason = typeof request.body?.reason === 'string' ? request.body.reason : undefined;
      const state = await pause.pause(reason, now());
      log(request).warn({ reason: state.reason }, 'the chat was paused: new turns are refused');
      return answer(reply, state);
    },
  );

  app.post(ADMIN_PATHS.resume, { onRequest }, async (request, reply) => {
    const state = await pause.resume();
    log(request).warn({}, 'the chat was resumed');
    return answer(reply, state);
  });
}
