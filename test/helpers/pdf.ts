import { inflateSync } from 'node:zlib';
import { PDFParse } from 'pdf-parse';

/** The text of a PDF (pdf.js through pdf-parse), whitespace collapsed, and its page count. */
export async function pdfText(bytes: Buffer): Promise<{ text: string; pages: number }> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    const result = await parser.getText();
    return { text: result.text.replace(/\s+/g, ' '), pages: result.total };
  } finally {
    await parser.destroy();
  }
}

/** The images a PDF embeds (its image XObjects, decoded by pdf.js): page, size and first pixel's RGB. */
export async function pdfImages(bytes: Buffer): Promise<{ page: number; width: number; height: number; firstPixel: number[] }[]> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    const result = await parser.getImage({ imageThreshold: 0, imageDataUrl: false, imageBuffer: true });
    return result.pages.flatMap((page) =>
      page.images.map((image) => ({
        page: page.pageNumber,
        width: image.width,
        height: image.height,
        firstPixel: firstPixelOfPng(Buffer.from(image.data)),
      })),
    );
  } finally {
    await parser.destroy();
  }
}

/**
 * The RGB of a PNG's top-left pixel (pdf-parse hands images back re-encoded as
 * 8-bit PNG). Every PNG row filter leaves the first pixel of the first row as
 * is (it has no left or upper neighbour), so inflating the data is enough.
 */
function firstPixelOfPng(png: Buffer): number[] {
  const data: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') data.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  return [...inflateSync(Buffer.concat(data)).subarray(1, 4)];
}
