import type { Context } from 'koa';
import { AppError } from '#errors';

/** What a route accepts as its request body (RouteSpec.accepts); JSON unless it says otherwise. */
export type BodyType = 'json' | 'multipart' | 'xliff';

/** Media types read as JSON — by the global body parser, which parses nothing else, and by the check below. */
export const JSON_TYPES = ['application/json', 'application/*+json'];

/** XLIFF files (routes/client/translations) are XML: their registered type first, the generic XML types translators' tools also send. */
export const XLIFF_TYPES = ['application/xliff+xml', 'application/xml', 'text/xml'];

const MEDIA_TYPES: Record<BodyType, string[]> = { json: JSON_TYPES, multipart: ['multipart/form-data'], xliff: XLIFF_TYPES };

/**
 * Refuses a request body of another media type than the route declares: 415
 * UNSUPPORTED_MEDIA_TYPE, before the guards and the handler, so nothing
 * changes. A form or text/plain body is what a page on another site can send
 * without a CORS preflight; a JSON body cannot be, so on JSON routes this
 * check turns every cross-site write into one the browser asks about first.
 * A multipart route reads its body itself, as a stream (http/multipart.ts):
 * uploads are never buffered (the global parser reads JSON only).
 */
export function assertBodyType(ctx: Context, type: BodyType): void {
  const media = MEDIA_TYPES[type];
  if (hasBody(ctx) && !ctx.is(media)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `This route accepts ${media[0]} request bodies only`);
  }
}

/** A body is on its way when a length above zero or a chunked transfer is announced (an empty POST is no body). */
function hasBody(ctx: Context): boolean {
  return ctx.request.length ? ctx.request.length > 0 : ctx.get('transfer-encoding') !== '';
}
