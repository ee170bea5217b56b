/**
 * What an owner protects a public chat with beyond budgets: the admin token of the pause
 * switch (`/admin/*`) and a bot challenge anonymous visitors pass before their first turn.
 */
import { CHALLENGE_PROVIDERS } from '../../identity/challenge-config.js';
import { variable, type Block, type Setting } from './setting.js';

export const ADMIN_SETTINGS: Setting[] = [
  {
    key: 'adminToken',
    variables: [
      variable(
        'AALIS_ADMIN_TOKEN',
        "the owner's token: the console at /admin (transcripts, search, export, erasure) and the switch POST /admin/pause, /admin/resume (without it /admin/* answer 404)",
      ),
    ],
    schema: { type: 'string', minLength: 16 },
    description:
      "the owner's token: the console at /admin and its API /admin/api/* (conversations, search, transcripts, erasing a visitor), and the switch POST /admin/pause and /admin/resume, GET /admin/status, `aalis-server pause|resume`. At least 16 characters; without it every /admin route answers 404.",
    mask: 'secret',
  },
  {
    key: 'retentionDays',
    variables: [
      variable(
        'AALIS_RETENTION_DAYS',
        'conversations idle longer than this many days are erased, checked hourly (0: kept)',
      ),
    ],
    schema: { type: 'integer', minimum: 0, maximum: 36_500 },
    description:
      'conversations whose last message is older than this many days are erased (with their feedback and uploads), checked hourly; 0 keeps them. A conversation with a turn running is never erased.',
    default: 0,
  },
  {
    key: 'prices',
    variables: [],
    schema: {
      type: 'object',
      propertyNames: {
        description: 'a model name, as the provider is given it',
        minLength: 1,
        maxLength: 200,
      },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['input', 'output'],
        properties: {
          input: { type: 'number', minimum: 0, description: 'USD per million input (prompt) tokens' },
          output: { type: 'number', minimum: 0, description: 'USD per million output (completion) tokens' },
        },
      },
    },
    description:
      'What the models cost, in USD per million tokens, by model name: the console shows the cost per day ({"gpt-4o-mini": {"input": 0.15, "output": 0.6}}).',
  },
];

export const CHALLENGE_BLOCK: Block = {
  key: 'challenge',
  description:
    'A bot challenge (Cloudflare Turnstile or hCaptcha) an anonymous visitor passes once, before its first turn; signed visitors are never asked. Needs provider, secret and siteKey.',
};

export const CHALLENGE_SETTINGS: Setting[] = [
  {
    key: 'challenge.provider',
    variables: [
      variable(
        'AALIS_CHALLENGE',
        'turnstile | hcaptcha: challenge anonymous visitors before their first turn',
      ),
    ],
    schema: { enum: [...CHALLENGE_PROVIDERS] },
    description: 'turnstile or hcaptcha: anonymous visitors pass it before their first turn.',
    fallback: 'none',
  },
  {
    key: 'challenge.secret',
    variables: [variable('AALIS_CHALLENGE_SECRET', "the challenge provider's secret key (server side)")],
    schema: { type: 'string', minLength: 1 },
    description:
      'the provider\'s secret key, for its verify endpoint. Keep it out of the file: "${AALIS_CHALLENGE_SECRET}".',
    mask: 'secret',
  },
  {
    key: 'challenge.siteKey',
    variables: [
      variable('AALIS_CHALLENGE_SITE_KEY', "the challenge provider's site key (public, sent to the widget)"),
    ],
    schema: { type: 'string', minLength: 1 },
    description: "the provider's site key, public: the widget shows the challenge with it.",
  },
  {
    key: 'challenge.verifyUrl',
    variables: [
      variable('AALIS_CHALLENGE_VERIFY_URL', "the provider's siteverify URL (https; http only on loopback)"),
    ],
    schema: { type: 'string', minLength: 1 },
    description:
      "where a token is checked: the provider's siteverify endpoint (https; http only on loopback).",
    fallback: "the provider's own",
  },
  {
    key: 'challenge.scriptUrl',
    variables: [
      variable('AALIS_CHALLENGE_SCRIPT_URL', "the provider's script the widget loads to show the challenge"),
    ],
    schema: { type: 'string', minLength: 1 },
    description: 'the script the widget loads, only when a challenge is asked, to show it.',
    fallback: "the provider's own",
  },
];
