/**
 * A built script as an answer (the widget, its parts, the console): in the encoding the
 * request accepts best, with its ETag (one per encoding), or 304 when the client has this
 * version already.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { chooseEncoding, type WidgetAsset } from './widget-file.js';

export function sendScript(
  request: FastifyRequest,
  reply: FastifyReply,
  asset: WidgetAsset,
  cacheControl: string,
): FastifyReply {
  const encoding = chooseEncoding(request.headers['accept-encoding']);
  const etag = encoding === 'identity' ? asset.etag : `${asset.etag.slice(0, -1)}-${encoding}"`;
  void reply.header('cache-control', cacheControl).header('vary', 'accept-encoding').header('etag', etag);
  if (request.headers['if-none-match']?.split(/\s*,\s*/).includes(etag)) return reply.code(304).send();
  if (encoding !== 'identity') void reply.header('content-encoding', encoding);
  const body = encoding === 'identity' ? asset.body : asset[encoding];
  return reply.type('text/javascript; charset=utf-8').send(body);
}
