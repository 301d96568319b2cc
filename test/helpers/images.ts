import { crc32, deflateSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';

/** One PNG chunk: length, type, data, CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A real PNG of one colour (8-bit RGB), written byte by byte: something
 * pdfkit embeds and pdf.js extracts with its true size and pixels.
 */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const chunk = pngChunk;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.concat(Array.from({ length: width }, () => Buffer.from(rgb)))]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A PNG of random pixels (8-bit RGB): it does not compress, so the file is
 * about width × height × 3 bytes, and pdfkit embeds those bytes as they are.
 */
export function noisyPng(width: number, height: number): Buffer {
  const png = solidPng(width, height, [0, 0, 0]);
  const rows = Buffer.concat(Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), randomBytes(width * 3)])));
  const idat = deflateSync(rows, { level: 1 });
  const length = Buffer.alloc(4);
  length.writeUInt32BE(idat.length);
  const body = Buffer.concat([Buffer.from('IDAT', 'latin1'), idat]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  // signature and IHDR (8 + 25 bytes) of the solid PNG, then the noisy IDAT, then IEND (last 12 bytes)
  return Buffer.concat([png.subarray(0, 33), length, body, crc, png.subarray(png.length - 12)]);
}
