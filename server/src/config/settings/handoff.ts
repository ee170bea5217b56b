/**
 * Handing a conversation to a person (PROTOCOL.md section 8): offered when `AALIS_HANDOFF`
 * is on or the file has a `handoff` block; the site hears of each request at its webhook.
 */
import { variable, type Block, type Setting } from './setting.js';

export const HANDOFF_BLOCK: Block = {
  key: 'handoff',
  description:
    'A person a visitor can ask for ("Talk to a person"), who answers from the console (/admin, needs adminToken). Each request is POSTed, signed, to webhook when one is set.',
};

export const HANDOFF_SETTINGS: Setting[] = [
  {
    key: 'handoff.enabled',
    variables: [
      variable('AALIS_HANDOFF', 'on: visitors may ask for a person, who answers from the console /admin', {
        fallback: 'off',
      }),
    ],
    schema: { type: 'boolean' },
    description:
      'true: the widget offers "Talk to a person" and the model a handoff tool; a person answers from the console (needs adminToken). The variable says on or off; a handoff block turns it on by itself.',
    fallback: 'false',
  },
  {
    key: 'handoff.webhook',
    variables: [
      variable(
        'AALIS_HANDOFF_WEBHOOK',
        'https:// URL POSTed {sessionId, visitorId, reason, url} for each request',
      ),
    ],
    schema: { type: 'string', minLength: 1 },
    description:
      'an https:// URL (http:// on loopback) that is POSTed {sessionId, visitorId, reason, url} as JSON when a visitor asks for a person, signed (X-Aalis-Signature) and retried.',
  },
  {
    key: 'handoff.webhookSecret',
    variables: [
      variable('AALIS_HANDOFF_WEBHOOK_SECRET', "the webhook signature's HMAC key (default: the admin token)"),
    ],
    schema: { type: 'string', minLength: 16 },
    description:
      'the HMAC-SHA256 key of the webhook\'s X-Aalis-Signature (sha256=hex of "<X-Aalis-Timestamp>.<body>"); the admin token when unset. At least 16 characters.',
    mask: 'secret',
  },
  {
    key: 'handoff.operatorName',
    variables: [variable('AALIS_HANDOFF_OPERATOR', "the name a person's replies show when they give none")],
    schema: { type: 'string', minLength: 1, maxLength: 80 },
    description:
      'the name a person\'s replies show in the chat when the console gives none (default "Support").',
  },
  {
    key: 'handoff.consoleUrl',
    variables: [variable('AALIS_HANDOFF_CONSOLE_URL', "the console's address in the webhook's url")],
    schema: { type: 'string', minLength: 1 },
    description:
      "the console's address the webhook's url points into (https://chat.example.com/admin); by default the first public host's, else this server's own.",
  },
];
