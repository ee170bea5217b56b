import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import * as clientDecode from '../src/client-decode.js';
import { Limits, decodeClientFrame, decodeServerFrame, type Decoded } from '../src/index.js';
import { clientFrame, mutated, serverFrame } from './arbitraries.js';
import { assistantMessage, progress } from './frames.js';

const errorOf = <T>(decoded: Decoded<T>) => {
  expect(decoded.ok).toBe(false);
  return decoded.ok ? undefined : decoded.error;
};

describe('client frames', () => {
  test('valid frames decode to their typed form, with unknown fields dropped', () => {
    expect(decodeClientFrame('{"type":"hello","protocol":1,"sessionId":"abc","extra":[1,2]}')).toEqual({
      ok: true,
      frame: { type: 'hello', protocol: 1, sessionId: 'abc' },
    });
    expect(decodeClientFrame('{"type":"send","text":"hi","clientMessageId":"m1"}')).toEqual({
      ok: true,
      frame: { type: 'send', text: 'hi', clientMessageId: 'm1' },
    });
    expect(decodeClientFrame('{"type":"abort"}')).toEqual({ ok: true, frame: { type: 'abort' } });
  });

  test.each([
    ['text that is not JSON', '{"type":"send",', 'a frame must be JSON text', undefined],
    ['a JSON array', '[{"type":"abort"}]', 'a frame must be a JSON object, received an array', undefined],
    ['a JSON string', '"hello"', 'a frame must be a JSON object, received string', undefined],
    ['JSON null', 'null', 'a frame must be a JSON object, received null', undefined],
    ['no type', '{"text":"hi"}', 'type: required', 'type'],
    ['a type that is not a string', '{"type":7}', 'type: expected a string, received number', 'type'],
    [
      'a wrong protocol version',
      '{"type":"hello","protocol":2}',
      'hello.protocol: expected 1, received number',
      'protocol',
    ],
    ['a missing field', '{"type":"send"}', 'send.text: required', 'text'],
    [
      'a field of the wrong type',
      '{"type":"send","text":42}',
      'send.text: expected string, received number',
      'text',
    ],
    [
      'an empty list of images',
      '{"type":"send","text":"","images":[]}',
      'send.images: expected >=1, received 0',
      'images',
    ],
  ])('%s is a bad_frame naming the field and the reason', (_, text, message, field) => {
    expect(errorOf(decodeClientFrame(text))).toEqual({
      code: 'bad_frame',
      message,
      ...(field ? { field } : {}),
    });
  });

  test.each(['launch', 'constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'type "%s" is unknown_type, not something found on Object.prototype',
    (type) => {
      expect(errorOf(decodeClientFrame(JSON.stringify({ type })))).toMatchObject({
        code: 'unknown_type',
        field: 'type',
      });
    },
  );

  test('a huge string is refused with a short message that does not echo it', () => {
    const huge = 'x'.repeat(1_000_000);
    const tooLong = errorOf(
      decodeClientFrame(JSON.stringify({ type: 'send', text: 'y'.repeat(Limits.messageText + 1) })),
    );
    expect(tooLong).toEqual({
      code: 'bad_frame',
      field: 'text',
      message: `send.text: expected <=${Limits.messageText}, received ${Limits.messageText + 1}`,
    });
    for (const frame of [
      { type: 'hello', protocol: huge },
      { type: 'hello', protocol: 1, sessionId: huge },
      { type: 'hello', protocol: 1, token: huge },
      { type: huge },
    ]) {
      const error = errorOf(decodeClientFrame(JSON.stringify(frame)));
      expect(error?.message.length).toBeLessThan(120);
    }
  });

  test('never throws, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          mutated(clientFrame).map((j) => JSON.stringify(j)),
        ),
        (text) => {
          const decoded = decodeClientFrame(text);
          expect(typeof decoded.ok).toBe('boolean');
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe('server frames', () => {
  test('a wrong value deep inside is reported by its path', () => {
    const frame = assistantMessage('a1', [
      { type: 'text', text: 'ok' },
      { type: 'tool_call', callId: 'c', index: 0, name: 'x', status: 'later' as 'done', startedAt: 1 },
    ]);
    for (const decode of [decodeServerFrame, clientDecode.decodeServerFrame]) {
      expect(errorOf(decode(JSON.stringify(frame)))).toMatchObject({
        code: 'bad_frame',
        field: 'message.parts.1.status',
      });
    }
  });

  test('a tool call of unknown outcome is accepted by both decoders', () => {
    const frame = assistantMessage('a1', [
      { type: 'tool_call', callId: 'c', index: 0, name: 'x', status: 'unknown', startedAt: 1, endedAt: 2 },
    ]);
    for (const decode of [decodeServerFrame, clientDecode.decodeServerFrame]) {
      expect(decode(JSON.stringify(frame))).toEqual({ ok: true, frame });
    }
  });

  test('a negative index is refused by both decoders', () => {
    const frame = progress(-1, 'x', 0);
    for (const decode of [decodeServerFrame, clientDecode.decodeServerFrame]) {
      expect(errorOf(decode(JSON.stringify(frame)))).toMatchObject({ field: 'toolCallProgress.index' });
    }
  });

  test('the browser decoder accepts exactly what the valibot decoder accepts', () => {
    fc.assert(
      fc.property(fc.oneof(serverFrame, mutated(serverFrame)), (frame) => {
        const text = JSON.stringify(frame);
        const full = decodeServerFrame(text);
        const light = clientDecode.decodeServerFrame(text);
        expect(light.ok).toBe(full.ok);
        if (!full.ok && !light.ok) expect(light.error.code).toBe(full.error.code);
      }),
      { numRuns: 3_000 },
    );
  });
});
