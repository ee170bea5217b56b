/**
 * The HTTP side of images (PROTOCOL.md section 2a): `POST /images` takes one image for the
 * session an upload ticket names, `GET /images/<id>` gives its bytes back. Registered in a
 * scope of its own, so that the raw-body parser it needs never reaches the host's routes.
 *
 * Every refusal is JSON `{ error, code }` with a status a page can act on, and nothing is
 * stored until the bytes are read whole and checked: an image is a PNG, JPEG, WebP or GIF
 * by its own bytes, with a readable size, within the limits. Uploads no question ever
 * named go after a day (checked hourly, and at start), until the app closes.
 */
import { randomBytes } from 'node:crypto';
import type { ImageRef } from '@aalis/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { HistoryStore } from '../history/store.js';
import type { BudgetStore } from '../budgets/budget-store.js';
import type { ClientIpOf } from './client-ip.js';
import { isOriginAllowed } from './origin.js';
import { retryAfterSeconds } from './ip-limits.js';
import { RateWindow } from '../util/rate-window.js';
import { describeImage } from '../images/describe-image.js';
import { ORPHAN_IMAGE_MS, type ImageSettings } from '../images/image-settings.js';
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

/** Longest side accepted, in pixels: Anthropic refuses larger images. */
const MAX_SIDE = 8_000;

/** Addresses whose upload counts are kept at once; the oldest goes first beyond this. */
const MAX_TRACKED_ADDRESSES = 10_000;
const HOUR_MS = 60 * 60 * 1000;

/** 128 random bits: the id is the key to the image, as a session id is to a conversation. */
const newImageId = (): string => `img_${randomBytes(16).toString('base64url')}`;

/** An image id as this server makes them; anything else is a 404 without a lookup. */
const IMAGE_ID = /^img_[A-Za-z0-9_-]{22}$/;

export async function registerImageRoutes(app: FastifyInstance, options: ImageRoutesOptions): Promise<void> {
  const { store, tickets, settings, allowedOrigins, guarded, clientIpOf, now = Date.now } = options;
  const orphans = sweepOrphanImages(store, app.log);
  app.addHook('onClose', async () => clearInterval(orphans));
  const perAddress = new Map<string, RateWindow>();
  const uploadFrom = (address: string) => {
    let window = perAddress.get(address);
    if (!window) {
      if (perAddress.size >= MAX_TRACKED_ADDRESSES) perAddress.delete(perAddress.keys().next().value!);
      window = new RateWindow(settings.perIpPerHour, HOUR_MS, now);
      perAddress.set(address, window);
    }
    return window.take();
  };

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

    // CORS for the pages allowed to open the socket: the same list decides.
    const corsFor = (request: FastifyRequest, reply: FastifyReply): boolean => {
      const origin = request.headers.origin;
      if (!isOriginAllowed(origin, request.headers.host, allowedOrigins)) return false;
      if (origin !== undefined)
        void reply.header('access-control-allow-origin', origin).header('vary', 'origin');
      return true;
    };

    scope.options(IMAGES_PATH, { onRequest: guarded }, async (request, reply) => {
      void reply.header('allow', 'POST, OPTIONS');
      if (corsFor(request, reply)) {
        void reply.headers({
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'authorization, content-type',
          'access-control-max-age': '7200',
        });
      }
      return reply.code(204).send();
    });

    // Who may upload is checked before a byte of the body is read: a request without a
    // ticket, from another origin, over the rate or announcing too large a body never
    // makes the server buffer anything.
    const sessions = new WeakMap<FastifyRequest, string>();
    const admit = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!corsFor(request, reply))
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
      if (Number(request.headers['content-length'] ?? 0) > settings.maxBytes) return tooBig(reply);
      const address = clientIpOf(request.socket.remoteAddress, request.headers['x-forwarded-for']);
      const rate = address === undefined ? ({ ok: true } as const) : uploadFrom(address);
      if (!rate.ok) {
        void reply.header('retry-after', String(retryAfterSeconds(rate.retryInMs)));
        return refuse(reply, 429, 'too_many', 'too many images from this address: try again later');
      }
      sessions.set(request, checked.sessionId);
    };
    const tooBig = (reply: FastifyReply) =>
      refuse(reply, 413, 'too_big', `an image may be at most ${megabytes(settings.maxBytes)}`);

    scope.post(IMAGES_PATH, { onRequest: [...guarded, admit] }, async (request, reply) => {
      const sessionId = sessions.get(request)!;
      const data = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const facts = describeImage(data);
      if (!facts) {
        return refuse(reply, 415, 'not_an_image', 'this file is not a PNG, JPEG, WebP or GIF image');
      }
      // The largest side any provider here takes (Anthropic: 8,000 pixels).
      if (facts.width > MAX_SIDE || facts.height > MAX_SIDE) {
        return refuse(reply, 413, 'too_big', `an image may be at most ${MAX_SIDE} pixels wide and high`);
      }
      if ((await store.countImages(sessionId)) >= settings.maxPerSession) {
        return refuse(
          reply,
          429,
          'too_many',
          `a conversation may have at most ${settings.maxPerSession} images`,
        );
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

/** Deletes the uploads no question named within a day, now and every hour; the timer is returned. */
function sweepOrphanImages(store: HistoryStore, log: FastifyInstance['log']): NodeJS.Timeout {
  const sweep = () =>
    store.dropOrphanImages(Date.now() - ORPHAN_IMAGE_MS).then(
      (dropped) => dropped && log.info({ dropped }, 'images never sent were deleted'),
      (error: unknown) => log.error({ err: error }, 'deleting images never sent failed'),
    );
  void sweep();
  const timer = setInterval(() => void sweep(), 60 * 60 * 1000);
  timer.unref();
  return timer;
}
