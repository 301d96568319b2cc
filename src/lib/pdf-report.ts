import type { Readable } from 'node:stream';
import { loadPdfKit } from './pdf';

/**
 * A small vocabulary for generated reports on top of pdfkit: headings,
 * paragraphs, label/value lists, tables (pdfkit's own, which break across
 * pages), images; and, once the content is laid out, the same header and
 * footer on every page — the client's name (and logo), the title, "page N of
 * M" and the generation time. Text is real text in standard fonts, so it can
 * be searched, copied and extracted. The standard fonts cover Western
 * European characters (WinAnsi); others are not drawn.
 */

export interface ReportHeader {
  title: string;
  clientName: string;
  /** PNG or JPEG bytes */
  logo?: Buffer | null;
  generatedAt: Date;
}

/** What a report prints in place of an image it cannot show. */
export const IMAGE_NOT_SHOWN = 'image could not be shown';

const MARGIN = 50;
const HEADER_SPACE = 40;

/** What pdfkit's `openImage` returns: an image read once, embedded at its first use and referred to after that. */
type OpenedImage = object;

export class PdfReport {
  readonly doc: PDFKit.PDFDocument;
  /**
   * Images by their bytes (the same Buffer object), each opened once. pdfkit
   * caches images only by file name: given a Buffer, every doc.image() call
   * embedded the bytes anew, so a photo shown in 50 places, or the logo on
   * every page, was in the PDF (and in memory while it streamed) 50 or
   * page-count times. null: pdfkit could not read the bytes.
   */
  private readonly opened = new Map<Buffer, OpenedImage | null>();

  constructor(private readonly header: ReportHeader) {
    const PDFDocument = loadPdfKit();
    this.doc = new PDFDocument({
      size: 'A4',
      bufferPages: true,
      margins: { top: MARGIN + HEADER_SPACE, bottom: MARGIN + 20, left: MARGIN, right: MARGIN },
      info: { Title: header.title, Subject: `${header.title} (${header.clientName})`, Producer: 'wip', CreationDate: header.generatedAt },
    });
    this.doc.font('Helvetica-Bold').fontSize(18).text(header.title);
    this.doc.moveDown(0.5);
  }

  heading(text: string, level: 1 | 2 = 1): this {
    this.ensureRoom(60);
    this.doc
      .moveDown(0.6)
      .font('Helvetica-Bold')
      .fontSize(level === 1 ? 14 : 12)
      .fillColor('black')
      .text(text);
    this.doc.moveDown(0.3);
    return this;
  }

  paragraph(text: string, options: { italic?: boolean; color?: string } = {}): this {
    if (!text.trim()) return this;
    this.doc
      .font(options.italic ? 'Helvetica-Oblique' : 'Helvetica')
      .fontSize(10)
      .fillColor(options.color ?? 'black')
      .text(text);
    this.doc.fillColor('black').moveDown(0.4);
    return this;
  }

  /** "Label: value" lines */
  facts(rows: readonly [string, string | number | null | undefined][]): this {
    for (const [label, value] of rows) {
      if (value === null || value === undefined || value === '') continue;
      this.doc.font('Helvetica-Bold').fontSize(10).text(`${label}: `, { continued: true }).font('Helvetica').text(String(value));
    }
    this.doc.moveDown(0.4);
    return this;
  }

  /**
   * A table with a header row; `mark` picks rows to print in red (out of
   * limits); `widths` in points or '*' (shares of what is left).
   */
  table(
    header: readonly string[],
    rows: readonly (readonly string[])[],
    options: { mark?: (row: number) => boolean; widths?: (number | '*')[] } = {},
  ): this {
    const { mark, widths } = options;
    if (rows.length === 0) return this;
    this.ensureRoom(50);
    this.doc.x = MARGIN;
    this.doc.fontSize(9);
    this.doc.table({
      defaultStyle: { padding: 3, border: 0.5, borderColor: '#999999' },
      ...(widths && { columnStyles: widths }),
      rowStyles: (i) => (i === 0 ? { backgroundColor: '#e8e8e8' } : mark?.(i - 1) ? { textColor: '#b00000' } : undefined),
      data: [
        header.map((text) => ({ text, font: { src: 'Helvetica-Bold' }, type: 'TH' as const })),
        ...rows.map((row) => row.map((text) => ({ text, font: { src: 'Helvetica' } }))),
      ],
    });
    this.doc.x = MARGIN;
    this.doc.moveDown(0.6);
    return this;
  }

  /**
   * A PNG or JPEG, scaled to fit, with a caption; anything pdfkit cannot read becomes a line saying so. Give it
   * bytes from printableImage (lib/images.ts), never stored bytes: png-js fails some files where no catch reaches.
   */
  image(bytes: Buffer, caption: string): this {
    this.ensureRoom(180);
    if (!this.draw(bytes, MARGIN, this.doc.y, [240, 160])) return this.paragraph(`[${IMAGE_NOT_SHOWN}: ${caption}]`, { italic: true });
    this.doc.y += 165;
    this.doc.x = MARGIN;
    return this.paragraph(caption, { italic: true, color: '#444444' });
  }

  /** Draws header and footer on every page and ends the document; the PDF bytes stream out. */
  end(): Readable {
    const doc = this.doc;
    const { count } = doc.bufferedPageRange();
    const stamp = this.header.generatedAt
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC');
    for (let i = 0; i < count; i++) {
      doc.switchToPage(i);
      const { width, height, margins } = doc.page;
      const savedBottom = margins.bottom;
      // writing inside the margins must not start a new page
      margins.bottom = 0;
      let left = MARGIN;
      // an unreadable logo is left out, the report is not
      if (this.header.logo && this.draw(this.header.logo, MARGIN, 20, [80, 30])) left += 90;
      doc.font('Helvetica-Bold').fontSize(9).fillColor('#333333').text(this.header.clientName, left, 24, { lineBreak: false });
      doc.font('Helvetica').text(this.header.title, left, 36, { width: width - left - MARGIN, lineBreak: false, ellipsis: true });
      doc
        .moveTo(MARGIN, 52)
        .lineTo(width - MARGIN, 52)
        .strokeColor('#999999')
        .lineWidth(0.5)
        .stroke();
      doc.fontSize(8).text(`Generated ${stamp}`, MARGIN, height - 40, { lineBreak: false });
      doc.text(`page ${i + 1} of ${count}`, MARGIN, height - 40, { width: width - 2 * MARGIN, align: 'right', lineBreak: false });
      margins.bottom = savedBottom;
    }
    doc.end();
    return doc;
  }

  /** Draws the image of `bytes` (opened and embedded on its first use); false when pdfkit cannot read it. */
  private draw(bytes: Buffer, x: number, y: number, fit: [number, number]): boolean {
    let image = this.opened.get(bytes);
    if (image === null) return false;
    try {
      // doc.image() takes an opened image too (it looks for width and height); the typings only name the sources
      image ??= (this.doc as unknown as { openImage(src: Buffer): OpenedImage }).openImage(bytes);
      this.opened.set(bytes, image);
      this.doc.image(image as Buffer, x, y, { fit });
      return true;
    } catch {
      this.opened.set(bytes, null);
      return false;
    }
  }

  private ensureRoom(points: number): void {
    if (this.doc.y + points > this.doc.page.height - this.doc.page.margins.bottom) this.doc.addPage();
  }
}
