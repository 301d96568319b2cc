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
