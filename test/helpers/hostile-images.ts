import { deflateSync } from 'node:zlib';
import { pngChunk } from './images';

/**
 * Image files as an attacker (or a broken camera) sends them, for the tests
 * of untrusted images: the corrupt PNG that ended the process, and builders of
 * PNGs with any header, chunks and data, each chunk with a true CRC.
 */

/** The 70-byte PNG that once ended the appliance: 1 × 1 RGBA whose image data fails its zlib checksum. */
export const CORRUPT_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5e2f4e80000000049454e44ae426082',
  'hex',
);

/**
 * A PNG declaring `width` × `height` (8-bit, `colorType`), whose image data is
 * `pixels` deflated as given (or `idat` as it is), with `extra` chunks before it.
 */
export function pngWith(options: {
  width: number;
  height: number;
  colorType: number;
  pixels?: Buffer;
  idat?: Buffer;
  interlace?: boolean;
  extra?: Buffer[];
}): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(options.width, 0);
  header.writeUInt32BE(options.height, 4);
  header[8] = 8;
  header[9] = options.colorType;
  header[12] = options.interlace ? 1 : 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    ...(options.extra ?? []),
    pngChunk('IDAT', options.idat ?? deflateSync(options.pixels ?? Buffer.alloc(0))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A real 16 × 16 baseline JPEG (Python's imghdr test image), whole and cut off inside its scan data. */
export function truncatedJpeg(): { whole: Buffer; cut: Buffer } {
  const whole = Buffer.from(
    '/9j/4AAQSkZJRgABAQEAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/2wBDAQMDAwQDBAgEBAgQCwkLEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBD/wAARCAAQABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABwQF/8QAJBAAAQQBBAICAwAAAAAAAAAAAQIDBAYFBwgSExEiABQJMTL/xAAVAQEBAAAAAAAAAAAAAAAAAAAABv/EACMRAAECBQMFAAAAAAAAAAAAAAECEQMEBQYhABIxFRZhgeH/2gAMAwEAAhEDEQA/ABSm0mobc8HmExLUlRzzEWPkJWW+ulrsaUVAseUgslSlH9LKuPryIKuWPZdskzXmm3fX5m2nF4GlVxx/HOpx4ks51+MiU/Iaad7UcUo4tILoS4kqcWkezS0hO/HvuRp0rO6hWnWO1UisZVuFi4GFeyEpmGepa5S5SWVPuciFKRFLgSrwetnyPIB+Vb4N9mKhQMzo5po9XLdDs9d6ZVix2VEhiL9kuNPxw2gEKcDQ/rs8AuA8VAe0vdl7VOYn+27flGAUgmITjbhSmCg3BYlyeWDkMolvw4KOp1KM6iCNvngZHwetf//Z',
    'base64',
  );
  return { whole, cut: whole.subarray(0, whole.length - 60) };
}
