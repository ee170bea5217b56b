/**
 * Who may chat and how much: signed visitor identity (`auth`), what visitors and the
 * server may spend (`budgets`) and the limits per client IP (`ipLimits`).
 */
import { AUTH_MODES, MIN_SECRET_BYTES } from '../../identity/auth-config.js';
import { DEFAULT_BUDGETS, type BudgetLimits } from '../../budgets/budget-config.js';
import { DEFAULT_IP_LIMITS, IP_LIMIT_VARIABLES, TRUST_PROXY_VARIABLE } from '../../transport/ip-limits.js';
import { variable, type Block, type Setting } from './setting.js';

export const AUTH_BLOCK: Block = {
  key: 'auth',
  description:
    "Signed visitor identity: hello carries a JWT the site's backend signed for its visitor (sub, exp at most 24 h away, optional name). Set secret or jwksUrl, not both; not with token.",
};

export const AUTH_SETTINGS: Setting[] = [
  {
    key: 'auth.mode',
    variables: [
      variable(
        'AALIS_AUTH',
        'required: hello needs a valid visitor token (else 4401) | optional: visitors without one are anonymous',
      ),
    ],
    schema: { enum: [...AUTH_MODES] },
    description:
      'required (hello needs a valid token, else 4401) or optional (visitors without a token are anonymous).',
    fallback: 'optional once a secret or JWKS is set',
  },
  {
    key: 'auth.secret',
    variables: [
      variable(
        'AALIS_AUTH_SECRET',
        `HS256 secret the site's backend signs visitor tokens with (at least ${MIN_SECRET_BYTES} bytes)`,
      ),
    ],
    schema: { type: 'string' },
    description: `the HS256 secret shared with the site's backend, at least ${MIN_SECRET_BYTES} bytes. Keep it out of the file: "\${AALIS_AUTH_SECRET}".`,
    mask: 'secret',
  },
  {
    key: 'auth.jwksUrl',
    variables: [
      variable(
        'AALIS_AUTH_JWKS_URL',
        'JWKS of the keys visitor tokens are signed with (RS256, ES256, EdDSA); https',
      ),
    ],
    schema: { type: 'string', minLength: 1 },
    description:
      "the JWKS of the site's public keys (RS256, ES256, EdDSA), fetched, cached and refreshed; https:// (http:// only on loopback).",
  },
  {
    key: 'auth.audience',
    variables: [variable('AALIS_AUTH_AUDIENCE', "when set, a visitor token's aud must name it")],
    schema: { type: 'string', minLength: 1 },
    description: "when set, a token's aud must name it.",
  },
  {
    key: 'auth.issuer',
    variables: [variable('AALIS_AUTH_ISSUER', "when set, a visitor token's iss must be it")],
    schema: { type: 'string', minLength: 1 },
    description: "when set, a token's iss must be it.",
  },
];

export const BUDGETS_BLOCK: Block = {
  key: 'budgets',
  description:
    "What visitors, each client address and the whole server may spend; each a whole number, 0 for no limit. A refused send gets quota_exceeded (the visitor's or its address's budget) or overloaded (the server's). Counts are kept in the data folder (or Redis, shared by every instance) and survive restarts.",
};

/** Each budget: its key, its variable, its `--help` line and what it is. */
const BUDGETS: Array<[key: keyof BudgetLimits, name: string, help: string, description: string]> = [
  [
    'visitorTurnsPerHour',
    'AALIS_VISITOR_TURNS_PER_HOUR',
    'turns a signed visitor may start per hour; 0: no limit',
    'turns a signed visitor may start per clock hour.',
  ],
  [
    'visitorTokensPerDay',
    'AALIS_VISITOR_TOKENS_PER_DAY',
    "model tokens a signed visitor's turns may use per UTC day; 0: no limit",
    "model tokens a signed visitor's turns may use per UTC day.",
  ],
  [
    'anonTurnsPerHour',
    'AALIS_ANON_TURNS_PER_HOUR',
    'turns an anonymous visitor may start per hour; 0: no limit',
    'turns an anonymous visitor may start per clock hour.',
  ],
  [
    'anonTokensPerDay',
    'AALIS_ANON_TOKENS_PER_DAY',
    "model tokens an anonymous visitor's turns may use per UTC day; 0: no limit",
    "model tokens an anonymous visitor's turns may use per UTC day.",
  ],
  [
    'ipTurnsPerHour',
    'AALIS_IP_TURNS_PER_HOUR',
    'turns one client address (an IPv6 /64) may start per hour, every visitor on it together; 0: no limit',
    'turns one client address may start per clock hour, every visitor on it together (signed or anonymous), so that a visitor churning identities cannot reset it; an IPv6 address counts by its /64 (ipLimits.ipv6Prefix).',
  ],
  [
    'ipTokensPerDay',
    'AALIS_IP_TOKENS_PER_DAY',
    'model tokens the turns of one client address (an IPv6 /64) may use per UTC day; 0: no limit',
    'model tokens the turns of one client address may use per UTC day, every visitor on it together.',
  ],
  [
    'serverTokensPerDay',
    'AALIS_SERVER_TOKENS_PER_DAY',
    'model tokens all turns together may use per UTC day (then sends get overloaded); 0: no limit',
    'model tokens all turns together may use per UTC day, then sends get overloaded.',
  ],
  [
    'maxConcurrentTurns',
    'AALIS_MAX_CONCURRENT_TURNS',
    'turns running at once on the whole server (more get overloaded); 0: no limit',
    'turns running at once on the whole server; more get overloaded.',
  ],
];

/** A limit: a whole number, 0 for none. */
const limit = (key: string, name: string, help: string, description: string, fallback: number): Setting => ({
  key,
  variables: [variable(name, help)],
  schema: { type: 'integer', minimum: 0 },
  description,
  default: fallback,
});

export const BUDGET_SETTINGS: Setting[] = BUDGETS.map(([key, name, help, description]) =>
  limit(`budgets.${key}`, name, help, description, DEFAULT_BUDGETS[key]),
);

export const IP_LIMITS_BLOCK: Block = {
  key: 'ipLimits',
  description:
    'Limits per client IP, across its connections; each a whole number, 0 for no limit. A refused socket gets HTTP 429 with Retry-After before the upgrade; a refused send gets rate_limited.',
};

export const IP_LIMIT_SETTINGS: Setting[] = [
  ...IP_LIMIT_VARIABLES.map(([key, name, help]) =>
    limit(`ipLimits.${key}`, name, help, `${help.replace(/; 0: no limit$/, '')}.`, DEFAULT_IP_LIMITS[key]),
  ),
  {
    key: 'ipLimits.ipv6Prefix',
    variables: [
      variable(
        'AALIS_IPV6_PREFIX',
        'leading bits of an IPv6 address that name one client for every per-address count (1 to 128)',
      ),
    ],
    schema: { type: 'integer', minimum: 1, maximum: 128 },
    description:
      'how many leading bits of an IPv6 address name one client for every per-address limit and budget: 64 counts a whole home or office line (any router hands out a /64) as one address; 128 counts each address.',
    default: 64,
  },
  {
    key: 'ipLimits.trustProxy',
    variables: [
      variable(
        TRUST_PROXY_VARIABLE,
        'comma-separated proxy IPs (loopback for 127.0.0.0/8 and ::1) whose X-Forwarded-For names the client IP',
      ),
    ],
    schema: { type: 'array', items: { type: 'string', minLength: 1 } },
    description:
      'the proxies whose X-Forwarded-For names the client IP: IP addresses, or "loopback" for 127.0.0.0/8 and ::1. The client is the first address, from the right, that is not one of them; a client that is not a trusted proxy never chooses its address.',
    fallback: "none: the client is the socket's peer",
  },
];
