import type { Readable } from 'node:stream';
import { AppError } from '#errors';
import type { ByteRange } from '#storage';
import type { AppContext } from './state';

/** What a download needs to know about the file before opening it. */
export interface Downloadable {
  name: string;
  size: number;
  sha256: string;
  content_type: string;
}

/**
 * Streams a stored file the way resumable downloads need it: a strong ETag
 * (the content hash) with If-None-Match → 304, single byte ranges → 206 with
 * Content-Range (If-Range respected; several ranges answer the whole file, as
 * RFC 9110 allows), an unsatisfiable range → 416 with `Content-Range: bytes *\/size`.
 * Always an attachment: stored bytes are never rendered by the browser as a page.
 */
export async function sendFile(
  ctx: AppContext,
  file: Downloadable,
  open: (range?: ByteRange) => Promise<{ stream: Readable; size: number }>,
): Promise<void> {
  const etag = `"${file.sha256}"`;
  ctx.set('ETag', etag);
  ctx.set('Accept-Ranges', 'bytes');
  if (etagMatches(ctx.get('if-none-match'), etag)) {
    ctx.status = 304;
    ctx.body = null;
    return;
  }
  const ifRange = ctx.get('if-range');
  const range = ifRange && ifRange !== etag ? undefined : parseRange(ctx.get('range'), file.size);
  const opened = await open(range);
  ctx.set('Content-Disposition', contentDisposition(file.name));
  ctx.type = file.content_type;
  if (range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
    ctx.length = range.end - range.start + 1;
  } else {
    ctx.status = 200;
    ctx.length = opened.size;
  }
  ctx.body = opened.stream;
}

function etagMatches(header: string, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * One `bytes=` range of a file of `size` bytes; undefined means "send it all"
 * (no header, an unknown unit, a syntax error or several ranges).
 * @throws AppError RANGE_NOT_SATISFIABLE
 */
export function parseRange(header: string, size: number): ByteRange | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) throw unsatisfiable(size);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (match[2] !== '' && Number(match[2]) < start) return undefined;
  }
  if (start >= size || !Number.isSafeInteger(start)) throw unsatisfiable(size);
  return { start, end };
}

const unsatisfiable = (size: number) =>
  new AppError(
    'RANGE_NOT_SATISFIABLE',
    `The range is outside the file (${size} bytes)`,
    { size },
    { headers: { 'Content-Range': `bytes */${size}` } },
  );

/** RFC 6266: an ASCII fallback and the UTF-8 name. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
