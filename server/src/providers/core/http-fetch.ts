/**
 * The `fetch` the model SDKs are given: `node:http` on keep-alive agents, with a response
 * whose body is the Node stream itself.
 *
 * Why not Node's own `fetch` (undici): it hands every chunk of the body through a web
 * `ReadableStream`, and the SDKs read that stream through their own async iterators, so
 * each streamed fragment costs several promise hops before the SDK sees its bytes. The
 * SDKs iterate any body that is async-iterable as it is (`ReadableStreamToAsyncIterable`
 * in both), which a Node `IncomingMessage` is. Benchmark figures: bench/FINDINGS.md.
 *
 * It implements what a model API needs and the SDKs use: a method, headers, a body that
 * is a string or bytes, an abort signal, redirects, gzip/deflate/br answers, and a
 * response with `status`, `ok`, `headers`, `url`, `body`, `text()`, `json()` and
 * `arrayBuffer()`. Anything else (a streamed or form body: file uploads) goes to the
 * global `fetch`, so nothing the SDK can send is refused here.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Readable, pipeline } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/**
 * Sockets kept open between requests, as undici's pool does for `fetch`: an idle one is
 * closed after 4 s as undici does, or sooner when the server's `Keep-Alive` says so (Node
 * reads the hint), so a request rarely meets a socket the server has just closed.
 */
const keepAlive = { keepAlive: true, scheduling: 'lifo', timeout: 4_000 } as const;
const agents = {
  'http:': new http.Agent(keepAlive),
  'https:': new https.Agent(keepAlive),
};

const MAX_REDIRECTS = 20;

type Body = string | Uint8Array;

/** The response: what the SDKs read of a `Response`, its body a Node stream. */
class StreamedResponse {
  readonly ok: boolean;
  readonly redirected: boolean;
  readonly type = 'basic';
  #used = false;

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    readonly url: string,
    readonly body: Readable,
    redirects: number,
  ) {
    this.ok = status >= 200 && status < 300;
    this.redirected = redirects > 0;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return (await this.#bytes()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  #bytes(): Promise<Buffer> {
    if (this.#used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.#used = true;
    return buffer(this.body);
  }
}

/** The error a fetch gives when its signal aborts it. */
const abortError = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

function headersOf(message: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/** Answers that have no body, whatever their headers say. */
const BODILESS = new Set([101, 204, 205, 304]);

/**
 * The body as it was sent, decoded by its `content-encoding` as `fetch` would. Decoder
 * and message are one pipeline: destroying the body (an abort, a reader that stops)
 * ends the message and its socket with it.
 */
function decoded(message: IncomingMessage, method: string): Readable {
  if (method === 'HEAD' || BODILESS.has(message.statusCode ?? 0)) {
    // Read to its end so that the socket goes back to the pool.
    message.resume();
    return Readable.from([]);
  }
  const encoding = message.headers['content-encoding']?.trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return message;
  // Errors reach the reader through the decoder; the callback only keeps them handled.
  return pipeline(message, decoder, () => undefined);
}

/**
 * `body` with an async iterator whose `return()` always destroys it. The SDKs cancel a
 * body they will not read by calling `return()` on a fresh iterator; a Node stream's
 * iterator has not started then and would do nothing, keeping the socket.
 */
function cancellable(body: Readable): Readable {
  const iterate = body[Symbol.asyncIterator].bind(body);
  body[Symbol.asyncIterator] = () => {
    const iterator = iterate();
    const wrapped: AsyncIterableIterator<unknown> = {
      next: () => iterator.next(),
      return: async (value?: unknown) => {
        body.destroy();
        await iterator.return?.(value as undefined);
        return { done: true, value };
      },
      [Symbol.asyncIterator]: () => wrapped,
    };
    return wrapped as ReturnType<Readable[typeof Symbol.asyncIterator]>;
  };
  return body;
}

/** An abort of `signal` from now on ends `body` with the abort's error. */
function abortable(body: Readable, signal: AbortSignal | undefined): Readable {
  if (!signal) return body;
  const onAbort = () => body.destroy(abortError(signal) as Error);
  if (signal.aborted) onAbort();
  else {
    signal.addEventListener('abort', onAbort, { once: true });
    body.once('close', () => signal.removeEventListener('abort', onAbort));
  }
  return body;
}

interface Request {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Body | undefined;
  signal: AbortSignal | undefined;
}

/** One request and its response head; the body is left to be read. */
function send(request: Request): Promise<IncomingMessage> {
  const { url, method, headers, body, signal } = request;
  const agent = agents[url.protocol as keyof typeof agents];
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = transport.request(url, { method, headers, agent });
    // Until the answer starts; then the body's own listener takes over (`abortable`).
    const onAbort = () => outgoing.destroy(abortError(signal!) as Error);
    signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.once('response', (message) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(message);
    });
    outgoing.once('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? abortError(signal) : new TypeError('fetch failed', { cause: error }));
    });
    outgoing.end(body);
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Headers that carry credentials: fetch's own, and the model APIs' key headers. */
const CREDENTIALS = /^(authorization|cookie|proxy-authorization|x-api-key|api-key)$/i;

/** The next request of a redirect, by the rules of `fetch` (method, body, credentials). */
function redirected(request: Request, status: number, location: string): Request {
  const url = new URL(location, request.url);
  const keepsBody = status === 307 || status === 308 || (status !== 303 && request.method !== 'POST');
  const headers = { ...request.headers };
  if (!keepsBody) {
    for (const name of Object.keys(headers)) if (/^content-/i.test(name)) delete headers[name];
  }
  // Credentials do not follow a redirect to another origin.
  if (url.origin !== request.url.origin) {
    for (const name of Object.keys(headers)) if (CREDENTIALS.test(name)) delete headers[name];
  }
  return {
    ...request,
    url,
    headers,
    method: keepsBody || request.method === 'HEAD' ? request.method : 'GET',
    body: keepsBody ? request.body : undefined,
  };
}

function plainHeaders(init: RequestInit['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  new Headers(init).forEach((value, name) => (headers[name] = value));
  return headers;
}

/**
 * A body this fetch sends itself, with the type fetch gives a body of its kind when none
 * is named; false when it is one for the global fetch.
 */
function bodyOf(body: RequestInit['body']): { bytes?: Body; type?: string } | false {
  if (body === undefined || body === null) return {};
  if (typeof body === 'string') return { bytes: body, type: 'text/plain;charset=UTF-8' };
  if (body instanceof URLSearchParams)
    return { bytes: body.toString(), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  if (body instanceof Uint8Array) return { bytes: body };
  if (body instanceof ArrayBuffer) return { bytes: new Uint8Array(body) };
  if (ArrayBuffer.isView(body))
    return { bytes: new Uint8Array(body.buffer, body.byteOffset, body.byteLength) };
  return false;
}

export async function httpFetch(
  input: string | URL | globalThis.Request,
  init: RequestInit = {},
): Promise<Response> {
  const body = bodyOf(init.body);
  if (typeof input !== 'string' && !(input instanceof URL)) return fetch(input, init);
  const url = new URL(input);
  if (body === false || !(url.protocol in agents)) return fetch(input, init);

  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortError(signal);
  const headers = plainHeaders(init.headers);
  if (body.type && !('content-type' in headers)) headers['content-type'] = body.type;
  let request: Request = {
    url,
    method: (init.method ?? 'GET').toUpperCase(),
    headers,
    body: body.bytes,
    signal,
  };

  for (let redirects = 0; ; redirects++) {
    const message = await send(request);
    const status = message.statusCode ?? 0;
    const location = message.headers.location;
    if (REDIRECTS.has(status) && location && init.redirect !== 'manual') {
      message.resume();
      if (init.redirect === 'error' || redirects === MAX_REDIRECTS) {
        throw new TypeError('fetch failed', { cause: new Error(`redirect ${status} not followed`) });
      }
      request = redirected(request, status, location);
      continue;
    }
    const response = new StreamedResponse(
      status,
      message.statusMessage ?? '',
      headersOf(message),
      request.url.href,
      cancellable(abortable(decoded(message, request.method), signal)),
      redirects,
    );
    // The SDKs take anything with a Response's members; the body is async-iterable.
    return response as unknown as Response;
  }
}
