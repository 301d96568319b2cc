import zlib from 'node:zlib';

/**
 * Image bytes are untrusted: a client uploads them, and they were stored by
 * older versions without a check. This module judges them — at upload
 * (`inspectImage`) and again before a PDF embeds them (`printableImage`) —
 * and runs in a worker thread (image-worker.ts), so a slow or hostile file
 * costs a thread, never the event loop or the process.
 *
 * - PNG is decoded for real with pngjs (pure JS, synchronous: its errors are
 *   thrown where they can be caught — pdfkit's own png-js inflates in a zlib
 *   callback, where a corrupt file's error ended the process). Before any
 *   pixel is inflated the declared size is checked, and the compressed data
 *   is inflated with a ceiling of what that size needs, so a decompression
 *   bomb fails at the ceiling instead of filling the memory.
 * - JPEG's structure is walked (segments within the file, a frame header
 *   with the size, scan data, the end marker); its pixels are decoded by
 *   whoever displays it (the browser, the PDF viewer), never by the server,
 *   and no pure-JS JPEG decoder is among the dependencies.
 * - GIF and WebP: only the declared size is checked (browsers show them; the
 *   server never draws them, PDFs name them).
 */

/** Widest or tallest image accepted, in pixels. */
export const MAX_IMAGE_SIDE = 20_000;
/** Most pixels an image may declare (40 megapixels: a 7,700 × 5,200 photo). */
export const MAX_IMAGE_PIXELS = 40_000_000;
/**
 * Compressed PNG data may inflate to this much more than its declared size
 * needs (some encoders pad); past it the file is a decompression bomb.
 */
const INFLATE_SLACK = 64 * 1024;
/**
 * About the most chunks a PNG may have (counted as parser reads: 50,000 to
 * 75,000 chunks, by their kind): encoders write image data in chunks of 8 KiB or
 * more (a 64 MiB file: about 8,000), while a file of millions of empty chunks
 * costs the parser seconds each time it is read.
 */
const MAX_PNG_CHUNKS = 50_000;

/** An image as judged: its size, or why it cannot be shown (`bomb`: it declares more than the limits allow). */
export type ImageVerdict = { ok: true; width: number; height: number } | { ok: false; problem: string; bomb?: boolean };

/** The content types judged here; other files are not images to the server. */
export const JUDGED_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** Whether stored bytes of this type are checked at upload. */
export const isJudgedImage = (contentType: string) => JUDGED_IMAGE_TYPES.has(contentType);

/** @returns the verdict on `bytes` detected as `contentType` (one of JUDGED_IMAGE_TYPES); anything else is ok. */
export function inspectImage(bytes: Buffer, contentType: string): ImageVerdict {
  try {
    switch (contentType) {
      case 'image/png':
        return decodePng(bytes).verdict;
      case 'image/jpeg':
        return jpegFrame(bytes);
      case 'image/gif':
        return withinLimits(bytes.length >= 13 ? bytes.readUInt16LE(6) : 0, bytes.length >= 13 ? bytes.readUInt16LE(8) : 0);
      case 'image/webp':
        return webpSize(bytes);
      default:
        return { ok: true, width: 0, height: 0 };
    }
  } catch (error) {
    return { ok: false, problem: `cannot be read (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** What a PDF may embed: bytes pdfkit reads without decoding anything itself, or why the image cannot be shown. */
export type Printable = { ok: true; bytes: Buffer; width: number; height: number } | { ok: false; problem: string };

/**
 * Bytes of a stored PNG or JPEG made safe to hand to pdfkit. A PNG is decoded
 * and written anew as 8-bit RGB on white, not interlaced: pdfkit embeds such a
 * PNG's data as it is, synchronously, and png-js never decodes it (it does for
 * alpha, transparency and interlacing, in the zlib callback that crashed the
 * process). A JPEG that passes the structure check goes as it is: pdfkit only
 * reads its frame header, synchronously, and the PDF viewer decodes it.
 */
export function printableImage(bytes: Buffer, contentType: string): Printable {
  try {
    if (contentType === 'image/jpeg') {
      const verdict = jpegFrame(bytes);
      return verdict.ok ? { ...verdict, bytes } : verdict;
    }
    if (contentType !== 'image/png') return { ok: false, problem: 'not a PNG or JPEG image' };
    const { verdict, decoded } = decodePng(bytes);
    if (!verdict.ok || !decoded) return verdict.ok ? { ok: false, problem: 'cannot be read' } : verdict;
    const png = pngjs().PNG.sync.write(decoded, {
      colorType: 2,
      inputColorType: 6,
      inputHasAlpha: true,
      bgColor: { red: 255, green: 255, blue: 255 },
      // one filter for every row: pngjs's default tries all five on each row, several times slower
      filterType: 4,
      deflateLevel: 6,
    });
    return { ok: true, bytes: png, width: verdict.width, height: verdict.height };
  } catch (error) {
    return { ok: false, problem: `cannot be read (${error instanceof Error ? error.message : String(error)})` };
  }
}

function withinLimits(width: number, height: number): ImageVerdict {
  if (!(width > 0 && height > 0)) return { ok: false, problem: 'declares no width or height' };
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE || width * height > MAX_IMAGE_PIXELS)
    return {
      ok: false,
      bomb: true,
      problem: `declares ${width} × ${height} pixels, more than the limit of ${MAX_IMAGE_SIDE} per side and ${MAX_IMAGE_PIXELS} in all`,
    };
  return { ok: true, width, height };
}

// ── PNG ─────────────────────────────────────────────────────────────────────

interface PngMetadata {
  width: number;
  height: number;
  depth: number;
  bpp: number;
  interlace: boolean;
}
interface DecodedPng {
  width: number;
  height: number;
  data: Buffer;
}
interface PngJs {
  PNG: {
    sync: {
      read(buffer: Buffer, options?: { checkCRC?: boolean }): DecodedPng;
      write(png: DecodedPng, options: Record<string, unknown>): Buffer;
    };
  };
}
type PngParser = new (options: { checkCRC?: boolean }, callbacks: Record<string, (...args: never[]) => void>) => { start(): void };
type PngSyncReader = new (buffer: Buffer) => { read: unknown; process(): Error | undefined };

// pngjs comes with qrcode; loaded on first use, like pdfkit (most processes never judge an image)
const pngjs = () => require('pngjs') as PngJs;

/**
 * A PNG decoded with pngjs, after two checks pngjs does not make: the declared
 * size is within the limits, and the whole zlib stream (checksum included —
 * pngjs stops reading at the size it needs, so a bad checksum passed it)
 * inflates, to no more than that size needs.
 */
function decodePng(bytes: Buffer): { verdict: ImageVerdict; decoded?: DecodedPng } {
  const { metadata, compressed } = readPngChunks(bytes);
  const limits = withinLimits(metadata.width, metadata.height);
  if (!limits.ok) return { verdict: limits };
  const needed = inflatedSize(metadata);
  let inflated: Buffer;
  try {
    inflated = zlib.inflateSync(compressed, { maxOutputLength: needed + INFLATE_SLACK });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      return { verdict: { ok: false, bomb: true, problem: 'inflates to more data than its declared size needs' } };
    throw error;
  }
  if (inflated.length < needed) return { verdict: { ok: false, problem: 'has image data that ends before the last row' } };
  const decoded = pngjs().PNG.sync.read(bytes);
  return { verdict: limits, decoded };
}

/**
 * The header and the concatenated compressed data of a PNG, read with pngjs's
 * own chunk parser (signature, chunk order and every chunk's CRC checked;
 * ancillary chunks such as iCCP or zTXt skipped, never inflated) up to its
 * end chunk, which must be there. Nothing is inflated here.
 */
function readPngChunks(bytes: Buffer): { metadata: PngMetadata; compressed: Buffer } {
  const Parser = require('pngjs/lib/parser') as PngParser;
  const SyncReader = require('pngjs/lib/sync-reader') as PngSyncReader;
  let failure: Error | undefined;
  let metadata: PngMetadata | undefined;
  let ended = false;
  const compressed: Buffer[] = [];
  const reader = new SyncReader(bytes);
  const ignore = () => undefined;
  const read = (reader.read as (...args: unknown[]) => void).bind(reader);
  let reads = 0;
  new Parser(
    {},
    {
      // two or three reads a chunk (head, data and CRC, or head and the rest skipped); a throw ends reader.process()
      read: (...args: unknown[]) => {
        if (++reads > 3 * MAX_PNG_CHUNKS) throw new Error(`has too many chunks (about ${MAX_PNG_CHUNKS} at most)`);
        read(...args);
      },
      error: (error: Error) => (failure ??= error),
      metadata: (m: PngMetadata) => (metadata = m),
      inflateData: (data: Buffer) => compressed.push(data),
      gamma: ignore,
      palette: ignore,
      transColor: ignore,
      simpleTransparency: ignore,
      headersFinished: ignore,
      finished: () => (ended = true),
    },
  ).start();
  // what follows the end chunk (some tools append data) is left alone, as by pngjs's own reader
  reader.process();
  if (failure) throw failure;
  if (!metadata) throw new Error('no image header');
  if (!ended) throw new Error('is cut short: its end chunk is missing');
  return { metadata, compressed: Buffer.concat(compressed) };
}

/** The bytes a PNG's image data inflates to: filter byte plus packed pixels per row, per Adam7 pass when interlaced. */
function inflatedSize(m: PngMetadata): number {
  const rowBytes = (width: number) => ((width * m.bpp * m.depth + 7) >> 3) + 1;
  if (!m.interlace) return rowBytes(m.width) * m.height;
  const { getImagePasses } = require('pngjs/lib/interlace') as {
    getImagePasses: (width: number, height: number) => { width: number; height: number }[];
  };
  return getImagePasses(m.width, m.height).reduce((sum, pass) => sum + rowBytes(pass.width) * pass.height, 0);
}

// ── JPEG ────────────────────────────────────────────────────────────────────

const isFrameMarker = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
const isStandalone = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8);

/** A JPEG's segments up to its scan, every one within the file; its frame size; and an end marker after the scan. */
function jpegFrame(bytes: Buffer): ImageVerdict {
  const fail = (problem: string): ImageVerdict => ({ ok: false, problem });
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return fail('does not start like a JPEG');
  let pos = 2;
  let frame: ImageVerdict | undefined;
  for (;;) {
    if (pos + 4 > bytes.length) return fail('ends before its image data');
    if (bytes[pos] !== 0xff) return fail('has a segment that does not start with a marker');
    while (bytes[pos + 1] === 0xff && pos + 2 < bytes.length) pos++;
    const marker = bytes[pos + 1];
    pos += 2;
    if (marker === 0xd9) return fail('ends before its image data');
    if (isStandalone(marker)) continue;
    if (pos + 2 > bytes.length) return fail('ends inside a segment');
    const length = bytes.readUInt16BE(pos);
    if (length < 2 || pos + length > bytes.length) return fail('has a segment that runs past the end of the file');
    if (isFrameMarker(marker)) {
      if (length < 8) return fail('has a frame header too short for its size');
      const components = bytes[pos + 7];
      if (components !== 1 && components !== 3 && components !== 4) return fail(`has ${components} colour components`);
      frame = withinLimits(bytes.readUInt16BE(pos + 5), bytes.readUInt16BE(pos + 3));
      if (!frame.ok) return frame;
    }
    pos += length;
    if (marker === 0xda) break;
  }
  if (!frame) return fail('has image data before a frame header');
  // the scan's data runs to the end marker (a camera may append data after it)
  if (bytes.lastIndexOf(Buffer.from([0xff, 0xd9])) < pos) return fail('is cut short: its end marker is missing');
  return frame;
}

// ── WebP ────────────────────────────────────────────────────────────────────

/** A WebP's declared canvas or frame size (RIFF container, then VP8X, VP8 or VP8L). */
function webpSize(bytes: Buffer): ImageVerdict {
  if (bytes.length < 30 || bytes.readUInt32LE(4) + 8 > bytes.length + 1) return { ok: false, problem: 'is cut short' };
  const chunk = bytes.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return withinLimits(1 + bytes.readUIntLE(24, 3), 1 + bytes.readUIntLE(27, 3));
  if (chunk === 'VP8 ') return withinLimits(bytes.readUInt16LE(26) & 0x3fff, bytes.readUInt16LE(28) & 0x3fff);
  if (chunk === 'VP8L') {
    const bits = bytes.readUInt32LE(21);
    return withinLimits(1 + (bits & 0x3fff), 1 + ((bits >>> 14) & 0x3fff));
  }
  return { ok: false, problem: `has an unknown first chunk "${chunk}"` };
}
