import { describe, expect, test } from 'vitest';
import { latestVersions, versionGroups, type ChatMessage } from '../src/index.js';

const user = (id: string, text: string, replaces?: string): ChatMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
  createdAt: 0,
  ...(replaces ? { replaces } : {}),
});
const answer = (id: string): ChatMessage => ({
  id,
  role: 'assistant',
  parts: [],
  createdAt: 0,
  status: 'complete',
});
const ids = (exchanges: ReadonlyArray<readonly ChatMessage[]>) => exchanges.map((e) => e.map((m) => m.id));

describe('versions of an exchange', () => {
  test('a regenerated answer and an edited question are later versions at the same place', () => {
    const messages = [
      user('u1', 'hi'),
      answer('a1'),
      user('u2', 'weather?'),
      answer('a2'),
      // Regenerate: the question again, replacing u2.
      user('u3', 'weather?', 'u2'),
      answer('a3'),
      // Edit: a new question replacing u3, the latest version.
      user('u4', 'weather in Oslo?', 'u3'),
      answer('a4'),
    ];
    const groups = versionGroups(messages);
    expect(groups.map(ids)).toEqual([
      [['u1', 'a1']],
      [
        ['u2', 'a2'],
        ['u3', 'a3'],
        ['u4', 'a4'],
      ],
    ]);
    // The model sees the conversation as it stands.
    expect(latestVersions(messages).map((m) => m.id)).toEqual(['u1', 'a1', 'u4', 'a4']);
  });

  test('a question that replaces one not shown (an older page) starts its own place', () => {
    const groups = versionGroups([user('u9', 'again', 'u-older'), answer('a9')]);
    expect(groups.map(ids)).toEqual([[['u9', 'a9']]]);
  });

  test('answers before any question (a page that starts mid-exchange) are a place of their own', () => {
    expect(versionGroups([answer('a0'), user('u1', 'x'), answer('a1')]).map(ids)).toEqual([
      [['a0']],
      [['u1', 'a1']],
    ]);
  });

  test('a question still being answered is the latest version, with no answer yet', () => {
    const messages = [user('u1', 'q'), answer('a1'), user('u2', 'q', 'u1')];
    expect(versionGroups(messages).map(ids)).toEqual([[['u1', 'a1'], ['u2']]]);
    expect(latestVersions(messages).map((m) => m.id)).toEqual(['u2']);
  });
});
