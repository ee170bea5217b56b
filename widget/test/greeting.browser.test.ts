/**
 * An empty conversation greets the visitor: the owner's welcome and starter prompts, from
 * the server's configuration or the page's attributes, and a click (or Enter) sends one.
 */
import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { mount, readyFrame, userMessage } from './harness.js';

const ready = readyFrame;
const starterLabels = (shadow: ShadowRoot) =>
  [...shadow.querySelectorAll('.starter')].map((b) => b.textContent!.trim());

describe('the greeting of an empty conversation', () => {
  it("shows the server's welcome as markdown and its starters, and a click sends one", async () => {
    const { el, shadow, frames, socket } = await mount();
    await frames(
      ready({ welcome: 'Hello from **Lumen & Oak**.', starters: ['Track my order', 'Opening hours?'] }),
    );
    expect(shadow.querySelector('.welcome strong')!.textContent).to.equal('Lumen & Oak');
    expect(starterLabels(shadow)).to.deep.equal(['Track my order', 'Opening hours?']);
    expect(shadow.querySelector('.starters')!.getAttribute('aria-label')).to.equal('Suggestions');
    shadow.querySelector<HTMLButtonElement>('.starter')!.click();
    expect(socket.sent.at(-1)).to.include({ type: 'send', text: 'Track my order' });
    // The button is about to go: the focus waits in the text box, not on the page's body.
    await el.updateComplete;
    expect(shadow.activeElement).to.equal(shadow.querySelector('textarea'));
    // Once the conversation has begun, the greeting is gone.
    await frames(userMessage('Track my order'));
    await el.updateComplete;
    expect(shadow.querySelector('.greeting')).to.equal(null);
  });

  it('by keyboard: Tab reaches a starter, Enter sends it', async () => {
    const { shadow, frames, socket } = await mount();
    await frames(ready({ starters: ['First', 'Second'] }));
    const second = shadow.querySelectorAll<HTMLButtonElement>('.starter')[1]!;
    second.focus();
    await sendKeys({ press: 'Enter' });
    expect(socket.sent.at(-1)).to.include({ type: 'send', text: 'Second' });
  });

  it("the page's attributes win over the server's; starters may have labels", async () => {
    const { el, shadow, frames } = await mount();
    el.setAttribute('welcome', 'Ask our lamp expert.');
    el.setAttribute('starters', '["Which bulb?", {"label": "Returns", "text": "How do I return a lamp?"}]');
    await frames(ready({ welcome: 'From the server', starters: ['Server starter'] }));
    expect(shadow.querySelector('.welcome')!.textContent!.trim()).to.equal('Ask our lamp expert.');
    expect(starterLabels(shadow)).to.deep.equal(['Which bulb?', 'Returns']);
    // A mistake in the attribute is none, not an exception: the server's come back.
    el.setAttribute('starters', '[not json');
    await el.updateComplete;
    expect(starterLabels(shadow)).to.deep.equal(['Server starter']);
  });

  it('<template> children are starters: their text is sent, their data-label shown', async () => {
    const { el, shadow, frames, socket } = await mount();
    el.innerHTML =
      '<template data-label="Shipping">How long does shipping to Norway take?</template><template>Gift cards?</template>';
    await frames(ready());
    el.requestUpdate();
    await el.updateComplete;
    expect(starterLabels(shadow)).to.deep.equal(['Shipping', 'Gift cards?']);
    shadow.querySelector<HTMLButtonElement>('.starter')!.click();
    expect(socket.sent.at(-1)).to.include({ text: 'How long does shipping to Norway take?' });
  });

  it('a starter clicked while offline waits in the text box, said as kept', async () => {
    const { el, shadow, frames, socket } = await mount();
    await frames(ready({ starters: ['Hello?'] }));
    socket.close(1006);
    await el.updateComplete;
    shadow.querySelector<HTMLButtonElement>('.starter')!.click();
    await el.updateComplete;
    expect(shadow.querySelector('textarea')!.value).to.equal('Hello?');
    expect(shadow.querySelector('.notice')!.textContent).to.match(/kept/);
  });

  it('is not shown over a conversation, nor while older messages exist', async () => {
    const { shadow, frames } = await mount();
    await frames(
      ready({
        welcome: 'Hi',
        starters: ['x'],
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'earlier' }], createdAt: 1 }],
      }),
    );
    expect(shadow.querySelector('.greeting')).to.equal(null);
    await frames(ready({ welcome: 'Hi', hasMore: true }));
    expect(shadow.querySelector('.greeting')).to.equal(null);
  });

  for (const theme of ['light', 'dark']) {
    it(`passes an axe check (${theme})`, async () => {
      const { el, frames } = await mount({ theme });
      await frames(ready({ welcome: 'Hello! **Ask** away.', starters: ['One', 'Two'] }));
      await expect(el).to.be.accessible();
    });
  }
});
