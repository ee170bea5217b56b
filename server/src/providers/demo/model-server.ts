/**
 * The scripted demo model behind a real OpenAI-compatible endpoint, inside the server
 * process on 127.0.0.1 with a port of its own. The demo provider is the ordinary OpenAI
 * provider pointed at it, so the demo runs the very code path a real model does: SSE
 * bytes, tool-call fragments, usage, finish reasons.
 *
 * Pacing is a real model's: 30 to 60 fragments a second with jitter. `speed` scales it
 * (tests run at 0: no pauses at all).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { replyTo } from './scenarios.js';
import type { DemoRequestMessage, Step } from './script.js';

export interface DemoModelServerOptions {
  /** 1 is real time; 2 twice as fast; 0 no pauses at all. */
  speed?: number;
  /** Largest request body accepted. */
  maxBodyBytes?: number;
}

export const DEMO_MODEL = 'aalis-demo';

export class DemoModelServer {
  readonly #server: Server;
  readonly #speed: number;
  readonly #maxBodyBytes: number;
  #url: string | undefined;

  constructor(options: DemoModelServerOptions = {}) {
    this.#speed = options.speed ?? 1;
    this.#maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch(() => res.destroy());
    });
  }

  /** The base URL of the endpoint (`http://127.0.0.1:PORT/v1`), once listening. */
  async start(): Promise<string> {
    if (this.#url) return this.#url;
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const { port } = this.#server.address() as AddressInfo;
    return (this.#url = `http://127.0.0.1:${port}/v1`);
  }

  async close(): Promise<void> {
    if (!this.#url) return;
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#url = undefined;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = await readBody(req, this.#maxBodyBytes);
    const request = body as
      | {
          messages?: DemoRequestMessage[];
          stream?: boolean;
          tools?: Array<{ function?: { name?: unknown } }>;
        }
      | undefined;
    if (!request || !Array.isArray(request.messages) || request.stream !== true) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"the demo model only streams: send messages and stream: true"}}');
      return;
    }
    const offered = (request.tools ?? []).flatMap((t) =>
      typeof t?.function?.name === 'string' ? [t.function.name] : [],
    );
    const reply = replyTo(request.messages, offered);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let closed = false;
    res.on('close', () => (closed = true));
    const id = `chatcmpl-demo-${randomBytes(6).toString('hex')}`;
    const send = (choices: unknown[], usage?: unknown) => {
      const chunk = {
        id,
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model: DEMO_MODEL,
        choices,
        ...(usage ? { usage } : {}),
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    };
    const delta = (d: Record<string, unknown>, finish: string | null = null) =>
      send([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);

    delta({ role: 'assistant', content: null });
    let completionChars = 0;
    let toolIndex = 0;
    for (const step of reply.steps) {
      for (const fragment of fragmentsOf(step, toolIndex)) {
        if (closed) return;
        if (fragment.pauseMs) await sleep(fragment.pauseMs * this.#pace());
        else await this.#beat();
        if (closed) return;
        completionChars += JSON.stringify(fragment.delta).length;
        delta(fragment.delta);
      }
      if (step.kind === 'tool_call') toolIndex++;
    }
    delta({}, toolIndex ? 'tool_calls' : 'stop');
    const promptChars = request.messages.reduce((n, m) => n + String(m.content ?? '').length, 0);
    const promptTokens = Math.ceil(promptChars / 4);
    const completionTokens = Math.ceil(completionChars / 4);
    send([], {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    });
    res.end('data: [DONE]\n\n');
  }

  #pace(): number {
    return this.#speed === 0 ? 0 : 1 / this.#speed;
  }

  /** One fragment's pause: 30 to 60 fragments a second. */
  async #beat(): Promise<void> {
    if (this.#speed === 0) return;
    await sleep(1000 / (30 + Math.random() * 30) / this.#speed);
  }
}

interface Fragment {
  delta: Record<string, unknown>;
  /** A deliberate pause before this fragment (the stall scenario), instead of a beat. */
  pauseMs?: number;
}

/** A step as the deltas a model streams: words of text, or a tool call's arguments a few characters at a time. */
function* fragmentsOf(step: Step, index: number): Generator<Fragment> {
  if (step.kind === 'text' || step.kind === 'reasoning') {
    const key = step.kind === 'text' ? 'content' : 'reasoning_content';
    for (const piece of step.text.match(/\S*\s*/g) ?? []) if (piece) yield { delta: { [key]: piece } };
    return;
  }
  const callId = `call_${randomBytes(9).toString('base64url')}`;
  yield {
    delta: {
      tool_calls: [{ index, id: callId, type: 'function', function: { name: step.name, arguments: '' } }],
    },
  };
  const text = JSON.stringify(step.arguments);
  let sent = 0;
  let stalled = false;
  while (sent < text.length) {
    const size = 6 + Math.floor(Math.random() * 10);
    const piece = text.slice(sent, sent + size);
    const stall = !stalled && step.stallAfterChars !== undefined && sent >= step.stallAfterChars;
    if (stall) stalled = true;
    yield {
      delta: { tool_calls: [{ index, function: { arguments: piece } }] },
      ...(stall ? { pauseMs: step.stallMs ?? 10_000 } : {}),
    };
    sent += piece.length;
  }
}

async function readBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
