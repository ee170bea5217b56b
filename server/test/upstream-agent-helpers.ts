/**
 * An upstream agent for the tests: the fake upstream serving recorded AG-UI or AI SDK
 * streams (server/test/fixtures/upstream/), and the real server answering turns with it,
 * on real sockets.
 */
import type { ServerFrame } from '@aalis/protocol';
import { fixture, startFakeUpstream, type FakeUpstream, type Reply } from './fake-upstream.js';
import { startServer, type Harness, type TestClient } from './ws-harness.js';
import type { UpstreamAgentSettings } from '../src/upstream/registry.js';

export type Protocol = UpstreamAgentSettings['protocol'];

type ServerOptions = NonNullable<Parameters<typeof startServer>[0]>;

/** A recorded run, served one event at a time, `delayMs` apart. */
export const recorded = (protocol: Protocol, name: string, delayMs = 2): Reply => ({
  body: fixture(`upstream/${protocol}/${name}.sse`),
  byEvent: true,
  delayMs,
  ...(protocol === 'ai-sdk' ? { headers: { 'x-vercel-ai-ui-message-stream': 'v1' } } : {}),
});

export interface AgentHarness {
  harness: Harness;
  upstream: FakeUpstream;
}

/** The server with an agent of `protocol` on a fake upstream that answers `replies` in turn. */
export async function startAgentServer(
  protocol: Protocol,
  replies: Reply[],
  { agent = {}, ...options }: Omit<ServerOptions, 'agent'> & { agent?: Partial<UpstreamAgentSettings> } = {},
): Promise<AgentHarness> {
  const upstream = await startFakeUpstream(replies);
  const harness = await startServer({
    ...options,
    agent: {
      protocol,
      url: `${upstream.url}/agent`,
      headers: { authorization: 'Bearer agent-token' },
      retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
      ...agent,
    },
  });
  return { harness, upstream };
}

export type Frame<T extends ServerFrame['type']> = Extract<ServerFrame, { type: T }>;

/** Sends a question and waits for the turn's `message`; the frames of this turn. */
export async function ask(client: TestClient, text: string): Promise<ServerFrame[]> {
  const from = client.frames.length;
  client.send({ type: 'send', text });
  await client.turnEnd(from);
  return client.frames.slice(from);
}

export const framesOf = <T extends ServerFrame['type']>(frames: ServerFrame[], type: T): Array<Frame<T>> =>
  frames.filter((f): f is Frame<T> => f.type === type);

/** Each call's card counts, in the order they came, by call id. */
export function cardCounts(frames: ServerFrame[]): Map<string, number[]> {
  const counts = new Map<string, number[]>();
  for (const frame of framesOf(frames, 'stream')) {
    const progress = frame.toolCallProgress;
    if (!progress?.callId) continue;
    counts.set(progress.callId, [...(counts.get(progress.callId) ?? []), progress.charsAccumulated]);
  }
  return counts;
}
