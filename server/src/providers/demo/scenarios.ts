/**
 * The demo model's scenarios, chosen by what the user types (English or Chinese
 * keywords; see the server README). Each one shows a part of the protocol: a markdown
 * answer, one long tool call, three tool calls in one round, reasoning first, a stall
 * in the middle of a tool call, a tool that fails, a risky tool the user approves first,
 * a long tool that reports its progress, and the reference MCP servers' form, app and long
 * operation (when they are configured). Anything else gets a short guide.
 * The first scenario with a matching keyword wins, so the most specific come first.
 * The demo page's buttons are made from this list too (its labels and prompts, in this
 * order), so the page and the model cannot disagree.
 */
import { imageReply, imageUrlsOf, textOfContent } from './image-reply.js';
import type { DemoRequestMessage, Reply } from './script.js';

interface Scenario {
  id: string;
  /** Words that pick it, matched case-insensitively anywhere in the user's message. */
  keywords: string[];
  /** The demo page's button. */
  label: string;
  /** What the button sends (its tooltip too); it contains one of the keywords. */
  prompt: string;
  /** The first reply, to the user's message; `tools` are the names of the tools offered. */
  first(userText: string, tools: readonly string[]): Reply;
  /** The reply once the tools of the first reply have run; `results` are the tool messages' contents. */
  afterTools?(results: string[]): Reply;
}

const longReport = (topic: string): string => {
  const sections = [
    [
      'Summary',
      `This report covers ${topic}. It was written by the Aalis demo model to show a long tool call: while these characters stream, the chat shows a live card with the count and the elapsed time instead of a frozen screen.`,
    ],
    [
      'Background',
      'OpenAI-compatible models send no text while they write the arguments of a tool call. Each server-sent event carries a few characters of JSON and nothing a naive interface would display, so users see nothing for as long as the call takes to write.',
    ],
    [
      'What changed',
      'Every fragment now becomes a progress event on the wire. The server keeps the count per tool index with the time it started, and a refreshed page receives the same numbers in a resume frame, so the elapsed time continues where it was.',
    ],
    [
      'Measurements',
      'Fragments arrive thirty to sixty times a second. Each one is forwarded within a millisecond, collapsed only for readers that fall behind, and never reordered with text.',
    ],
    [
      'Risks',
      'A model may stall in the middle of a call. After five seconds without a fragment the card says that it is waiting for the model, so a slow model can be told from a dead one.',
    ],
    [
      'Next steps',
      'Try the other scenarios: parallel tools, reasoning, a stall and a failing tool. Refresh the page in the middle of this file and watch the card carry on.',
    ],
  ];
  let text = `# Report: ${topic}\n\n`;
  let round = 1;
  while (text.length < 3_900) {
    for (const [heading, body] of sections)
      text += `## ${heading}${round > 1 ? ` (part ${round})` : ''}\n\n${body}\n\n`;
    round++;
  }
  return text.slice(0, 4_000);
};

const parseJson = (text: string | undefined): Record<string, unknown> => {
  try {
    const value = JSON.parse(text ?? '');
    return typeof value === 'object' && value !== null ? value : { value };
  } catch {
    return { error: text };
  }
};

/**
 * A call to a reference MCP server's tool, under its own name or its server's prefix; a
 * hint how to add the server when no configured server offers it.
 */
function mcpCall(
  tools: readonly string[],
  tool: string,
  args: Record<string, unknown>,
  saying: (name: string) => string,
): Reply {
  const name = tools.find((t) => t.endsWith(tool));
  if (!name) {
    const text =
      `No MCP server offering \`${tool}\` is configured. Start the server with ` +
      '`npx aalis-server --config examples/aalis.config.json` to add the reference MCP servers.';
    return { steps: [{ kind: 'text', text }] };
  }
  return {
    steps: [
      { kind: 'text', text: saying(name) },
      { kind: 'tool_call', name, arguments: args },
    ],
  };
}

/** `text` as a markdown quote, each of its lines. */
const quoted = (text: string): string =>
  text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');

export const scenarios: Scenario[] = [
  {
    id: 'stall',
    keywords: ['stall', 'slow', 'stuck', '卡', '慢'],
    label: 'Stall (10 s)',
    prompt: 'Write a file slowly: the model stalls for 10 s',
    first: () => ({
      steps: [
        { kind: 'text', text: 'Writing `notes.md`. This model is about to stall for ten seconds mid-call.' },
        {
          kind: 'tool_call',
          name: 'write_file',
          arguments: { path: 'notes.md', content: longReport('a model that stalls').slice(0, 1_200) },
          stallAfterChars: 400,
          stallMs: 10_000,
        },
      ],
    }),
    afterTools: ([result]) => ({
      steps: [
        { kind: 'text', text: `Saved after the stall: \`${String(parseJson(result).path ?? 'notes.md')}\`.` },
      ],
    }),
  },
  {
    id: 'failing-tool',
    keywords: ['fail', 'error', 'break', '失败', '错误'],
    label: 'Failing tool',
    prompt: 'Make a tool fail: divide 1 by 0',
    first: () => ({
      steps: [
        { kind: 'text', text: 'Asking the calculator.' },
        { kind: 'tool_call', name: 'calculator', arguments: { expression: '1 / 0' } },
      ],
    }),
    afterTools: ([result]) => ({
      steps: [
        {
          kind: 'text',
          text: `The calculator refused: _${result ?? 'no answer'}_. Division by zero has no value.`,
        },
      ],
    }),
  },
  {
    id: 'markdown',
    keywords: ['markdown', 'table', 'code', '表格', '代码'],
    label: 'Markdown',
    prompt: 'Show me some markdown with a table and code',
    first: () => ({
      steps: [
        {
          kind: 'text',
          text:
            '## Streaming tool calls, in short\n\n' +
            'Here is how the providers report progress while a tool call is written:\n\n' +
            '| provider | progress | notes |\n| --- | --- | --- |\n' +
            '| OpenAI | one event per fragment | `delta.tool_calls[i].function.arguments` |\n' +
            '| DeepSeek | same as OpenAI | plus `reasoning_content` |\n' +
            '| Ollama | one event per tool | calls arrive whole |\n\n' +
            'A client keeps one card per index:\n\n' +
            '```ts\nconst cards = new Map<number, { name: string; chars: number; startedAt: number }>();\n' +
            'socket.onmessage = ({ data }) => {\n  const frame = JSON.parse(data);\n' +
            '  if (frame.toolCallProgress) cards.set(frame.toolCallProgress.index, frame.toolCallProgress);\n};\n```\n\n' +
            '- **Bold**, *italic*, `code` and [a link](https://example.com) all render.\n' +
            '- Scripts do not: <script>alert(1)</script> stays text.\n',
        },
      ],
    }),
  },
  {
    id: 'parallel-tools',
    keywords: ['parallel', 'weather', 'three', '并行', '天气'],
    label: 'Parallel tools',
    prompt: "What's the weather in Paris and Tokyo, and the time in Paris?",
    first: () => ({
      steps: [
        { kind: 'tool_call', name: 'get_weather', arguments: { location: 'Paris, France', unit: 'celsius' } },
        { kind: 'tool_call', name: 'get_weather', arguments: { location: 'Tokyo, Japan', unit: 'celsius' } },
        { kind: 'tool_call', name: 'get_time', arguments: { timezone: 'Europe/Paris' } },
      ],
    }),
    afterTools: (results) => {
      const [paris, tokyo, time] = results.map(parseJson);
      const line = (w: Record<string, unknown> | undefined) =>
        w && 'temperature' in w ? `${String(w.temperature)} °C, ${String(w.conditions)}` : 'unavailable';
      return {
        steps: [
          {
            kind: 'text',
            text:
              `Three tools ran in parallel:\n\n- **Paris**: ${line(paris)}\n- **Tokyo**: ${line(tokyo)}\n` +
              `- **Time in Paris**: ${String(time?.now ?? 'unavailable')}\n\n_(Weather figures are demo data.)_`,
          },
        ],
      };
    },
  },
  {
    id: 'reasoning',
    keywords: ['reason', 'think', 'math', 'calculate', '推理', '思考', '计算'],
    label: 'Reasoning',
    prompt: 'Think it through: what is (17 * 23) + 2^10?',
    first: () => ({
      steps: [
        {
          kind: 'reasoning',
          text:
            'The user wants (17 * 23) + 2^10. I could do it in my head: 17 * 23 is 391, and 2^10 is 1024, ' +
            'so the sum should be 1415. Arithmetic in my head is error-prone, though, and a calculator tool ' +
            'is available. I will check with it before answering.',
        },
        { kind: 'tool_call', name: 'calculator', arguments: { expression: '(17 * 23) + 2^10' } },
      ],
    }),
    afterTools: ([result]) => ({
      steps: [
        { kind: 'reasoning', text: 'The calculator agrees with my estimate.' },
        { kind: 'text', text: `**${String(parseJson(result).result ?? result)}** — that is 391 + 1024.` },
      ],
    }),
  },
  {
    id: 'approval',
    keywords: ['delete', 'approve', 'approval', '删除', '批准'],
    label: 'Approval',
    prompt: 'Delete notes.md (a risky tool: you approve it first)',
    first: () => ({
      steps: [
        { kind: 'text', text: 'Writing `notes.md`, then deleting it: deleting is risky, so you decide.' },
        {
          kind: 'tool_call',
          name: 'write_file',
          arguments: { path: 'notes.md', content: 'Draft notes, to be deleted.' },
        },
        { kind: 'tool_call', name: 'delete_file', arguments: { path: 'notes.md' } },
      ],
    }),
    afterTools: ([, deleted]) => {
      const outcome = parseJson(deleted);
      return {
        steps: [
          {
            kind: 'text',
            text: outcome.deleted
              ? `Deleted \`${String(outcome.deleted)}\`.`
              : `I did not delete it: _${deleted ?? 'no answer'}_`,
          },
        ],
      };
    },
  },
  {
    id: 'tool-progress',
    keywords: ['index', 'progress', '索引', '进度'],
    label: 'Tool progress',
    prompt: 'Index the knowledge base (a long tool with live progress)',
    first: () => ({
      steps: [
        { kind: 'text', text: 'Indexing six sources; the block shows how far it has come.' },
        {
          kind: 'tool_call',
          name: 'build_index',
          arguments: { sources: ['handbook', 'faq', 'changelog', 'api-reference', 'blog', 'forum'] },
        },
      ],
    }),
    afterTools: ([result]) => {
      const index = parseJson(result);
      return {
        steps: [
          {
            kind: 'text',
            text: index.indexed
              ? `Indexed ${String(index.indexed)} sources (${String(index.documents)} documents).`
              : `Indexing stopped: _${result ?? 'no answer'}_`,
          },
        ],
      };
    },
  },
  {
    id: 'mcp-form',
    keywords: ['elicit', 'a form', '表单'],
    label: 'MCP form',
    prompt: 'Fill in a form an MCP server asks for (elicitation)',
    first: (_userText, tools) =>
      mcpCall(
        tools,
        'trigger-elicitation-request',
        {},
        (name) => `Calling \`${name}\`: the MCP server asks you for a few details, in the tool's card.`,
      ),
    afterTools: ([result]) => ({
      steps: [{ kind: 'text', text: `The MCP server answered:\n\n${quoted(result ?? 'nothing')}` }],
    }),
  },
  {
    id: 'mcp-app',
    keywords: ['mcp app', 'clock', '应用'],
    label: 'MCP app',
    prompt: "Open the MCP server's clock app in the chat",
    first: (_userText, tools) =>
      mcpCall(tools, 'get-time', {}, (name) => `Calling \`${name}\`: its MCP App opens in the card.`),
    afterTools: () => ({
      steps: [
        {
          kind: 'text',
          text: "That is the MCP server's own app, sandboxed in the chat: its button asks the server again.",
        },
      ],
    }),
  },
  {
    id: 'handoff',
    keywords: ['a person', 'human', 'handoff', '人工'],
    label: 'A person',
    prompt: 'I would like to talk to a person',
    first: (_userText, tools) =>
      tools.includes('handoff')
        ? {
            steps: [
              { kind: 'text', text: 'Of course: I am asking a person to join.' },
              { kind: 'tool_call', name: 'handoff', arguments: { reason: 'the visitor asked for a person' } },
            ],
          }
        : {
            steps: [
              {
                kind: 'text',
                text:
                  'This server offers no person to talk to. Start it with `AALIS_HANDOFF=on` and ' +
                  '`AALIS_ADMIN_TOKEN` set, then answer from the console at `/admin`.',
              },
            ],
          },
    afterTools: () => ({
      steps: [
        {
          kind: 'text',
          text: 'A person was asked to join: they answer here, from the console at `/admin`. I stay quiet once they do.',
        },
      ],
    }),
  },
  {
    id: 'mcp-tool',
    keywords: ['mcp', 'operation', '长任务'],
    label: 'MCP tool',
    prompt: "Run the MCP server's long operation (needs a configured MCP server)",
    first: (_userText, tools) =>
      mcpCall(
        tools,
        'trigger-long-running-operation',
        { duration: 3, steps: 6 },
        (name) => `Running \`${name}\` on the MCP server: it reports its progress.`,
      ),
    afterTools: ([result]) => ({
      steps: [{ kind: 'text', text: `The MCP server answered:\n\n${quoted(result ?? 'nothing')}` }],
    }),
  },
  {
    id: 'long-tool-call',
    keywords: ['file', 'write', 'long', 'report', '文件', '写'],
    label: 'Long tool call',
    prompt: 'Write a long report about solar lamps to a file',
    first: (userText) => ({
      steps: [
        { kind: 'text', text: "I'll write the report to `report.md`." },
        {
          kind: 'tool_call',
          name: 'write_file',
          arguments: { path: 'report.md', content: longReport(topicOf(userText)) },
        },
      ],
    }),
    afterTools: ([result]) => {
      const written = parseJson(result);
      return {
        steps: [
          {
            kind: 'text',
            text: written.path
              ? `Done: \`${String(written.path)}\` holds ${String(written.chars)} characters.`
              : `Writing the file failed: ${result}`,
          },
        ],
      };
    },
  },
];

/** How a scenario answers: all the guide has of one. */
type Answers = Pick<Scenario, 'id' | 'first' | 'afterTools'>;

/** What a message that picks no scenario gets: each scenario's first keyword and prompt. */
const guide: Answers = {
  id: 'guide',
  first: () => ({
    steps: [
      {
        kind: 'text',
        text:
          "Hi! I'm the scripted demo model: no API key needed. Each of these words shows off a part of Aalis:\n\n" +
          scenarios.map((s) => `- **${s.keywords[0]}**: ${s.prompt}`).join('\n') +
          '\n\nSet `OPENAI_API_KEY`, `DEEPSEEK_API_KEY` or `OLLAMA_HOST` to talk to a real model instead.',
      },
    ],
  }),
};

export function pickScenario(userText: string): Answers {
  const text = userText.toLowerCase();
  return scenarios.find((s) => s.keywords.some((k) => text.includes(k))) ?? guide;
}

function topicOf(userText: string): string {
  const cleaned = userText.replace(/\s+/g, ' ').trim();
  return cleaned.length > 60 ? `${cleaned.slice(0, 57)}...` : cleaned || 'tool-call streaming';
}

/** The demo model's next reply to a Chat Completions conversation offering `tools` (their names). */
export function replyTo(messages: DemoRequestMessage[], tools: readonly string[] = []): Reply {
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  const userText = lastUser >= 0 ? textOfContent(messages[lastUser]!.content) : '';
  const images = lastUser >= 0 ? imageUrlsOf(messages[lastUser]!.content) : [];
  if (images.length && lastUser === messages.length - 1) return imageReply(images, userText);
  const scenario = pickScenario(userText);
  const results = messages
    .slice(lastUser + 1)
    .filter((m) => m.role === 'tool')
    .map((m) => String(m.content ?? ''));
  if (!results.length) return scenario.first(userText, tools);
  return scenario.afterTools?.(results) ?? { steps: [{ kind: 'text', text: 'Done.' }] };
}
