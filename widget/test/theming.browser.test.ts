import { expect } from '@open-wc/testing';
import type { AalisToolProgress } from '../src/components/tool-card/tool-card.js';
import { mount, progress, userMessage } from './harness.js';

/** Renders one pending card and returns its parts as the page sees them. */
async function pendingCard(theme: 'light' | 'dark') {
  const m = await mount({ theme });
  await m.frames(userMessage(), progress(0, 'get_weather', 42));
  const card = m.shadow.querySelector<AalisToolProgress>('aalis-tool-progress')!;
  await card.updateComplete;
  const part = (name: string) => card.shadowRoot!.querySelector<HTMLElement>(`[part="${name}"]`)!;
  return { m, card, icon: part('icon'), name: part('name'), meta: part('meta') };
}

/** A colour as the browser computes it, for comparing with what a test set. */
function computedColor(css: string): string {
  const probe = document.createElement('span');
  probe.style.color = css;
  document.body.append(probe);
  const color = getComputedStyle(probe).color;
  probe.remove();
  return color;
}

describe('theming the pending card from the page', () => {
  let style: HTMLStyleElement;
  beforeEach(() => {
    style = document.createElement('style');
    document.head.append(style);
  });
  afterEach(() => style.remove());

  it('its icon, name and meta are styled through aalis-chat::part(pending-card-*)', async () => {
    style.textContent = `
      aalis-chat::part(pending-card-icon) { color: rgb(1, 2, 3); }
      aalis-chat::part(pending-card-name) { text-decoration: underline; }
      aalis-chat::part(pending-card-meta) { letter-spacing: 3px; }`;
    const { icon, name, meta } = await pendingCard('light');
    expect(getComputedStyle(icon).color).to.equal('rgb(1, 2, 3)');
    expect(getComputedStyle(name).textDecorationLine).to.equal('underline');
    expect(getComputedStyle(meta).letterSpacing).to.equal('3px');
  });

  it('a public token set on an ancestor reaches the card', async () => {
    style.textContent = `body { --aalis-color-accent: rgb(200, 10, 20); --aalis-font-mono: monospace; }`;
    const { icon, name } = await pendingCard('dark');
    expect(getComputedStyle(icon).color).to.equal('rgb(200, 10, 20)');
    expect(getComputedStyle(name).fontFamily).to.equal('monospace');
  });

  it('takes the dark defaults with its chat, not the light ones', async () => {
    const light = await pendingCard('light');
    const lightAccent = getComputedStyle(light.icon).color;
    light.m.el.remove();
    const dark = await pendingCard('dark');
    expect(dark.card.getAttribute('theme')).to.equal('dark');
    expect(getComputedStyle(dark.icon).color).to.equal(computedColor('#5b7ff3'));
    expect(lightAccent).to.equal(computedColor('#3e63dd'));
  });

  it('the card reads its own private tokens: a page cannot reach them through the chat', async () => {
    // The chat's private --_accent, if the card inherited it, would colour the icon.
    style.textContent = `aalis-chat { --_accent: rgb(9, 9, 9); }`;
    const { icon } = await pendingCard('light');
    expect(getComputedStyle(icon).color).to.equal(computedColor('#3e63dd'));
  });
});
