/**
 * The reconnect loop (controllers/connection.ts) against every way an attempt can fail:
 * no failure a network or an engine produces may end it, only the server's own refusal.
 * Most sockets here are scripted, to fail exactly as an engine does (WebKit's `error`
 * without `close`, a handshake that never ends); one test uses a real socket refused by a
 * real server. Backoffs are a few milliseconds, so nothing waits on the clock for long.
 */
import { expect } from '@open-wc/testing';
import type { AalisChat } from '../src/aalis-chat.js';
import {
  Connection,
  browserSocket,
  type Backoff,
  type ConnectionState,
  type SocketLike,
} from '../src/controllers/connection.js';
import { readyFrame, socketCollector, until } from './harness.js';

/** A socket that does nothing until the test makes it: open, answer, fail. */
class ScriptedSocket implements SocketLike {
  readyState = 0;
  readonly sent: string[] = [];
  closedWith: number | undefined;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;

  send(text: string): void {
    this.sent.push(text);
  }
  close(code = 1000): void {
    this.closedWith = code;
    this.readyState = 3;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  ready(): void {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(readyFrame()) }));
  }
  /** A failure as the standard has it: `error`, then `close`. */
  fail(code = 1006, errorToo = true): void {
    this.readyState = 3;
    if (errorToo) this.onerror?.(new Event('error'));
    this.onclose?.(new CloseEvent('close', { code }));
  }
  /** What WebKit has done: `error`, and no `close` ever. */
  errorOnly(): void {
    this.readyState = 3;
    this.onerror?.(new Event('error'));
  }
}

interface Harness {
  connection: Connection;
  sockets: ScriptedSocket[];
  states: ConnectionState[];
  refused: number[];
  /** How many times the origin was checked. */
  checks: () => number;
}

/**
 * A connection over scripted sockets. `unreachable` answers the origin check (no refusal
 * by default); `factory` may replace how sockets are made.
 */
function connect(
  options: {
    backoff?: Backoff;
    unreachable?: () => Promise<boolean>;
    factory?: (url: string) => SocketLike;
  } = {},
): Harness {
  const sockets: ScriptedSocket[] = [];
  const states: ConnectionState[] = [];
  const refused: number[] = [];
  let checks = 0;
  const connection = new Connection(
    {
      frame: () => {},
      state: (state) => states.push(state),
      refused: (code) => refused.push(code),
      unreachable: () => {
        checks++;
        return options.unreachable?.() ?? Promise.resolve(false);
      },
      hello: () => ({}),
    },
    options.factory ??
      (() => {
        const socket = new ScriptedSocket();
        sockets.push(socket);
        return socket;
      }),
    options.backoff ?? { baseMs: 5, maxMs: 20 },
  );
  connection.open('wss://chat.example.com/ws');
  return { connection, sockets, states, refused, checks: () => checks };
}

const nextTick = () => new Promise((resolve) => setTimeout(resolve));

describe('the reconnect loop', () => {
  const opened: Connection[] = [];
  afterEach(() => {
    for (const connection of opened.splice(0)) connection.close();
  });
  const track = (harness: Harness) => (opened.push(harness.connection), harness);

  it('retries after a close before open with any code while the origin check refuses nothing', async () => {
    const { sockets, connection, checks } = track(connect());
    // 1006 (what every engine reports for a refused or failed handshake), 1015 (TLS),
    // 4403 and 4500: codes a proxy or a server may use; none is the server's refusal.
    for (const [n, code] of [1006, 1015, 4403, 4500].entries()) {
      sockets[n]!.fail(code);
      await until(() => sockets.length === n + 2);
    }
    expect(checks()).to.equal(4);
    sockets[4]!.open();
    sockets[4]!.ready();
    expect(connection.state).to.equal('connected');
  });

  it("an error without a close (WebKit's) is a failure: the next attempt comes", async () => {
    const { sockets, states } = track(connect());
    sockets[0]!.errorOnly();
    // The close it would carry is waited for a second: then the error alone counts.
    await until(() => sockets.length === 2);
    expect(sockets[0]!.closedWith).to.equal(undefined);
    expect(states).to.deep.equal(['connecting', 'reconnecting', 'reconnecting']);
    // A late close of the first socket is not a second failure.
    sockets[0]!.onclose?.(new CloseEvent('close', { code: 1006 }));
    await nextTick();
    expect(states.at(-1)).to.equal('reconnecting');
    expect(sockets).to.have.length(2);
  });

  it('gives up on a handshake that never ends, and on a hello that is never answered', async () => {
    const { sockets, connection } = track(connect({ backoff: { baseMs: 5, maxMs: 20, attemptMs: 60 } }));
    // Neither open nor close: a half-open connection, a proxy holding the upgrade.
    await until(() => sockets.length === 2);
    expect(sockets[0]!.closedWith).to.equal(4000);
    // Open, hello sent, and no ready: given up the same way.
    sockets[1]!.open();
    expect(sockets[1]!.sent).to.have.length(1);
    await until(() => sockets.length === 3);
    expect(sockets[1]!.closedWith).to.equal(4000);
    sockets[2]!.open();
    sockets[2]!.ready();
    // Once connected, the time limit is over: the socket stays.
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(connection.state).to.equal('connected');
    expect(sockets).to.have.length(3);
    expect(sockets[2]!.closedWith).to.equal(undefined);
  });

  it('a throwing constructor is one more failure, not the end', async () => {
    let made = 0;
    const sockets: ScriptedSocket[] = [];
    const { connection } = track(
      connect({
        factory: () => {
          if (++made < 3) throw new DOMException('blocked', 'SecurityError');
          const socket = new ScriptedSocket();
          sockets.push(socket);
          return socket;
        },
      }),
    );
    await until(() => sockets.length === 1);
    sockets[0]!.open();
    sockets[0]!.ready();
    expect(connection.state).to.equal('connected');
  });

  it('the network coming back starts an attempt at once, dropping one still in flight', async () => {
    // A backoff of a minute: only the `online` event can bring the next attempt now.
    const { sockets, connection } = track(connect({ backoff: { baseMs: 60_000, maxMs: 60_000 } }));
    sockets[0]!.fail();
    await nextTick();
    expect(connection.state).to.equal('reconnecting');
    // Offline says nothing the loop acts on (WebKitGTK says it while the network works).
    window.dispatchEvent(new Event('offline'));
    window.dispatchEvent(new Event('online'));
    expect(sockets).to.have.length(2);
    // Still connecting: a handshake on the old route is dropped for a fresh one.
    window.dispatchEvent(new Event('online'));
    expect(sockets).to.have.length(3);
    expect(sockets[1]!.closedWith).to.equal(4000);
    sockets[2]!.open();
    sockets[2]!.ready();
    window.dispatchEvent(new Event('online'));
    expect(sockets).to.have.length(3);
    expect(connection.state).to.equal('connected');
  });

  it("only the server's refusal of the origin ends it: nothing is tried after, not even when online", async () => {
    const { sockets, connection, states } = track(connect({ unreachable: async () => true }));
    sockets[0]!.fail();
    await until(() => connection.state === 'offline');
    const count = sockets.length;
    window.dispatchEvent(new Event('online'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sockets).to.have.length(count);
    expect(states.at(-1)).to.equal('offline');
  });

  it('a refusal that comes back after a later attempt connected is stale, and ignored', async () => {
    let answer!: (refused: boolean) => void;
    const { sockets, connection } = track(
      connect({ unreachable: () => new Promise<boolean>((resolve) => (answer = resolve)) }),
    );
    sockets[0]!.fail();
    await until(() => sockets.length === 2);
    sockets[1]!.open();
    sockets[1]!.ready();
    answer(true);
    await nextTick();
    expect(connection.state).to.equal('connected');
    expect(sockets[1]!.closedWith).to.equal(undefined);
  });

  it('the server saying the credentials or the hello will never do (4401, 4400) is final', async () => {
    for (const [code, errorToo] of [
      [4401, false],
      // An engine that fires `error` before such a close: the close's code still decides.
      [4400, true],
    ] as const) {
      const { sockets, connection, refused } = track(connect());
      sockets[0]!.open();
      sockets[0]!.fail(code, errorToo);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(connection.state).to.equal('offline');
      expect(refused).to.deep.equal([code]);
      expect(sockets).to.have.length(1);
    }
  });

  it('a real server that never answers the upgrade: each attempt given up, closed and tried again', async () => {
    // The test runner's own server takes the upgrade of any other path than its own and
    // never answers it: a real handshake hanging, as behind a stuck proxy.
    const made: SocketLike[] = [];
    const connection = new Connection(
      {
        frame: () => {},
        state: () => {},
        refused: () => {},
        unreachable: async () => false,
        hello: () => ({}),
      },
      (address) => {
        const socket = browserSocket(address);
        made.push(socket);
        return socket;
      },
      { baseMs: 5, maxMs: 20, attemptMs: 150 },
    );
    opened.push(connection);
    connection.open(`ws://${location.host}/no-socket-here`);
    await until(() => made.length >= 3, 5_000);
    expect(connection.state).to.be.oneOf(['connecting', 'reconnecting']);
    // None left hanging: each one given up was closed.
    expect(made.slice(0, 2).map((socket) => socket.readyState >= 2)).to.deep.equal([true, true]);
  });
});

describe('the status before the first attempt', () => {
  it('says connecting, not offline, while the first socket waits its turn', async () => {
    localStorage.clear();
    const { sockets, factory } = socketCollector();
    const el = document.createElement('aalis-chat') as AalisChat;
    el.server = 'https://chat.example.com';
    el.locale = 'en';
    el.socketFactory = factory;
    document.body.append(el);
    try {
      // At once, before any socket: the first one waits a moment for the markdown part.
      expect(sockets).to.have.length(0);
      expect(el.connectionState).to.equal('connecting');
      await el.updateComplete;
      const status = el.shadowRoot!.querySelector('.status')!;
      expect(status.getAttribute('data-state')).to.equal('connecting');
      expect(status.textContent).to.contain('Connecting');
      // No "Retry now" with nothing to retry.
      expect(status.querySelector('button')).to.equal(null);
      await until(() => sockets.length === 1);
    } finally {
      el.remove();
    }
    expect(el.connectionState).to.equal('offline');
  });
});
