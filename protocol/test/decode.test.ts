import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import * as clientDecode from '../src/client-decode.js';
import { Limits, decodeClientFrame, decodeServerFrame, type Decoded } from '../src/index.js';
import { clientFrame, mutated, serverFrame } from './arbitraries.js';
import {
  appToolResult,
  assistantMessage,
  elicitationComplete,
  elicitationSettled,
  formElicitation,
  progress,
  toolStart,
  urlElicitation,
} from './frames.js';

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
      // A form's field name is a key: named by its record, never quoted.
      { type: 'elicitation_answer', elicitationId: 'e1', action: 'accept', content: { [huge]: 'a' } },
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

describe('MCP client frames', () => {
  test('an answer with every kind of value a form holds, and an app tool call, decode as sent', () => {
    const answer = {
      type: 'elicitation_answer',
      elicitationId: 'el_1',
      action: 'accept',
      content: { street: 'Rue de Lyon 3', floor: 2, express: true, sizes: ['s', 'm'], constructor_: 'x' },
    };
    expect(decodeClientFrame(JSON.stringify(answer))).toEqual({ ok: true, frame: answer });
    const call = {
      type: 'app_tool_call',
      requestId: 'r1',
      callId: 'c1',
      name: 'zoom',
      arguments: { level: 3 },
    };
    expect(decodeClientFrame(JSON.stringify(call))).toEqual({ ok: true, frame: call });
    expect(
      decodeClientFrame('{"type":"elicitation_answer","elicitationId":"el_1","action":"decline"}').ok,
    ).toBe(true);
  });

  test.each([
    ['an action MCP does not have', { action: 'ok' }, 'action'],
    ['content that is a list', { content: [] }, 'content'],
    ['a value that is an object', { content: { street: { line: 1 } } }, 'content.street'],
    ['a list of numbers', { content: { sizes: [1] } }, 'content.sizes'],
    ['a field name over the limit', { content: { ['x'.repeat(Limits.callId + 1)]: 'a' } }, 'content'],
    ['an id over the limit', { elicitationId: 'e'.repeat(Limits.elicitationId + 1) }, 'elicitationId'],
  ])('an elicitation_answer with %s is a bad_frame', (_, fields, field) => {
    const frame = { type: 'elicitation_answer', elicitationId: 'el_1', action: 'accept', ...fields };
    expect(errorOf(decodeClientFrame(JSON.stringify(frame)))).toMatchObject({ code: 'bad_frame', field });
  });

  test.each([
    ['no tool name', { name: undefined }, 'name'],
    ['arguments that are a list', { arguments: ['Lyon'] }, 'arguments'],
    ['no call to show it in', { callId: undefined }, 'callId'],
  ])('an app_tool_call with %s is a bad_frame', (_, fields, field) => {
    const frame = { type: 'app_tool_call', requestId: 'r1', callId: 'c1', name: 'zoom', ...fields };
    expect(errorOf(decodeClientFrame(JSON.stringify(frame)))).toMatchObject({ code: 'bad_frame', field });
  });
});

const withoutEnvelope = <T extends { type: string; sessionId: string }>({
  type: _type,
  sessionId: _session,
  ...rest
}: T) => rest;

describe('MCP server frames, by both decoders', () => {
  const decoders = [
    ['valibot', decodeServerFrame],
    ['browser', clientDecode.decodeServerFrame],
  ] as const;
  const app = { serverName: 'maps', resourceUri: 'ui://maps/route.html' };

  test.each(decoders)('the %s decoder accepts every new frame and field', (_, decode) => {
    const frames = [
      formElicitation('e1', 'c1'),
      urlElicitation('e2', 'c1'),
      elicitationSettled('e1', 'cancel', 'expired'),
      elicitationComplete('e2'),
      appToolResult('r1', 'zoomed'),
      { type: 'app_tool_result', requestId: 'r2', error: 'that tool needs an approval' },
      { type: 'error', code: 'invalid_answer', message: 'Street is required.', elicitationId: 'e1' },
      { ...toolStart('c1', 0, 'route'), app },
      {
        type: 'stream_resume',
        sessionId: 'session-1',
        serverTime: 5,
        parts: [
          { type: 'tool_call', callId: 'c1', index: 0, name: 'route', status: 'running', startedAt: 1, app },
        ],
        toolCallsProgress: [],
        elicitations: [{ ...withoutEnvelope(urlElicitation('e2', 'c1')), opened: true, completed: false }],
      },
    ];
    for (const frame of frames)
      expect(decode(JSON.stringify(frame)), frame.type).toEqual({ ok: true, frame });
  });

  test.each(decoders)(
    'the %s decoder takes records as records: any field names, values checked',
    (_, decode) => {
      // A form's fields and a tool result are JSON objects keyed by names only the MCP server knows.
      const form = formElicitation('e1', 'c1');
      const anyNames = {
        ...form,
        requestedSchema: {
          type: 'object',
          properties: { 'Straße und Nr.': { type: 'string' }, '': {}, toString: { type: 'number' } },
        },
      };
      expect(decode(JSON.stringify(anyNames)).ok).toBe(true);
      const result = {
        type: 'app_tool_result',
        requestId: 'r1',
        result: { content: [], _meta: { a: [1, null] } },
      };
      expect(decode(JSON.stringify(result)).ok).toBe(true);
      const fieldNotAnObject = {
        ...form,
        requestedSchema: { type: 'object', properties: { street: 'string' } },
      };
      expect(errorOf(decode(JSON.stringify(fieldNotAnObject)))).toMatchObject({
        code: 'bad_frame',
        field: 'requestedSchema.properties.street',
      });
    },
  );

  test.each([
    ['an elicitation of a mode MCP does not have', { ...formElicitation('e1', 'c1'), mode: 'popup' }, 'mode'],
    [
      'an elicitation without its expiry',
      { ...formElicitation('e1', 'c1'), expiresAt: undefined },
      'expiresAt',
    ],
    [
      'a form that is not an object schema',
      { ...formElicitation('e1', 'c1'), requestedSchema: { type: 'array', properties: {} } },
      'requestedSchema.type',
    ],
    [
      'form fields given as a list',
      { ...formElicitation('e1', 'c1'), requestedSchema: { type: 'object', properties: [] } },
      'requestedSchema.properties',
    ],
    [
      'a settlement with an unknown action',
      { ...elicitationSettled('e1', 'accept'), action: 'later' },
      'action',
    ],
    [
      'a settlement with an unknown reason',
      elicitationSettled('e1', 'cancel', 'timeout' as 'expired'),
      'reason',
    ],
    [
      'a completion without its id',
      { ...elicitationComplete('e1'), elicitationId: undefined },
      'elicitationId',
    ],
    ['an app tool result that is a list', { type: 'app_tool_result', requestId: 'r1', result: [] }, 'result'],
    [
      'an app without its resource',
      { ...toolStart('c1', 0, 'route'), app: { serverName: 'maps' } },
      'app.resourceUri',
    ],
  ])('%s is refused by both decoders, at the same field', (_, frame, field) => {
    for (const [, decode] of decoders) {
      expect(errorOf(decode(JSON.stringify(frame)))).toMatchObject({ code: 'bad_frame', field });
    }
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
