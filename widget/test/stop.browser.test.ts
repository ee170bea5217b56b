/**
 * Stop is recorded, not just sent (issue 32, item 4; PROTOCOL.md, "Stop is recorded"). The
 * instance running a turn may die just as the visitor presses Stop: the `abort` goes down
 * with its socket, or finds none open. The widget reconnects (in production to another
 * instance behind the load balancer), gets `ready` and, the turn still running there,
 * `stream_resume`: it says the Stop again, after every such reconnect, until the turn ends.
 * Each socket here is one instance as the widget sees it: what the test asserts on a
 * socket's `sent` is what that server received.
 */
import { expect } from '@open-wc/testing';
import {
  answerFrame,
  mount,
  readyFrame,
  resumeFrame,
  text,
  until,
  userMessage,
  type FakeSocket,
  type Mounted,
} from './harness.js';

const question = userMessage('Write the quarterly report', { id: 'q1' });
const stopped = answerFrame('The report', { id: 'a1', status: 'aborted' });
const next = userMessage('And the next quarter?', { id: 'q2' });
/** What a reconnect finds: the stopped turn answered, and a later question (from another tab) running. */
const nextRunning = () => [
  readyFrame({ messages: [question.message, stopped.message, next.message] }),
  resumeFrame('Next quarter'),
];
const aborts = (socket: FakeSocket) => socket.sent.filter((f) => f.type === 'abort');
const stopButton = (m: Mounted) => m.shadow.querySelector<HTMLButtonElement>('[part~="stop-button"]');

/** The current socket drops (the instance died); resolves once the next one said hello. */
async function reconnect(m: Mounted): Promise<FakeSocket> {
  const at = m.sockets.length;
  m.socket.close(1006);
  await until(() => m.sockets[at]?.sent.length === 1);
  return m.sockets[at]!;
}

describe('Stop survives the instance that runs the turn', () => {
  it('sent as the socket drops: said again after each reconnect that resumes the turn, until its message', async () => {
    const m = await mount();
    await m.frames(question, text('Quarter one was'));
    stopButton(m)!.click();
    expect(aborts(m.sockets[0]!)).to.have.length(1);
    await m.el.updateComplete;
    // Pressed, not yet ended: the button says so, and stays a button.
    expect(stopButton(m)!.dataset.state).to.equal('stopping');
    expect(stopButton(m)!.textContent!.trim()).to.equal('Stopping…');

    // The instance dies with the Stop unread; another one has the turn still running.
    const second = await reconnect(m);
    expect(aborts(second)).to.have.length(0);
    await m.frames(readyFrame({ messages: [question.message] }), resumeFrame('Quarter one was strong'));
    expect(second.sent.at(-1)).to.deep.equal({ type: 'abort' });
    expect(aborts(second)).to.have.length(1);
    expect(stopButton(m)!.dataset.state).to.equal('stopping');

    // Dropped again before that instance ended the turn: said to the next one too.
    const third = await reconnect(m);
    await m.frames(readyFrame({ messages: [question.message] }), resumeFrame('Quarter one was strong'));
    expect(aborts(third)).to.have.length(1);

    // The turn ends, stopped: nothing more to say, and the button is Send again.
    await m.frames(stopped);
    expect(stopButton(m)).to.equal(null);
    expect(m.shadow.querySelector('[part~="send-button"]')).to.exist;
    // A later reconnect resumes another turn (asked from another tab): never stopped.
    const fourth = await reconnect(m);
    await m.frames(...nextRunning());
    expect(aborts(fourth)).to.have.length(0);
    expect(stopButton(m)!.dataset.state).to.equal(undefined);
    expect(stopButton(m)!.textContent!.trim()).to.equal('Stop');
  });

  it('pressed while no socket is open: sent once the reconnect finds the turn running', async () => {
    const m = await mount();
    await m.frames(question, text('Quarter one was'));
    m.socket.close(1006);
    await m.el.updateComplete;
    stopButton(m)!.click();
    expect(aborts(m.sockets[0]!)).to.have.length(0);
    await m.el.updateComplete;
    expect(stopButton(m)!.dataset.state).to.equal('stopping');

    await until(() => m.sockets[1]?.sent.length === 1);
    await m.frames(readyFrame({ messages: [question.message] }), resumeFrame('Quarter one was strong'));
    expect(aborts(m.sockets[1]!)).to.have.length(1);
  });

  it('a turn that ended meanwhile is not stopped, nor one asked after it from another tab', async () => {
    const m = await mount();
    await m.frames(question, text('Quarter one was'));
    stopButton(m)!.click();

    // The reconnect finds the stopped turn answered, and another question running.
    const second = await reconnect(m);
    await m.frames(...nextRunning());
    expect(aborts(second)).to.have.length(0);
    expect(stopButton(m)!.dataset.state).to.equal(undefined);

    // Nor when it finds the turn answered and nothing running.
    stopButton(m)!.click();
    expect(aborts(second)).to.have.length(1);
    const third = await reconnect(m);
    await m.frames(readyFrame({ messages: [next.message, answerFrame('The next report').message] }));
    expect(aborts(third)).to.have.length(0);
    expect(stopButton(m)).to.equal(null);
  });
});
