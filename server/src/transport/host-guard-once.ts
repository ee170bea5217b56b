/**
 * The Host guard (host-guard.ts) run once per request, however many times a route meets it.
 *
 * Why: `createAalisServer` guards every route of its app (the host's pages and 404s
 * included), and the plugin guards its own routes, so that it is safe registered alone.
 * A plugin route under `createAalisServer` meets both. The first guard marks the request
 * as passed by its check; a later guard with the very same check lets it through. A guard
 * with another check (other hosts) checks again: a mark never stands in for a stricter one.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHostCheck, hostGuardHook, type HostCheck } from './host-guard.js';

/** The check each request has passed; a request is forgotten with it. */
const passedBy = new WeakMap<FastifyRequest, HostCheck>();

/** One check per list of hosts in this process, so that guards built from one list know each other. */
const checksByHosts = new Map<string, HostCheck>();

export function sharedHostCheck(publicHosts: readonly string[]): HostCheck {
  const key = JSON.stringify(publicHosts);
  let check = checksByHosts.get(key);
  if (!check) {
    check = createHostCheck(publicHosts);
    checksByHosts.set(key, check);
  }
  return check;
}

/** A route hook answering 403 to an unknown Host, unless `check` already passed this request. */
export function hostGuardOnce(check: HostCheck) {
  const guard = hostGuardHook(check);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (passedBy.get(request) === check) return;
    await guard(request, reply);
    if (!reply.sent) passedBy.set(request, check);
  };
}
