/**
 * A test transport for `<aalis-chat>`: sockets the test drives by hand with real frame
 * sequences, so the element is exercised exactly as over the network, minus the network.
 */
import { fixture, html } from '@open-wc/testing';
import '../src/index.js';
import type { AalisChat } from '../src/aalis-chat.js';
import { approvalCards } from '../src/components/approval/approvals.js';
import { conversationsView } from '../src/components/conversations/conversations.js';
import { feedbackForm } from '../src/components/message-actions/message-actions.js';
import { versionsView } from '../src/components/versions/versions.js';
import { handoffView } from '../src/controllers/handoff.js';
import { loadLexer } from '../src/markdown/lexer.js';
import type { SocketLike } from '../src/controllers/connection.js';

export class FakeSocket implements SocketLike {
  readyState = 0;
  readonly sent: Array<Record<string, unknown>> = [];
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;

  constructor(readonly url: string) {
    setTimeout(() => {
      this.readyState = 1;
      this.onopen?.(new Event('open'));
    });
  }

  send(text: string): void {
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
  }

  close(code = 1000, reason = ''): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.(new CloseEvent('close', { code, reason }));
  }

  /** The server sends a frame. */
  receive(frame: object): void {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(frame) }));
  }
}

/** A socket factory for the element that keeps every socket it made, oldest first. */
export function socketCollector(): { sockets: FakeSocket[]; factory: (url: string) => FakeSocket } {
  const sockets: FakeSocket[] = [];
  const factory = (url: string) => {
    const socket = new FakeSocket(url);
    sockets.push(socket);
    return socket;
  };
  return { sockets, factory };
}

export interface Mounted {
  el: AalisChat;
  sockets: FakeSocket[];
  socket: FakeSocket;
  /** Sends frames and waits for the element to render them. */
  /** Sends frames, typed loosely: the element must decode what a server sends, wrong or not. */
  frames(...frames: object[]): Promise<void>;
  shadow: ShadowRoot;
}

export const SESSION = 'session-test';

/** The views in files of their own (../src/shared/lazy-view.ts), each loaded once a page. */
export const LAZY_VIEWS = [approvalCards, handoffView, conversationsView, versionsView, feedbackForm];

export async function mount(
  options: {
    locale?: string;
    serverTime?: number;
    messages?: unknown[];
    theme?: string;
    mode?: 'inline' | 'launcher';
    position?: string;
    /** Keep what an earlier element stored (its session, its panel open or closed): a reload. */
    keepStorage?: boolean;
    /** The server's address: what the widget loads from it (MCP Apps' pages) comes from there. */
    server?: string;
    /** Leave the views in files of their own to load when first shown (lazy-views.browser.test.ts). */
    lazyViews?: boolean;
  } = {},
): Promise<Mounted> {
  if (!options.keepStorage) localStorage.clear();
  // marked is its own file, loaded when the first element connects: here before, so that
  // every test sees markdown rendered (lexer.ts). So are the views a chat loads when it first
  // shows them: every test sees them at once, where a visitor sees them a moment later.
  await Promise.all([loadLexer(), ...(options.lazyViews ? [] : LAZY_VIEWS.map((view) => view.load()))]);
  const { sockets, factory } = socketCollector();
  const el = await fixture<AalisChat>(
    html`<aalis-chat
      server=${options.server ?? 'https://chat.example.com'}
      locale=${options.locale ?? 'en'}
      theme=${options.theme ?? 'light'}
      mode=${options.mode ?? 'inline'}
      position=${options.position ?? 'bottom-right'}
      .socketFactory=${factory}
    ></aalis-chat>`,
  );
  await until(() => sockets[0]?.sent.length === 1);
  const mounted: Mounted = {
    el,
    sockets,
    get socket() {
      return sockets.at(-1)!;
    },
    shadow: el.shadowRoot!,
    frames: async (...frames) => {
      for (const frame of frames) mounted.socket.receive(frame);
      await el.updateComplete;
    },
  };
  await mounted.frames({
    type: 'ready',
    sessionId: SESSION,
    serverTime: options.serverTime ?? Date.now(),
    messages: options.messages ?? [],
    resumed: false,
  });
  return mounted;
}

/** A `ready` for the test session (resumed, empty unless `fields` say otherwise). */
export const readyFrame = (fields: object = {}) => ({
  type: 'ready',
  sessionId: SESSION,
  serverTime: Date.now(),
  messages: [],
  resumed: true,
  ...fields,
});

export async function until(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A question accepted; `fields` go into its message (an id, images). */
export const userMessage = (text = 'hi', fields: object = {}) => ({
  type: 'user_message',
  sessionId: SESSION,
  message: {
    id: `u-${Math.random()}`,
    role: 'user',
    parts: [{ type: 'text', text }],
    createdAt: Date.now(),
    ...fields,
  },
});
/** A `stream_resume` of the test session: the running turn's text so far; `fields` add to it or replace. */
export const resumeFrame = (text: string, fields: object = {}) => ({
  type: 'stream_resume',
  sessionId: SESSION,
  serverTime: Date.now(),
  parts: [{ type: 'text', text }],
  toolCallsProgress: [],
  ...fields,
});
/** The turn's end (`message`): a complete assistant answer; `fields` go into its message (an id, a status). */
export const answerFrame = (text: string, fields: object = {}) => ({
  type: 'message',
  sessionId: SESSION,
  message: {
    id: `a-${Math.random()}`,
    role: 'assistant',
    parts: [{ type: 'text', text }],
    createdAt: Date.now(),
    status: 'complete',
    ...fields,
  },
});
export const progress = (index: number, name: string, charsAccumulated: number) => ({
  type: 'stream',
  sessionId: SESSION,
  toolCallProgress: { index, name, charsAccumulated },
});
/** A `tool_execute` of the test session, call index 0 unless `fields` say otherwise. */
export const toolExecute = (
  phase: 'start' | 'progress' | 'end',
  callId: string,
  name: string,
  fields: object = {},
) => ({ type: 'tool_execute', sessionId: SESSION, phase, callId, index: 0, name, ...fields });
/** A tool starts running (`tool_execute` start), with its arguments and any other fields. */
export const toolStart = (callId: string, name: string, args: unknown = {}, fields: object = {}) =>
  toolExecute('start', callId, name, { arguments: args, ...fields });
/** The end of the model's round (`stream` with done). */
export const done = (fields: object = {}) => ({ type: 'stream', sessionId: SESSION, done: true, ...fields });
export const text = (contentDelta: string) => ({ type: 'stream', sessionId: SESSION, contentDelta });

/** The pending cards, in the order shown, as the text a user reads. */
export async function cards(root: ShadowRoot): Promise<string[]> {
  const elements = [...root.querySelectorAll('aalis-tool-progress')];
  await Promise.all(
    elements.map((e) => (e as unknown as { updateComplete: Promise<unknown> }).updateComplete),
  );
  return elements.map((e) => e.shadowRoot!.textContent!.replace(/\s+/g, ' ').trim());
}

/** The turn status line as a user reads it, or null when there is none. */
export async function statusLine(root: ShadowRoot): Promise<string | null> {
  const line = root.querySelector('aalis-turn-status');
  if (!line) return null;
  await line.updateComplete;
  return line.shadowRoot!.textContent!.replace(/\s+/g, ' ').trim();
}

/** What the polite live region says right now. */
export const announced = (root: ShadowRoot): string =>
  root.querySelector('[aria-live="polite"]')!.textContent!.trim();

/**
 * `Date.now` under the test's control (the widget counts with it); `restore` in a
 * `finally`. Ticking elements pick a change up within their 100 ms tick.
 */
export function fakeClock(start = Date.now()): {
  advance(ms: number): Promise<void>;
  restore(): void;
} {
  const realNow = Date.now;
  let now = start;
  Date.now = () => now;
  return {
    async advance(ms) {
      now += ms;
      // Real time on purpose: the ticking elements read the clock on their own 100 ms tick.
      await new Promise((r) => setTimeout(r, 150));
    },
    restore: () => (Date.now = realNow),
  };
}

export const waiting = () => ({ type: 'turn_status', sessionId: SESSION, state: 'waiting' });
export const retrying = (attempt: number, retryInMs: number) => ({
  type: 'turn_status',
  sessionId: SESSION,
  state: 'retrying',
  attempt,
  retryInMs,
});
