/**
 * The hub talks to other instances only through its coordination (sessions/coordination.ts),
 * whichever implementation the app picked. Driven here with a recording one on top of
 * LocalCoordination: what the hub asks of it, and what it does with what it hears.
 */
import { ErrorCode, type ServerFrame } from '@aalis/protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { MemoryHistoryStore } from '../src/history/memory-store.js';
import { DemoProvider } from '../src/providers/demo/index.js';
import type {
  ApprovalDecision,
  FollowHandlers,
  OwnerRequests,
  TurnLease,
} from '../src/sessions/coordination.js';
import { LocalCoordination } from '../src/sessions/local-coordination.js';
import { SessionHub } from '../src/sessions/session-hub.js';
import { ToolRegistry } from '../src/tools/define-tool.js';
import { peer } from './hub-peer.js';

const provider = new DemoProvider({ speed: 0 });
afterAll(() => provider.close());
/** What the hub logged as failed: only the unreachable claim is expected to be. */
const failures: string[] = [];
const logger = { info: () => {}, error: (_object: object, message: string) => void failures.push(message) };

/** Records every call the hub makes; `claimed` and `remote` say what the other instances hold. */
class RecordingCoordination extends LocalCoordination {
  readonly calls: string[] = [];
  readonly published: string[] = [];
  readonly handlers = new Map<string, FollowHandlers>();
  claimed: 'granted' | 'busy' | 'unreachable' = 'granted';
  remote: string | undefined;
  released = 0;

  override follow(sessionId: string, handlers: FollowHandlers): Promise<void> {
    this.calls.push('follow');
    this.handlers.set(sessionId, handlers);
    return Promise.resolve();
  }
  override unfollow(): void {
    this.calls.push('unfollow');
  }
  override claim(_sessionId: string, _turnId: string, _requests: OwnerRequests): Promise<TurnLease> {
    this.calls.push('claim');
    if (this.claimed === 'unreachable') return Promise.reject(new Error('no Redis'));
    if (this.claimed === 'busy') return Promise.resolve('busy' as unknown as TurnLease);
    return Promise.resolve({
      owned: true,
      publish: (text) => void this.published.push(JSON.parse(text()).type),
      release: () => {
        this.released++;
        return Promise.resolve();
      },
    });
  }
  override remoteTurn(): string | undefined {
    return this.remote;
  }
  override requestAbort(_sessionId: string, turnId: string): Promise<void> {
    this.calls.push(`abort ${turnId}`);
    return Promise.resolve();
  }
  override passDecision(_sessionId: string, decision: ApprovalDecision): Promise<void> {
    this.calls.push(`decide ${decision.callId} ${decision.decision}`);
    return Promise.resolve();
  }
  override share(_sessionId: string, frameJson: string): void {
    this.calls.push(`share ${JSON.parse(frameJson).type}`);
  }
}

function hubWith(coordination: RecordingCoordination) {
  const store = new MemoryHistoryStore();
  const agent = new Agent({ provider, model: 'demo', tools: new ToolRegistry(), logger });
  return { store, hub: new SessionHub({ agent, store, logger, cluster: coordination }) };
}

/** A hub on `coordination` whose one tab asked a question and got its answer (the lease released). */
async function answeredTurn(coordination: RecordingCoordination) {
  const { hub } = hubWith(coordination);
  const tab = peer();
  const sessionId = await hub.hello(tab, undefined);
  await hub.send(tab, sessionId, 'hello there');
  await expect.poll(() => coordination.released).toBe(1);
  return { hub, tab, sessionId };
}

const errorsOf = (frames: ServerFrame[]) => frames.flatMap((f) => (f.type === 'error' ? [f.code] : []));

describe('the hub and its coordination', () => {
  test("a turn's frames go out under the lease it claimed, which is released after the answer", async () => {
    const coordination = new RecordingCoordination();
    const { hub, tab, sessionId } = await answeredTurn(coordination);
    expect(coordination.calls.slice(0, 2)).toEqual(['follow', 'claim']);
    // Every frame the tab got after `ready` was published, in the same order.
    expect(coordination.published).toEqual(tab.frames.slice(1).map((f) => f.type));
    expect(coordination.published.at(0)).toBe('user_message');
    expect(coordination.published.at(-1)).toBe('message');
    hub.leave(tab, sessionId);
    expect(coordination.calls.at(-1)).toBe('unfollow');
    expect(hub.sessionCount).toBe(0);
  });

  test('a claim another instance holds is busy; one that cannot be made is unavailable', async () => {
    const coordination = new RecordingCoordination();
    const { hub } = hubWith(coordination);
    const tab = peer();
    const sessionId = await hub.hello(tab, undefined);
    coordination.claimed = 'busy';
    await hub.send(tab, sessionId, 'one');
    coordination.claimed = 'unreachable';
    await hub.send(tab, sessionId, 'two');
    expect(errorsOf(tab.frames)).toEqual([ErrorCode.Busy, ErrorCode.Unavailable]);
    expect(failures.splice(0)).toEqual(['claiming the turn failed: the shared state cannot be reached']);
    expect(coordination.published).toEqual([]);
  });

  test("Stop and decisions for another instance's turn are passed on; its frames reach this one's tabs", async () => {
    const coordination = new RecordingCoordination();
    const { hub } = hubWith(coordination);
    const tab = peer();
    const sessionId = await hub.hello(tab, undefined);
    coordination.remote = 'msg_remote';
    hub.abort(sessionId);
    hub.decide(sessionId, 'call_1', 'approve');
    expect(coordination.calls.slice(-2)).toEqual(['abort msg_remote', 'decide call_1 approve']);

    const frame: ServerFrame = {
      type: 'user_message',
      sessionId,
      message: { id: 'msg_remote', role: 'user', parts: [{ type: 'text', text: 'hi' }], createdAt: 1 },
    };
    coordination.handlers.get(sessionId)!.frames([{ frame, text: JSON.stringify(frame) }]);
    expect(tab.frames.at(-1)).toEqual(frame);
    // A tab that joins now resumes the other instance's turn from this one's buffer.
    const late = peer();
    await hub.hello(late, sessionId);
    expect(late.frames.map((f) => f.type)).toEqual(['ready', 'stream_resume']);
  });

  test('feedback is shared with the other instances', async () => {
    const coordination = new RecordingCoordination();
    const { hub, tab, sessionId } = await answeredTurn(coordination);
    const answer = tab.frames.find(
      (f): f is Extract<ServerFrame, { type: 'message' }> => f.type === 'message',
    )!;
    await hub.feedback(tab, sessionId, { type: 'feedback', messageId: answer.message.id, rating: 'up' });
    expect(coordination.calls.at(-1)).toBe('share feedback');
  });
});
