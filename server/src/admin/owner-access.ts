/**
 * Who may use the owner's console (`/admin`, `/admin/api/*`): whoever holds the admin
 * token (AALIS_ADMIN_TOKEN), as `Authorization: Bearer <token>` (scripts, curl) or as the
 * cookie `POST /admin/api/login {token}` sets (the page). The cookie holds no token: an
 * expiry and its HMAC under a key derived from the token, so changing the token ends
 * every login, and every instance with the same token accepts it without shared state.
 *
 * Guessing is slowed: an address with 20 wrong tokens in a minute gets 429 until the
 * minute is over, the right token included. A request the cookie authorises that changes
 * something must come from the console's own origin (Origin equal to the server's own):
 * SameSite=Strict keeps other sites' requests cookie-less, this keeps out a sibling
 * subdomain's too.
 */
import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FailureThrottle } from '../identity/failure-throttle.js';
import { sameSecret } from '../transport/same-secret.js';

export const CONSOLE_COOKIE = 'aalis_admin';
/** How long a login lasts. */
export const LOGIN_MS = 12 * 60 * 60_000;
/** Wrong tokens an address may send in a minute before it is refused unchecked. */
export const MAX_FAILURES_PER_MINUTE = 20;

const COOKIE_LABEL = 'aalis console cookie v1';

/** How the request proved it is the owner's: for the audit log. */
export type OwnerProof = 'token' | 'cookie';

export interface OwnerAccessOptions {
  adminToken: string;
  /** The client's address (behind the proxies the server trusts). */
  addressOf(request: FastifyRequest): string;
  now?: () => number;
}

export class OwnerAccess {
  readonly #adminToken: string;
  readonly #cookieKey: Buffer;
  readonly #failures: FailureThrottle;
  readonly #addressOf: (request: FastifyRequest) => string;
  readonly #now: () => number;

  constructor(options: OwnerAccessOptions) {
    this.#adminToken = options.adminToken;
    this.#cookieKey = createHmac('sha256', options.adminToken).update(COOKIE_LABEL).digest();
    this.#now = options.now ?? Date.now;
    this.#failures = new FailureThrottle({ max: MAX_FAILURES_PER_MINUTE, windowMs: 60_000, now: this.#now });
    this.#addressOf = options.addressOf;
  }

  /**
   * The owner's proof, or undefined after answering the request (401, 403 or 429). A
   * wrong token counts against the address; a missing one does not (the page asks
   * `/admin/api/session` without one to learn whether to show its login).
   */
  async check(request: FastifyRequest, reply: FastifyReply): Promise<OwnerProof | undefined> {
    const address = this.#addressOf(request);
    if (this.#failures.blocked(address)) {
      tooMany(reply);
      return undefined;
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (bearer !== undefined) {
      if (sameSecret(bearer, this.#adminToken)) return 'token';
      this.#failures.failed(address);
      unauthorized(reply, 'the admin token (Authorization: Bearer <AALIS_ADMIN_TOKEN>) is wrong');
      return undefined;
    }
    if (!this.#validCookie(cookieOf(request))) {
      unauthorized(reply, 'log in with the admin token first (POST /admin/api/login)');
      return undefined;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD' && !fromOwnOrigin(request)) {
      void reply
        .code(403)
        .header('cache-control', 'no-store')
        .send({ error: 'a change with the login cookie must come from this console' });
      return undefined;
    }
    return 'cookie';
  }

  /** `POST /admin/api/login`: the cookie for the right token, 401 or 429 otherwise. */
  login(request: FastifyRequest, reply: FastifyReply): boolean {
    const address = this.#addressOf(request);
    if (this.#failures.blocked(address)) {
      tooMany(reply);
      return false;
    }
    const token = (request.body as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string' || !sameSecret(token, this.#adminToken)) {
      this.#failures.failed(address);
      unauthorized(reply, 'that is not the admin token');
      return false;
    }
    const expires = this.#now() + LOGIN_MS;
    const value = `v1.${expires}.${this.#mac(expires)}`;
    void reply.header('set-cookie', cookieHeader(value, LOGIN_MS / 1000, isHttps(request)));
    return true;
  }

  /** `POST /admin/api/logout`: the browser forgets the cookie. */
  logout(request: FastifyRequest, reply: FastifyReply): void {
    void reply.header('set-cookie', cookieHeader('', 0, isHttps(request)));
  }

  #mac(expires: number): string {
    return createHmac('sha256', this.#cookieKey).update(String(expires)).digest('base64url');
  }

  #validCookie(value: string | undefined): boolean {
    const match = /^v1\.(\d{1,15})\.([\w-]{43})$/.exec(value ?? '');
    if (!match) return false;
    const expires = Number(match[1]);
    return expires > this.#now() && sameSecret(match[2]!, this.#mac(expires));
  }
}

function cookieHeader(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${CONSOLE_COOKIE}=${value}`,
    'Path=/admin',
    `Max-Age=${Math.floor(maxAgeSeconds)}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

function cookieOf(request: FastifyRequest): string | undefined {
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = pair.trim().split('=');
    if (name === CONSOLE_COOKIE) return value.join('=');
  }
  return undefined;
}

/**
 * HTTPS as the browser sees it: the server's own TLS, or a proxy's in front of it. A
 * client lying in `X-Forwarded-Proto` only gets a Secure cookie its browser will not keep
 * over HTTP.
 */
function isHttps(request: FastifyRequest): boolean {
  const forwarded = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return request.protocol === 'https' || first === 'https';
}

/** Whether `Origin` names this server as the request reached it (host guard passed). */
function fromOwnOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (!origin) return false;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

function unauthorized(reply: FastifyReply, error: string): void {
  void reply
    .code(401)
    .header('www-authenticate', 'Bearer')
    .header('cache-control', 'no-store')
    .send({ error });
}

function tooMany(reply: FastifyReply): void {
  void reply
    .code(429)
    .header('retry-after', '60')
    .header('cache-control', 'no-store')
    .send({ error: 'too many wrong admin tokens from your address: try again in a minute' });
}
