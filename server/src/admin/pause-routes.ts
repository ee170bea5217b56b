/**
 * The owner's switch (PROTOCOL.md section 2b): `POST /admin/pause` and `/admin/resume`,
 * `GET /admin/status`, each the owner's (owner-access.ts: `Authorization: Bearer
 * <AALIS_ADMIN_TOKEN>` or the console's cookie; anything else is 401, and 429 after 20
 * wrong tokens a minute). Without an admin token the routes do not exist (404), so a
 * server nobody configured has no switch to find. The state lives in
 * the pause switch (budgets/pause-switch.ts): every instance on the same Redis, and the
 * next start, see it.
 *
 *   curl -X POST -H "Authorization: Bearer $AALIS_ADMIN_TOKEN" -d '{"reason":"bill"}' \
 *     -H 'content-type: application/json' https://chat.example.com/admin/pause
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { PauseState, PauseSwitch } from '../budgets/pause-switch.js';
import type { Logger } from '../util/logger.js';
import type { OwnerAccess } from './owner-access.js';

export const ADMIN_PATHS = { pause: '/admin/pause', resume: '/admin/resume', status: '/admin/status' };

export interface AdminRoutesOptions {
  access: OwnerAccess;
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
  const { access, pause, guarded, now = Date.now } = options;
  const owner = async (request: FastifyRequest, reply: FastifyReply) =>
    (await access.check(request, reply)) ? undefined : reply;
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
