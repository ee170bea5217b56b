/**
 * Images in the composer: offered only when the server's `ready` says the model reads
 * them; picked, pasted or dropped; checked before upload (type by content, size, count)
 * with a message naming the file; uploaded with the session's ticket; sent by id; and a
 * question's images shown in its bubble. The server's side (a real upload, the model
 * receiving image parts) is tested in server/test/images.test.ts and the e2e suite; here
 * the image endpoint answers as that server does, so that the widget's HTTP contract is
 * what is checked.
 */
import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { mount, readyFrame, until, userMessage, type Mounted } from './harness.js';

const uploads = (fields: object = {}) => ({
  ticket: 'session-test.abc.mac',
  expiresAt: Date.now() + 3_600_000,
  maxBytes: 100_000,
  maxCount: 2,
  types: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'],
  ...fields,
});
const ready = (fields: object = {}) => readyFrame({ uploads: uploads(), ...fields });

/** A real PNG, drawn on a canvas. */
async function png(name = 'chart.png', width = 40, height = 30): Promise<File> {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d')!;
  // Noise: a PNG of it does not compress, so its size follows its pixels.
  const pixels = context.createImageData(width, height);
  for (let i = 0; i < pixels.data.length; i++) pixels.data[i] = (i * 7919) % 251;
  context.putImageData(pixels, 0, 0);
  const blob = await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b!), 'image/png'));
  return new File([blob], name, { type: 'image/png' });
}

/** The server's answer to an upload it took. */
const uploaded = (id: string) => ({
  status: 201,
  body: { id, mimeType: 'image/png', width: 40, height: 30, bytes: 99 },
});

/** Files as a page gives them: in a DataTransfer (the file input, a paste, a drop). */
const transfer = (...files: File[]) => {
  const data = new DataTransfer();
  for (const file of files) data.items.add(file);
  return data;
};

function pick(shadow: ShadowRoot, ...files: File[]) {
  const input = shadow.querySelector<HTMLInputElement>('.attach input[type=file]')!;
  input.files = transfer(...files).files;
  input.dispatchEvent(new Event('change'));
}

const notice = (shadow: ShadowRoot) => shadow.querySelector('.notice')!.textContent!.trim();
const attachmentStates = (shadow: ShadowRoot) =>
  [...shadow.querySelectorAll('.attachment')].map((li) => li.getAttribute('data-state'));

/** The server's image endpoint, as it answers: records each request, answers each in turn. */
function imageServer(answers: Array<{ status: number; body: object }>) {
  const requests: Array<{ url: string; authorization: string | null; type: string | null; bytes: number }> =
    [];
  const real = window.fetch;
  window.fetch = async (input, init) => {
    const url = String(input);
    if (!url.endsWith('/images')) return real(input, init);
    const headers = new Headers(init?.headers);
    requests.push({
      url,
      authorization: headers.get('authorization'),
      type: headers.get('content-type'),
      bytes: (init?.body as Blob).size,
    });
    const answer = answers.shift() ?? { status: 500, body: {} };
    return new Response(JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { requests, restore: () => (window.fetch = real) };
}

async function withImages(locale = 'en'): Promise<Mounted> {
  const mounted = await mount({ locale });
  await mounted.frames(ready());
  return mounted;
}

describe('attaching images', () => {
  it('is offered only when the server says its model reads images', async () => {
    const { shadow, frames } = await mount();
    expect(shadow.querySelector('.attach-button')).to.equal(null);
    await frames(ready());
    const button = shadow.querySelector('.attach-button')!;
    expect(button.getAttribute('aria-label')).to.equal('Attach images');
    expect(shadow.querySelector('.attach input')!.getAttribute('accept')).to.equal(
      'image/png,image/jpeg,image/webp,image/gif',
    );
    await frames(ready({ uploads: undefined }));
    expect(shadow.querySelector('.attach-button')).to.equal(null);
  });

  it('uploads a picked image with the ticket, then sends its id with the text', async () => {
    const server = imageServer([uploaded('img_one')]);
    try {
      const { el, shadow, socket } = await withImages();
      const file = await png();
      pick(shadow, file);
      await until(() => attachmentStates(shadow)[0] === 'ready');
      expect(server.requests).to.deep.equal([
        {
          url: 'https://chat.example.com/images',
          authorization: 'Bearer session-test.abc.mac',
          type: 'image/png',
          bytes: file.size,
        },
      ]);
      await el.updateComplete;
      const thumbnail = shadow.querySelector<HTMLImageElement>('.attachment img')!;
      expect(thumbnail.alt).to.equal('chart.png');
      expect(thumbnail.src).to.match(/^blob:/);
      const textarea = shadow.querySelector('textarea')!;
      textarea.value = 'What is this?';
      textarea.dispatchEvent(new Event('input'));
      await el.updateComplete;
      shadow.querySelector<HTMLButtonElement>('.send')!.click();
      expect(socket.sent.at(-1)).to.include({ type: 'send', text: 'What is this?' });
      expect(socket.sent.at(-1)!.images).to.deep.equal(['img_one']);
      await el.updateComplete;
      expect(shadow.querySelector('.attachment')).to.equal(null);
    } finally {
      server.restore();
    }
  });

  it('an image alone can be sent, and a refused send gives the image back with the text', async () => {
    const server = imageServer([uploaded('img_two')]);
    try {
      const { el, shadow, socket, frames } = await withImages();
      pick(shadow, await png());
      await until(() => attachmentStates(shadow)[0] === 'ready');
      await el.updateComplete;
      const send = shadow.querySelector<HTMLButtonElement>('.send')!;
      expect(send.disabled).to.equal(false);
      send.click();
      const sent = socket.sent.at(-1)!;
      expect(sent).to.include({ type: 'send', text: '' });
      expect(sent.images).to.deep.equal(['img_two']);
      await frames({
        type: 'error',
        code: 'images_unsupported',
        message: 'an image was not found: attach it again',
        clientMessageId: sent.clientMessageId,
      });
      await el.updateComplete;
      // Back in the composer, marked as refused: Send would fail the same way again.
      expect(attachmentStates(shadow)).to.deep.equal(['failed']);
      expect(shadow.querySelector('.attachment-state')!.textContent).to.equal(
        'These images cannot be sent: attach them again, or send without them.',
      );
    } finally {
      server.restore();
    }
  });

  it('refuses before upload what is not an image by its bytes, too large, or one too many', async () => {
    const server = imageServer([uploaded('img_a'), uploaded('img_b')]);
    try {
      const { el, shadow, frames } = await withImages();
      // Named like an image, typed like one, and still not one.
      const fake = new File(['<svg onload="alert(1)"/>'], 'cat.png', { type: 'image/png' });
      pick(shadow, fake);
      await until(() => notice(shadow) !== '');
      expect(notice(shadow)).to.equal('cat.png is not a PNG, JPEG, WebP or GIF image.');
      expect(server.requests).to.have.length(0);

      await frames(ready({ uploads: uploads({ maxBytes: 100 }) }));
      pick(shadow, await png('big.png', 200, 200));
      await until(() => notice(shadow).startsWith('big.png'));
      expect(notice(shadow)).to.equal('big.png is too large: images may be at most 0 MB.');

      await frames(ready());
      pick(shadow, await png('1.png'), await png('2.png'), await png('3.png'));
      await until(() => attachmentStates(shadow).length === 2 && notice(shadow) !== '');
      expect(notice(shadow)).to.equal('At most 2 images can go with one message.');
      expect(server.requests).to.have.length(2);
      await el.updateComplete;
    } finally {
      server.restore();
    }
  });

  it('a failed upload says why, blocks Send until removed, and Remove is reachable by keyboard', async () => {
    const server = imageServer([{ status: 415, body: { code: 'not_an_image', error: 'not an image' } }]);
    try {
      const { el, shadow, socket } = await withImages();
      pick(shadow, await png('odd.png'));
      await until(() => attachmentStates(shadow)[0] === 'failed');
      await el.updateComplete;
      expect(shadow.querySelector('.attachment-state')!.textContent).to.equal(
        'odd.png is not a PNG, JPEG, WebP or GIF image.',
      );
      const textarea = shadow.querySelector('textarea')!;
      textarea.value = 'hello';
      textarea.dispatchEvent(new Event('input'));
      await el.updateComplete;
      const sentBefore = socket.sent.length;
      shadow.querySelector<HTMLButtonElement>('.send')!.click();
      await el.updateComplete;
      expect(socket.sent.length).to.equal(sentBefore);
      expect(notice(shadow)).to.equal('An image could not be uploaded: remove it to send.');
      const remove = shadow.querySelector<HTMLButtonElement>('.remove-attachment')!;
      expect(remove.getAttribute('aria-label')).to.equal('Remove odd.png');
      remove.focus();
      await sendKeys({ press: 'Enter' });
      await el.updateComplete;
      expect(shadow.querySelector('.attachment')).to.equal(null);
      // The focus goes back to the text box, not to the page.
      expect(shadow.activeElement).to.equal(textarea);
      shadow.querySelector<HTMLButtonElement>('.send')!.click();
      expect(socket.sent.at(-1)).to.include({ type: 'send', text: 'hello' });
    } finally {
      server.restore();
    }
  });

  it('a pasted image and a dropped one are attached; pasted text stays text', async () => {
    const server = imageServer([uploaded('img_p'), uploaded('img_d')]);
    try {
      const { el, shadow } = await withImages();
      const textarea = shadow.querySelector('textarea')!;
      const paste = new ClipboardEvent('paste', {
        clipboardData: transfer(await png('pasted.png')),
        bubbles: true,
        cancelable: true,
      });
      textarea.dispatchEvent(paste);
      expect(paste.defaultPrevented).to.equal(true);
      await until(() => attachmentStates(shadow).length === 1);

      const composer = shadow.querySelector('.composer')!;
      const data = transfer(await png('dropped.png'));
      const over = new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true });
      composer.dispatchEvent(over);
      expect(over.defaultPrevented).to.equal(true);
      await el.updateComplete;
      expect(composer.classList.contains('dragging')).to.equal(true);
      composer.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      await until(() => attachmentStates(shadow).join() === 'ready,ready');
      await el.updateComplete;
      expect(composer.classList.contains('dragging')).to.equal(false);
      expect(
        [...shadow.querySelectorAll('.attachment img')].map((img) => img.getAttribute('alt')),
      ).to.deep.equal(['pasted.png', 'dropped.png']);

      const textPaste = new ClipboardEvent('paste', { clipboardData: new DataTransfer(), cancelable: true });
      textPaste.clipboardData!.setData('text/plain', 'words');
      textarea.dispatchEvent(textPaste);
      expect(textPaste.defaultPrevented).to.equal(false);
    } finally {
      server.restore();
    }
  });

  it("shows a question's images from the server, sized before they load, each a link to itself", async () => {
    const { shadow, frames } = await withImages();
    await frames(
      userMessage('Compare these', {
        images: [
          { id: 'img_x', mimeType: 'image/png', width: 640, height: 480, bytes: 1000 },
          { id: 'img_y', mimeType: 'image/jpeg', width: 100, height: 300, bytes: 1000 },
        ],
      }),
    );
    const images = [...shadow.querySelectorAll<HTMLImageElement>('.bubble.user img')];
    // Its size is known before it loads: the transcript does not jump when it arrives.
    expect(
      images.map((img) => [
        img.getAttribute('src'),
        img.getAttribute('width'),
        img.getAttribute('height'),
        img.alt,
      ]),
    ).to.deep.equal([
      ['https://chat.example.com/images/img_x', '640', '480', 'Attached image 1 of 2'],
      ['https://chat.example.com/images/img_y', '100', '300', 'Attached image 2 of 2'],
    ]);
    const link = images[0]!.closest('a')!;
    expect(link.getAttribute('href')).to.equal('https://chat.example.com/images/img_x');
    expect(link.getAttribute('rel')).to.equal('noopener noreferrer');
    expect(shadow.querySelector('.bubble.user .text')!.textContent).to.equal('Compare these');
  });

  it('speaks Chinese', async () => {
    const { shadow } = await withImages('zh');
    expect(shadow.querySelector('.attach-button')!.getAttribute('aria-label')).to.equal('添加图片');
    pick(shadow, new File(['hello'], 'a.png', { type: 'image/png' }));
    await until(() => notice(shadow) !== '');
    expect(notice(shadow)).to.equal('a.png 不是 PNG、JPEG、WebP 或 GIF 图片。');
  });

  for (const theme of ['light', 'dark']) {
    it(`passes an axe check with an attachment and a question's images (${theme})`, async () => {
      const server = imageServer([{ status: 503, body: {} }]);
      try {
        const { el, shadow, frames } = await mount({ theme });
        await frames(ready());
        pick(shadow, await png());
        await until(() => attachmentStates(shadow)[0] === 'failed');
        await frames(
          userMessage('look', {
            images: [{ id: 'img_x', mimeType: 'image/png', width: 40, height: 30, bytes: 10 }],
          }),
        );
        await expect(el).to.be.accessible();
      } finally {
        server.restore();
      }
    });
  }
});
