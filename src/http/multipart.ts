import busboy from 'busboy';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { type AppError, badRequest, fieldError } from '#errors';
import type { AppContext } from './state';

/** What a multipart request may hold besides its file bytes (which the caller's budget limits). */
const LIMITS = { fields: 20, fieldSize: 64 * 1024, files: 20, parts: 40, headerPairs: 100 };
/** Room for boundaries, part headers and text fields when judging a declared Content-Length up front. */
const ENVELOPE_SLACK = 1024 * 1024;

export interface FilePart {
  field: string;
  fileName: string;
  stream: Readable;
}

/**
 * Reads a multipart/form-data request as it arrives: text fields are
 * collected (small, limited), each file part is handed to `onFile` as a stream
 * (which must consume it, e.g. into the file store) — the body is never
 * buffered in memory. A body declaring more than the budget is refused before
 * a byte is read. On any failure the rest of the body is left unread and the
 * connection is closed after the answer, so an oversized upload costs no more
 * than what was already received.
 * @throws AppError BAD_REQUEST (malformed multipart), VALIDATION_ERROR (too many parts, field too long), or what `onFile` throws
 */
export async function readMultipart<T>(
  ctx: AppContext,
  options: { budget: { remaining: number; tooLarge: () => AppError }; onFile: (part: FilePart) => Promise<T> },
): Promise<{ fields: Record<string, string>; files: T[] }> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > options.budget.remaining + ENVELOPE_SLACK) {
    ctx.set('Connection', 'close');
    throw options.budget.tooLarge();
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: ctx.req.headers, limits: LIMITS });
  } catch (error) {
    throw badRequest(`Malformed multipart/form-data request: ${(error as Error).message}`);
  }
  const fields: Record<string, string> = {};
  const results: Promise<T>[] = [];
  // what was sent, whatever the boundary: the fields, and each file (field, name, SHA-256 of its bytes) in order
  const fileDigests: Promise<string>[] = [];
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      ctx.req.unpipe(parser);
      ctx.set('Connection', 'close');
      // the file stream in flight is dropped with the parser; the store removes its temporary file
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(fieldError(name, `must be at most ${LIMITS.fieldSize} bytes`));
      fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      // a body cut short fails the part's stream too: the parser's own 'error' reports it (below), and a
      // consumer piping the stream sees it; without a listener here it would be unhandled and end the process
      stream.on('error', () => undefined);
      fileDigests.push(fileDigest(field, info.filename ?? '', stream));
      const result = options.onFile({ field, fileName: info.filename ?? '', stream });
      result.catch((error) => {
        stream.resume();
        fail(error);
      });
      results.push(result);
    });
    for (const event of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) {
      parser.on(event, () => fail(fieldError('body', `at most ${LIMITS.files} files and ${LIMITS.fields} fields per request`)));
    }
    parser.on('error', (error: Error) => fail(badRequest(`Malformed multipart/form-data request: ${error.message}`)));
    parser.on('close', () => {
      Promise.all([Promise.all(results), Promise.all(fileDigests)]).then(([files, digests]) => {
        if (settled) return;
        settled = true;
        ctx.state.bodyDigest = createHash('sha256')
          .update(JSON.stringify([Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)), digests]))
          .digest('hex');
        resolve({ fields, files });
      }, fail);
    });
    ctx.req.on('error', fail);
    ctx.req.pipe(parser);
  });
}

/**
 * The SHA-256 of a file part's bytes as its consumer reads them. The listener
 * is added paused, so no byte flows before the consumer asks for it (a pipe or
 * read resumes the stream, and every chunk it reads is also a 'data' event).
 */
function fileDigest(field: string, fileName: string, stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  stream.on('data', (chunk: Buffer) => hash.update(chunk));
  stream.pause();
  return new Promise((resolve) => {
    stream.on('end', () => resolve(`${field}\n${fileName}\n${hash.digest('hex')}`));
    // a part cut short: the parser fails the whole request (below), no digest is used
    stream.on('error', () => resolve(''));
    stream.on('close', () => resolve(''));
  });
}
