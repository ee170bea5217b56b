/**
 * The Host guard met twice by one request (createAalisServer's over every route, the
 * plugin's on its own): the check runs once, and a request passed by one check is never
 * waved through a guard with another.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import { createHostCheck, type HostCheck } from '../src/transport/host-guard.js';
import { hostGuardOnce, sharedHostCheck } from '../src/transport/host-guard-once.js';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A real check that counts the Hosts it was asked about. */
function counted(publicHosts: string[]): HostCheck & { asked: string[] } {
  const check = createHostCheck(publicHosts);
  const asked: string[] = [];
  const counting = (host: string | undefined): boolean => {
    asked.push(host ?? '');
    return check(host);
  };
  return Object.assign(counting, { asked });
}

/** A route behind the app-wide guard and its own, as a plugin route under createAalisServer. */
async function twiceGuarded(appGuard: HostCheck, routeGuard: HostCheck): Promise<FastifyInstance> {
  const server = Fastify();
  server.addHook('onRequest', hostGuardOnce(appGuard));
  server.get('/route', { onRequest: hostGuardOnce(routeGuard) }, async () => 'served');
  await server.ready();
  return server;
}

describe('a request meeting the same check twice', () => {
  test('a served Host is checked once and served', async () => {
    const check = counted(['chat.example.com']);
    app = await twiceGuarded(check, check);
    const answer = await app.inject({ url: '/route', headers: { host: 'chat.example.com' } });
    expect([answer.statusCode, answer.body]).toEqual([200, 'served']);
    expect(check.asked).toEqual(['chat.example.com']);
  });

  test('an unknown Host is checked once and refused', async () => {
    const check = counted(['chat.example.com']);
    app = await twiceGuarded(check, check);
    const answer = await app.inject({ url: '/route', headers: { host: 'evil.example' } });
    expect(answer.statusCode).toBe(403);
    expect(answer.body).toContain('AALIS_PUBLIC_HOSTS');
    expect(check.asked).toEqual(['evil.example']);
  });

  test('each request is checked on its own: a passed one does not pass the next', async () => {
    const check = counted(['chat.example.com']);
    app = await twiceGuarded(check, check);
    await app.inject({ url: '/route', headers: { host: 'chat.example.com' } });
    expect((await app.inject({ url: '/route', headers: { host: 'evil.example' } })).statusCode).toBe(403);
    expect(check.asked).toEqual(['chat.example.com', 'evil.example']);
  });
});

describe('a request meeting two different checks', () => {
  test('passing a lax one does not pass a strict one', async () => {
    const lax = counted(['*']);
    const strict = counted([]);
    app = await twiceGuarded(lax, strict);
    const answer = await app.inject({ url: '/route', headers: { host: 'evil.example' } });
    expect(answer.statusCode).toBe(403);
    expect([lax.asked, strict.asked]).toEqual([['evil.example'], ['evil.example']]);
  });
});

describe('sharedHostCheck', () => {
  test('one check per list of hosts, so that guards built apart know each other', () => {
    expect(sharedHostCheck(['chat.example.com'])).toBe(sharedHostCheck(['chat.example.com']));
    expect(sharedHostCheck(['chat.example.com'])).not.toBe(sharedHostCheck(['other.example']));
    expect(sharedHostCheck(['chat.example.com'])('chat.example.com')).toBe(true);
    expect(sharedHostCheck(['chat.example.com'])('other.example')).toBe(false);
  });

  test('a list that is not hosts is refused, as createHostCheck refuses it', () => {
    expect(() => sharedHostCheck(['https://chat.example.com'])).toThrow(/publicHosts/);
  });
});
