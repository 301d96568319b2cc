import { deflateSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inspectImage, printableImage, type ImageVerdict } from '#lib/images';
import { loadPdfKit } from '#lib/pdf';
import { CORRUPT_PNG, pngWith, truncatedJpeg } from '../helpers/hostile-images';
import { pngChunk, solidPng } from '../helpers/images';

// The judge of untrusted image bytes (src/lib/images.ts), attacked with what an upload or an old store
// may hold. The HTTP contract (422 at upload, placeholders in PDFs, the process kept up) is in
// test/http/untrusted-images.test.ts.

const images = suite('lib/images: inspectImage and printableImage');

const refused = (verdict: ImageVerdict, pattern: RegExp, bomb = false) => {
  assert.is(verdict.ok, false, JSON.stringify(verdict));
  if (verdict.ok) return;
  assert.match(verdict.problem, pattern);
  assert.is(verdict.bomb === true, bomb, JSON.stringify(verdict));
};
const png = (verdict: Buffer) => inspectImage(verdict, 'image/png');

/** RGBA rows with filter byte 0. */
const rgbaRows = (width: number, height: number, pixel: number[]) =>
  Buffer.concat(Array.from({ length: height }, () => Buffer.from([0, ...Array.from({ length: width }, () => pixel).flat()])));

images('the issue’s PNG, and the same with true chunk CRCs (only the zlib checksum wrong), are refused', () => {
  refused(png(CORRUPT_PNG), /Crc error/);
  // the zlib stream of the issue with every chunk's CRC recomputed: pngjs alone stops reading before the checksum
  const idat = CORRUPT_PNG.subarray(41, 41 + CORRUPT_PNG.readUInt32BE(33));
  refused(png(pngWith({ width: 1, height: 1, colorType: 6, idat })), /incorrect data check/);
  assert.equal(png(pngWith({ width: 1, height: 1, colorType: 6, pixels: rgbaRows(1, 1, [1, 2, 3, 4]) })), {
    ok: true,
    width: 1,
    height: 1,
  });
});

images('decompression bombs: a declared size past the limits, data inflating past the declared size (plain and interlaced)', () => {
  refused(png(pngWith({ width: 50_000, height: 50_000, colorType: 2, pixels: Buffer.alloc(10) })), /declares 50000 × 50000/, true);
  refused(png(pngWith({ width: 20_001, height: 1, colorType: 2 })), /declares 20001 × 1/, true);
  refused(png(pngWith({ width: 8000, height: 8000, colorType: 2 })), /declares 8000 × 8000/, true);
  const flood = Buffer.alloc(64 * 1024 * 1024);
  refused(png(pngWith({ width: 1, height: 1, colorType: 2, pixels: flood })), /inflates to more data than its declared size needs/, true);
  refused(png(pngWith({ width: 1, height: 1, colorType: 2, pixels: flood, interlace: true })), /inflates to more/, true);
  refused(png(pngWith({ width: 0, height: 5, colorType: 2 })), /declares no width or height|cannot be read/);
});

images('huge ancillary chunks (iCCP, zTXt inflating to 100 MiB) are skipped, never inflated, and not carried into a PDF', () => {
  const hundredMiB = deflateSync(Buffer.alloc(100 * 1024 * 1024));
  for (const type of ['iCCP', 'zTXt']) {
    const bytes = pngWith({
      width: 2,
      height: 1,
      colorType: 6,
      pixels: rgbaRows(2, 1, [9, 9, 9, 255]),
      extra: [pngChunk(type, Buffer.concat([Buffer.from('name\0\0'), hundredMiB]))],
    });
    const started = performance.now();
    assert.equal(png(bytes), { ok: true, width: 2, height: 1 }, type);
    assert.ok(performance.now() - started < 2000, `${type} judged without inflating it`);
    const printable = printableImage(bytes, 'image/png');
    assert.ok(printable.ok && printable.bytes.length < 200, `${type} dropped by the re-encode`);
  }
});

images('broken PNG data: a bad filter byte, rows missing, cut off anywhere, no image data, not a PNG', () => {
  refused(png(pngWith({ width: 1, height: 1, colorType: 2, pixels: Buffer.from([9, 1, 2, 3]) })), /filter/);
  refused(png(pngWith({ width: 4, height: 4, colorType: 2, pixels: rgbaRows(1, 1, [1, 2, 3]) })), /ends before the last row/);
  const whole = solidPng(30, 20, [1, 2, 3]);
  // cut anywhere before the end chunk's own CRC (the image is whole without those 4 bytes)
  for (let cut = 1; cut < whole.length - 4; cut++) assert.is(png(whole.subarray(0, cut)).ok, false, `cut at ${cut}`);
  assert.is(png(Buffer.concat([whole, Buffer.from('appended')])).ok, true, 'data after the end chunk is left alone');
  const noData = Buffer.concat([whole.subarray(0, 33), whole.subarray(whole.length - 12)]);
  assert.is(png(noData).ok, false);
  assert.is(png(Buffer.from('not a png at all')).ok, false);
  // millions of empty chunks would cost the parser seconds on every read: refused past about 50,000
  const manyChunks = Buffer.concat([
    whole.subarray(0, 33),
    ...Array.from({ length: 80_000 }, () => pngChunk('tEXt', Buffer.alloc(0))),
    whole.subarray(33),
  ]);
  const started = performance.now();
  refused(png(manyChunks), /too many chunks/);
  assert.ok(performance.now() - started < 5000, 'refused without reading them all twice');
});

images('JPEG: a whole one passes, cut off or with broken segments it is refused, its size is checked', () => {
  const { whole, cut } = truncatedJpeg();
  assert.equal(inspectImage(whole, 'image/jpeg'), { ok: true, width: 16, height: 16 });
  refused(inspectImage(cut, 'image/jpeg'), /cut short/);
  refused(inspectImage(whole.subarray(0, 100), 'image/jpeg'), /runs past the end|ends before/);
  refused(inspectImage(whole.subarray(0, 3), 'image/jpeg'), /does not start like a JPEG|ends before/);
  // a data after the end marker (cameras append some): accepted
  assert.is(inspectImage(Buffer.concat([whole, Buffer.from('trailer')]), 'image/jpeg').ok, true);
  const sof = whole.indexOf(Buffer.from([0xff, 0xc0]));
  const huge = Buffer.from(whole);
  huge.writeUInt16BE(65_000, sof + 5); // height
  huge.writeUInt16BE(65_000, sof + 7); // width
  refused(inspectImage(huge, 'image/jpeg'), /declares 65000 × 65000/, true);
  const zero = Buffer.from(whole);
  zero.writeUInt16BE(0, sof + 7);
  refused(inspectImage(zero, 'image/jpeg'), /no width or height/);
  const badLength = Buffer.from(whole);
  badLength.writeUInt16BE(0xffff, 4); // the APP0 segment's length, past the end
  refused(inspectImage(badLength, 'image/jpeg'), /runs past the end/);
  const noFrame = Buffer.concat([whole.subarray(0, sof), whole.subarray(sof + 2 + whole.readUInt16BE(sof + 2))]);
  refused(inspectImage(noFrame, 'image/jpeg'), /before a frame header/);
});

images('GIF and WebP: the declared size is checked, short headers refused', () => {
  const gif = (w: number, h: number) => {
    const b = Buffer.alloc(20);
    b.write('GIF89a', 'latin1');
    b.writeUInt16LE(w, 6);
    b.writeUInt16LE(h, 8);
    return b;
  };
  assert.equal(inspectImage(gif(40, 30), 'image/gif'), { ok: true, width: 40, height: 30 });
  refused(inspectImage(gif(65_535, 65_535), 'image/gif'), /declares 65535 × 65535/, true);
  refused(inspectImage(gif(40, 30).subarray(0, 8), 'image/gif'), /no width or height/);
  const webp = (chunk: string, body: (b: Buffer) => void) => {
    const b = Buffer.alloc(40);
    b.write('RIFF', 0, 'latin1');
    b.writeUInt32LE(32, 4);
    b.write('WEBP', 8, 'latin1');
    b.write(chunk, 12, 'latin1');
    body(b);
    return b;
  };
  const vp8x = webp('VP8X', (b) => {
    b.writeUIntLE(16_383, 24, 3);
    b.writeUIntLE(16_383, 27, 3);
  });
  refused(inspectImage(vp8x, 'image/webp'), /declares 16384 × 16384/, true);
  const vp8l = webp('VP8L', (b) => b.writeUInt32LE(99 | (49 << 14), 21));
  assert.equal(inspectImage(vp8l, 'image/webp'), { ok: true, width: 100, height: 50 });
  refused(inspectImage(vp8l.subarray(0, 20), 'image/webp'), /cut short/);
});

images('printableImage: every PNG comes out as plain RGB, which pdfkit embeds without png-js decoding; JPEG goes as it is', () => {
  const alpha = pngWith({ width: 2, height: 2, colorType: 6, pixels: rgbaRows(2, 2, [255, 0, 0, 0]) });
  const interlaced = pngWith({ width: 3, height: 3, colorType: 2, interlace: true, pixels: Buffer.alloc(33) }); // Adam7 passes of 3 × 3: 1×1, 1×1, 2×1, 1×2, 3×1
  for (const [name, bytes] of Object.entries({ alpha, interlaced, solid: solidPng(5, 4, [1, 2, 3]) })) {
    const printable = printableImage(bytes, 'image/png');
    assert.ok(printable.ok, `${name}: ${JSON.stringify(printable)}`);
    if (!printable.ok) continue;
    assert.is(printable.bytes[25], 2, `${name}: colour type RGB`);
    assert.is(printable.bytes[28], 0, `${name}: not interlaced`);
    // pdfkit embeds it synchronously: the image object is finished (its data written) before doc.image() returns
    const doc = new (loadPdfKit())();
    const opened = (doc as unknown as { openImage: (b: Buffer) => unknown }).openImage(printable.bytes) as {
      embed: (d: unknown) => void;
      image: unknown;
      obj: { data: Record<string, unknown> };
    };
    opened.embed(doc);
    assert.is(opened.obj.data.SMask, undefined, name);
    assert.is(opened.image, null, `${name}: finalized at once, png-js decoded nothing`);
    doc.end();
  }
  const { whole } = truncatedJpeg();
  const jpeg = printableImage(whole, 'image/jpeg');
  assert.ok(jpeg.ok && jpeg.bytes === whole);
  assert.is(printableImage(CORRUPT_PNG, 'image/png').ok, false);
  assert.is(printableImage(truncatedJpeg().cut, 'image/jpeg').ok, false);
  assert.is(printableImage(Buffer.from('GIF89a'), 'image/gif').ok, false);
});

images.run();
