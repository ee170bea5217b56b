import { expect } from '@open-wc/testing';
import { mount, toolExecute, userMessage } from './harness.js';

/** A real 1x1 PNG (valid chunks and CRCs), as base64. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const SVG = btoa('<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=1"></svg>');

const end = (result: unknown) =>
  toolExecute('end', 'c1', 'get_weather', { arguments: { city: 'Paris' }, result });

describe('images in tool results', () => {
  it('shows a PNG as an <img> that decodes, notes for svg and non-base64, the text as text', async () => {
    const { frames, shadow } = await mount();
    await frames(
      userMessage(),
      end({
        content: 'Sunny, 24 °C',
        structured: { temperature: 24 },
        images: [
          { type: 'image', mimeType: 'image/png', data: PNG },
          { type: 'image', mimeType: 'image/svg+xml', data: SVG },
          { type: 'image', mimeType: 'image/png', data: 'not base64!"><script>' },
        ],
      }),
    );
    const block = shadow.querySelector<HTMLDetailsElement>('.tool-call-block')!;
    block.open = true;
    const imgs = [...block.querySelectorAll('img')];
    expect(imgs).to.have.length(1);
    const img = imgs[0]!;
    expect(img.getAttribute('part')).to.equal('tool-image');
    expect(img.alt).to.equal('Image from get_weather');
    expect(img.getAttribute('src')).to.equal(`data:image/png;base64,${PNG}`);
    await img.decode();
    expect(img.naturalWidth).to.equal(1);
    expect(getComputedStyle(img).maxHeight).to.equal('320px');
    expect(getComputedStyle(img).objectFit).to.equal('contain');

    const notes = [...block.querySelectorAll('.tool-image-note')].map((n) => n.textContent);
    expect(notes).to.deep.equal(['image/svg+xml not shown', 'image/png not shown']);
    // No script, and no svg but the tool icon.
    expect(block.querySelectorAll('script').length).to.equal(0);
    expect([...block.querySelectorAll('svg')].every((svg) => svg.closest('.tool-icon'))).to.equal(true);

    const pres = [...block.querySelectorAll('pre')].map((p) => p.textContent!);
    expect(pres).to.include('Sunny, 24 °C');
    expect(pres.some((p) => p.includes('"temperature": 24'))).to.equal(true);
    // The base64 shows nowhere as text.
    expect(block.textContent).not.to.contain(PNG.slice(0, 20));
    expect(block.textContent).not.to.contain(SVG.slice(0, 20));
    expect((window as { __pwned?: number }).__pwned).to.equal(undefined);
  });

  it('says the note in Chinese', async () => {
    const { frames, shadow } = await mount({ locale: 'zh-CN' });
    await frames(userMessage(), end({ images: [{ type: 'image', mimeType: 'image/svg+xml', data: SVG }] }));
    expect(shadow.querySelector('.tool-image-note')!.textContent).to.equal('image/svg+xml 未显示');
  });

  it('renders a result without images as before', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), end({ content: 'plain', structured: { a: 1 } }));
    const block = shadow.querySelector('.tool-call-block')!;
    expect(block.querySelectorAll('img, .tool-image-note').length).to.equal(0);
    const pres = [...block.querySelectorAll('pre')].map((p) => p.textContent);
    expect(pres.at(-1)).to.equal(JSON.stringify({ content: 'plain', structured: { a: 1 } }, null, 2));
    await frames(userMessage(), { ...end('just text'), callId: 'c2' });
    const last = [...shadow.querySelectorAll('.tool-call-block')].at(-1)!;
    expect([...last.querySelectorAll('pre')].at(-1)!.textContent).to.equal('just text');
  });
});
