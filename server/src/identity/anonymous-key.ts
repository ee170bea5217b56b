/**
 * Anonymous visitor keys: each browser its own anonymous visitor, across connections and
 * restarts. The server issues `base64url(id).base64url(mac)`, a random 128-bit id and its
 * HMAC-SHA256 under a server key, so a client cannot choose an id (another visitor's) and
 * cannot alter one. The server key is derived from `AALIS_AUTH_SECRET` when it is set
 * (domain-separated: never usable as a token signature), else kept in `anonymous-key`
 * (0600) in the data directory, else random for the process (keys then last until it ends).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file the server key is kept in, in the data directory. */
export const ANONYMOUS_KEY_FILE = 'anonymous-key';

const ID_BYTES = 16;
const SERVER_KEY_BYTES = 32;
const DERIVATION_LABEL = 'aalis anonymous visitor key v1';

export interface AnonymousKeys {
  /** A new visitor: its id (the part after `anon:`) and the key the client keeps. */
  issue(): { id: string; key: string };
  /** The id a key stands for when the server issued it; undefined for anything else. */
  check(key: string): string | undefined;
}

export interface AnonymousKeySource {
  /** The HS256 secret, when identity has one: the server key is derived from it. */
  secret?: string | undefined;
  /** Where `anonymous-key` is kept when there is no secret. */
  dataDir?: string | undefined;
}

export function createAnonymousKeys(source: AnonymousKeySource = {}): AnonymousKeys {
  const serverKey = serverKeyOf(source);
  const mac = (id: Buffer) => createHmac('sha256', serverKey).update(id).digest();
  return {
    issue() {
      const id = randomBytes(ID_BYTES);
      return { id: visitorId(id), key: `${id.toString('base64url')}.${mac(id).toString('base64url')}` };
    },
    check(key) {
      const dot = key.indexOf('.');
      if (dot < 0) return undefined;
      const encodedId = key.slice(0, dot);
      const encodedMac = key.slice(dot + 1);
      const id = Buffer.from(encodedId, 'base64url');
      const given = Buffer.from(encodedMac, 'base64url');
      // Only the canonical spelling: one id, one key.
      if (id.length !== ID_BYTES || id.toString('base64url') !== encodedId) return undefined;
      if (given.length !== SERVER_KEY_BYTES || given.toString('base64url') !== encodedMac) return undefined;
      return timingSafeEqual(given, mac(id)) ? visitorId(id) : undefined;
    },
  };
}

/** The 128 bits written as a UUID is (8-4-4-4-12 hex digits), as anonymous ids always were. */
function visitorId(id: Buffer): string {
  const hex = id.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The server key behind anonymous visitor keys (and, derived from it, upload tickets). */
export function serverKeyOf({ secret, dataDir }: AnonymousKeySource): Buffer {
  if (secret) return createHmac('sha256', secret).update(DERIVATION_LABEL).digest();
  if (dataDir) return storedKey(dataDir);
  return randomBytes(SERVER_KEY_BYTES);
}

/** The key in `dataDir/anonymous-key`, made (0600) the first time. */
function storedKey(dataDir: string): Buffer {
  const path = join(dataDir, ANONYMOUS_KEY_FILE);
  const read = (): Buffer | undefined => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8').trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const key = Buffer.from(text, 'base64url');
    if (key.length < SERVER_KEY_BYTES)
      throw new Error(
        `${path} does not hold a key (delete it to make a new one: anonymous visitors then start over)`,
      );
    return key;
  };
  const existing = read();
  if (existing) return existing;
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(SERVER_KEY_BYTES);
  try {
    writeFileSync(path, `${key.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    // Another process made it first: theirs is the key.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return read()!;
    throw error;
  }
}
