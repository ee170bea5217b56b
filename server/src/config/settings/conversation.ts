/**
 * What the model is told and offered, and what a visitor may attach: the system prompt,
 * the greeting, images, the built-in tools, MCP servers, approvals and how long an MCP
 * server's question to the visitor waits. Most of these only the file sets.
 */
import { DEFAULT_IMAGE_SETTINGS, type ImageSettings } from '../../images/image-settings.js';
import {
  DEFAULT_ELICITATION_TIMEOUT_MS,
  MAX_ELICITATION_TIMEOUT_MS,
} from '../../sessions/pending-elicitations.js';
import { builtinTools } from '../../tools/builtin/index.js';
import { variable, type Block, type JsonSchema, type Setting } from './setting.js';

export const PROMPT_SETTINGS: Setting[] = [
  {
    key: 'systemPrompt',
    variables: [],
    schema: {
      anyOf: [
        { type: 'string' },
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            file: { description: 'A text file, relative to this file.', type: 'string', minLength: 1 },
          },
          required: ['file'],
        },
      ],
    },
    description:
      'The system prompt: its text, or { "file": "prompt.md" } read at start, relative to this file.',
  },
  {
    key: 'welcome',
    variables: [],
    schema: { type: 'string', minLength: 1, maxLength: 2000 },
    description:
      "Shown to a visitor while the conversation is empty, as markdown; sent in ready (the widget's welcome attribute overrides it).",
  },
  {
    key: 'starters',
    variables: [],
    schema: { type: 'array', maxItems: 8, items: { type: 'string', minLength: 1, maxLength: 500 } },
    description:
      "Prompts shown as buttons while the conversation is empty; a click sends one (the widget's starters attribute overrides them).",
  },
];

export const IMAGES_BLOCK: Block = {
  key: 'images',
  description:
    'Images visitors may attach to a question (PNG, JPEG, WebP, GIF), uploaded over HTTP and sent to the model as image parts. On when the model reads images.',
};

/**
 * Each image limit: its key, its variable, its largest value, its `--help` line, what it
 * is, and its smallest value (1, or 0 where 0 means no limit).
 */
const IMAGE_LIMITS: Array<
  [key: keyof ImageSettings, name: string, max: number, help: string, description: string, min?: 0]
> = [
  [
    'maxBytes',
    'AALIS_IMAGE_MAX_BYTES',
    20 * 1024 * 1024,
    'largest image a visitor may attach, in bytes',
    "largest image a visitor may attach, in bytes (the default, 3.75 MiB, is Anthropic's limit of 5 MB once in base64).",
  ],
  [
    'maxCount',
    'AALIS_IMAGE_MAX_COUNT',
    16,
    'most images one message may carry',
    'most images one message may carry.',
  ],
  [
    'maxPerSession',
    'AALIS_IMAGE_MAX_PER_SESSION',
    10_000,
    'most images one conversation may upload',
    'most images one conversation may upload, sent or not.',
  ],
  [
    'perIpPerHour',
    'AALIS_IMAGE_IP_PER_HOUR',
    1_000_000,
    'most image uploads from one client address per hour',
    "most image uploads from one client address (an IPv6 /64) per clock hour, every attempt counted, in the counters every instance shares (the budgets' store: SQLite, Redis or memory).",
  ],
  [
    'perIpBytesPerHour',
    'AALIS_IMAGE_BYTES_PER_IP_PER_HOUR',
    1024 * 1024 * 1024 * 1024,
    'most bytes of images one client address may store per hour; 0: no limit',
    'most bytes of images one client address (an IPv6 /64) may store per clock hour, counted with the uploads; 0 for no limit.',
    0,
  ],
  [
    'maxUnsentBytes',
    'AALIS_IMAGE_MAX_UNSENT_BYTES',
    1024 * 1024 * 1024 * 1024,
    'most bytes of uploads no question has named yet, on the whole server',
    'most bytes of uploads no question has named yet, all visitors together (an upload past it gets 507 storage_full); unsent uploads are deleted after an hour.',
  ],
];

export const IMAGE_SETTINGS: Setting[] = [
  {
    key: 'images.vision',
    variables: [
      variable(
        'AALIS_VISION',
        'on: the model reads images, and visitors may attach them | off: no attachments',
        {
          fallback: 'on for openai, openai-responses, anthropic, demo; off for deepseek, ollama',
        },
      ),
    ],
    schema: { type: 'boolean' },
    description:
      'true when the model reads images (visitors may attach them), false for none; the variable says on or off.',
    fallback: 'true for openai, openai-responses, anthropic and demo; false for deepseek and ollama',
  },
  ...IMAGE_LIMITS.map(([key, name, max, help, description, min = 1]): Setting => ({
    key: `images.${key}`,
    variables: [variable(name, help)],
    schema: { type: 'integer', minimum: min, maximum: max },
    description,
    default: DEFAULT_IMAGE_SETTINGS[key],
  })),
];

export const TOOL_SETTINGS: Setting[] = [
  {
    key: 'builtinTools',
    variables: [],
    schema: { type: 'array', uniqueItems: true, items: { enum: builtinTools().map((tool) => tool.name) } },
    description: 'The built-in tools to offer, by name.',
    fallback: 'all of them with the demo model, none with a real provider (their data is made up)',
  },
  {
    key: 'mcpServers',
    variables: [],
    schema: {
      type: 'object',
      propertyNames: {
        description: 'a valid server name (letters, digits, _ and -, at most 32 characters)',
        pattern: '^[a-zA-Z0-9_-]{1,32}$',
      },
      additionalProperties: {
        type: 'object',
        if: { required: ['url'] },
        then: { $ref: '#/definitions/httpServer' },
        else: { $ref: '#/definitions/stdioServer' },
      },
    },
    description:
      'MCP servers whose tools the model is offered, by name: { "command", "args", "env", "cwd", "user", "group" } for stdio servers, { "url", "headers" } for Streamable HTTP ones, each with an optional "tools" allow-list.',
  },
  {
    key: 'approval',
    variables: [],
    schema: {
      type: 'object',
      propertyNames: {
        description:
          'a tool name (letters, digits, _ and -, at most 64 characters; * matches any characters)',
        pattern: '^[a-zA-Z0-9_*-]{1,64}$',
      },
      additionalProperties: { enum: ['always', 'session', 'never'] },
    },
    description:
      "Which tools need the visitor's approval before they run, by the name the model sees (* matches any characters): always asks every time, session once per conversation, never runs without asking.",
  },
  {
    key: 'elicitationTimeoutMs',
    variables: [
      variable(
        'AALIS_ELICITATION_TIMEOUT_MS',
        "how long an MCP server's request for the visitor's input waits for an answer before it is cancelled",
      ),
    ],
    schema: { type: 'integer', minimum: 1, maximum: MAX_ELICITATION_TIMEOUT_MS },
    description:
      "how long an MCP server's request for the visitor's input (a form to fill, a page to visit) waits for an answer; then the MCP server is answered cancel and every tab is told it expired. At most 10 minutes, an MCP call's own limit.",
    default: DEFAULT_ELICITATION_TIMEOUT_MS,
    unit: 'ms',
  },
];

/** The shapes `mcpServers` refers to. */
export const DEFINITIONS: Record<string, JsonSchema> = {
  toolAllowList: {
    description: "Offer only these of the server's tools, by its own names; all of them by default.",
    type: 'array',
    uniqueItems: true,
    items: { type: 'string', minLength: 1 },
  },
  stringMap: { type: 'object', additionalProperties: { type: 'string' } },
  stdioServer: {
    description: 'A server aalis-server starts itself and talks to over stdin and stdout.',
    type: 'object',
    additionalProperties: false,
    required: ['command'],
    properties: {
      command: { description: 'The program to run (npx, node, uvx, a path).', type: 'string', minLength: 1 },
      args: { type: 'array', items: { type: 'string' } },
      env: {
        description:
          'Its whole environment besides a minimal safe set (PATH, HOME, ...): it never inherits aalis-server\'s own. Write secrets as "${NAME}".',
        $ref: '#/definitions/stringMap',
      },
      cwd: {
        description: "Its working directory, relative to this file; this file's directory by default.",
        type: 'string',
        minLength: 1,
      },
      user: {
        description:
          "The user it runs as (a name or a uid), so that it can read neither aalis-server's environment nor its files; aalis-server must run as root.",
        type: 'string',
        minLength: 1,
      },
      group: {
        description: "With user: the group it runs as (a name or a gid); the user's own by default.",
        type: 'string',
        minLength: 1,
      },
      tools: { $ref: '#/definitions/toolAllowList' },
    },
    dependencies: { group: ['user'] },
  },
  httpServer: {
    description: 'A server reached over Streamable HTTP.',
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: { description: 'Its endpoint, http:// or https://.', type: 'string', minLength: 1 },
      headers: {
        description: 'Sent with every request (Authorization: "Bearer ${MCP_TOKEN}").',
        $ref: '#/definitions/stringMap',
      },
      tools: { $ref: '#/definitions/toolAllowList' },
    },
  },
};
