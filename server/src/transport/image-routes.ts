/**
 * The HTTP side of images (PROTOCOL.md section 2a): `POST /images` takes one image for the
 * session an upload ticket names, `GET /images/<id>` gives its bytes back. Registered in a
 * scope of its own, so that the raw-body parser it needs never reaches the host's routes.
 *
 * Every refusal is JSON `{ error, code }` with a status a page can act on, and nothing is
 * stored until the bytes are read whole and checked: an image is a whole PNG, JPEG, WebP
 * or GIF by its own bytes (images/describe-image.ts), within the size caps, within the
 * session's count, the address's uploads and bytes per hour (upload-limits.ts, counted in
 * the store every instance shares) and the server's cap on unsent bytes. Uploads no
 * question named go after an hour (unsent-sweep.ts: at start, then every 10 minutes).
 */
import { randomBytes } from 'node:crypto';
import type { ImageRef } from '@aalis/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { HistoryStore } from '../history/store.js';
import type { BudgetStore } from '../budgets/budget-store.js';
import type { ClientIpOf } from './client-ip.js';
import { answerPreflight, corsFor } from './cors.js';
import { retryAfterSeconds } from './ip-limits.js';
import { uploadLimits, type UploadVerdict } from './upload-limits.js';
import { sweepUnsentImages } from './unsent-sweep.js';
import { describeImage } from '../images/describe-image.js';
import { MAX_PIXELS, MAX_SIDE, UNSENT_SWEEP_MS, type ImageSettings } from '../images/image-settings.js';
import type { UploadTickets } from '../images/upload-ticket.js';

export const IMAGES_PATH = '/images';

export interface ImageRoutesOptions {
  store: HistoryStore;
  tickets: UploadTickets;
  settings: ImageSettings;
  allowedOrigins: readonly string[];
  /** The host guard and the security headers, as every route of the plugin has them. */
  guarded: onRequestHookHandler[];
  clientIpOf: ClientIpOf;
  /** What an address's counts are kept under (an IPv6 address's /64): transport/address-form.ts. */
  addressKeyOf: (ip: string) => string;
  /** Where the per-address upload counts are kept, shared by every instance and durable (the budgets' store). */
  counters: BudgetStore;
  now?: () => number;
}

/** What a 429 of the address's counts says, by the count that ran out. */
const TOO_MANY = {
  uploads: 'too many images from this address: try again later',
  bytes: 'too many megabytes of images from this address: try again later',
} as const;

/** 128 random bits: the id is the key to the image, as a session id is to a conversation. */
const newImageId = (): string => `img_${randomBytes(16).toString('base64url')}`;

/** An image id as this server makes them; anything else is a 404 without a lookup. */
const IMAGE_ID = /^img_[A-Za-z0-9_-]{22}$/;

export async function registerImageRoutes(app: FastifyInstance, options: ImageRoutesOptions): Promise<void> {
  const { store, tickets, settings, allowedOrigins, guarded, clientIpOf, addressKeyOf, counters } = options;
  const { now = Date.now } = options;
  const sweeper = await sweepUnsentImages({ store, counters, now, log: app.log });
  app.addHook('onClose', async () => clearInterval(sweeper));
  const limits = uploadLimits({
    counters,
    perHour: settings.perIpPerHour,
    bytesPerHour: settings.perIpBytesPerHour,
    now,
    onError: (error, what) => app.log.error({ err: error }, what),
  });

  await app.register(async (scope) => {
    // The body is the image itself, whatever type it says it is (its bytes decide).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: settings.maxBytes },
      (_request, body, done) => done(null, body),
    );
    // Fastify's own refusals (a body over the limit, a bad length) in this route's words.
    scope.setErrorHandler((error: { statusCode?: number; code?: string }, request, reply) => {
      if (error.statusCode === 413) return tooBig(reply);
      request.log.error({ err: error }, 'image upload failed');
      return refuse(
        reply,
        error.statusCode && error.statusCode < 500 ? error.statusCode : 500,
        'failed',
        'the image could not be stored',
      );
    });

    answerPreflight(scope, IMAGES_PATH, {
      method: 'POST',
      headers: 'authorization, content-type',
      hooks: guarded,
      allowedOrigins,
    });

    // Who may upload is checked before a byte of the body is read: a request without a
    // ticket, from another origin, over the rate or announcing too large a body never
    // makes the server buffer anything.
    const admitted = new WeakMap<FastifyRequest, { sessionId: string; address: string | undefined }>();
    const admit = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!corsFor(request, reply, allowedOrigins))
        return refuse(reply, 403, 'origin', 'this page may not upload to this server');
      const ticket = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      const checked = ticket ? tickets.check(ticket, now()) : ({ ok: false, code: 'bad_ticket' } as const);
      if (!checked.ok) {
        return refuse(
          reply,
          401,
          checked.code,
          checked.code === 'ticket_expired'
            ? 'the upload ticket expired: reconnect to get a new one'
            : 'an upload needs the ticket of a session (ready.uploads.ticket)',
        );
      }
      const announced = Number(request.headers['content-length'] ?? 0);
      if (announced > settings.maxBytes) return tooBig(reply);
      const ip = clientIpOf(request.socket.remoteAddress, request.headers['x-forwarded-for']);
      // Counted by its /64 for IPv6: one host holds a whole /64, and would otherwise have 2^64 budgets.
      const address = ip === undefined ? undefined : addressKeyOf(ip);
      const verdict =
        address === undefined ? ({ ok: true } as const) : await limits.arriving(address, announced);
      if (!verdict.ok) return tooMany(reply, verdict);
      admitted.set(request, { sessionId: checked.sessionId, address });
    };
    const tooBig = (reply: FastifyReply) =>
      refuse(reply, 413, 'too_big', `an image may be at most ${megabytes(settings.maxBytes)}`);
    const tooMany = (reply: FastifyReply, verdict: UploadVerdict & { ok: false }) => {
      void reply.header('retry-after', String(retryAfterSeconds(verdict.retryInMs)));
      return refuse(reply, 429, 'too_many', TOO_MANY[verdict.limit]);
    };

    scope.post(IMAGES_PATH, { onRequest: [...guarded, admit] }, async (request, reply) => {
      const { sessionId, address } = admitted.get(request)!;
      const data = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const checked = await describeImage(data);
      if (!checked.ok && checked.code === 'not_an_image') {
        return refuse(reply, 415, 'not_an_image', 'this file is not a PNG, JPEG, WebP or GIF image');
      }
      if (!checked.ok) {
        // The largest side any provider here takes (Anthropic: 8,000 pixels), and the pixels
        // that bound the work of checking an image (image-settings.ts).
        const error =
          checked.limit === 'side'
            ? `an image may be at most ${MAX_SIDE} pixels wide and high`
            : `an image may have at most ${MAX_PIXELS / 1_000_000} megapixels`;
        return refuse(reply, 413, 'too_big', error);
      }
      const { facts } = checked;
      if ((await store.countImages(sessionId)) >= settings.maxPerSession) {
        return refuse(
          reply,
          429,
          'too_many',
          `a conversation may have at most ${settings.maxPerSession} images`,
        );
      }
      // Uploads at once may each pass this check before any is stored: the cap can be
      // passed by what is in flight, at most the maxBytes of each.
      if ((await store.unsentImageBytes()) + data.length > settings.maxUnsentBytes) {
        void reply.header('retry-after', String(UNSENT_SWEEP_MS / 1000));
        return refuse(
          reply,
          507,
          'storage_full',
          'this server holds as many images not yet sent as it can: try again later',
        );
      }
      // The last check: what is counted here is stored.
      if (address !== undefined) {
        const verdict = await limits.storing(address, data.length);
        if (!verdict.ok) return tooMany(reply, verdict);
      }
      const image: ImageRef = { id: newImageId(), ...facts, bytes: data.length };
      await store.putImage({ ...image, sessionId, data, createdAt: now() });
      request.log.info({ imageId: image.id, bytes: image.bytes, type: image.mimeType }, 'image uploaded');
      return reply.code(201).header('cache-control', 'no-store').send(image);
    });

    // The id is the key (128 random bits), so that an <img> on any page can show it.
    scope.get<{ Params: { id: string } }>(
      `${IMAGES_PATH}/:id`,
      { onRequest: guarded },
      async (request, reply) => {
        const image = IMAGE_ID.test(request.params.id) ? await store.getImage(request.params.id) : undefined;
        if (!image) return refuse(reply, 404, 'not_found', 'no such image');
        return reply
          .headers({
            'content-type': image.mimeType,
            'content-length': String(image.data.length),
            // An id never changes what it names.
            'cache-control': 'private, max-age=31536000, immutable',
            'cross-origin-resource-policy': 'cross-origin',
            // Opened on its own, it is an image and nothing else.
            'content-security-policy': "default-src 'none'; sandbox",
          })
          .send(image.data);
      },
    );
  });
}

function refuse(reply: FastifyReply, status: number, code: string, error: string) {
  return reply.code(status).header('cache-control', 'no-store').send({ error, code });
}

const megabytes = (bytes: number): string => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
