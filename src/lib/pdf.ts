import type { Readable } from 'node:stream';

type PdfKit = typeof import('pdfkit');
let pdfkit: PdfKit | undefined;

/**
 * pdfkit (with fontkit and its font tables) is loaded on the first PDF
 * rendered, not at start-up: most processes never render one. In the single
 * executable the same require is served from the bundle, where
 * scripts/build-binary.ts has embedded pdfkit's standard-font metrics and ICC
 * profile (pdfkit would otherwise read them from beside its module).
 */
export function loadPdfKit(): PdfKit {
  pdfkit ??= require('pdfkit') as PdfKit;
  return pdfkit;
}

/**
 * Renders an agreement's Markdown as a PDF stream (pdfkit does the PDF writing).
 * Agreements are legal prose, so the Markdown that matters is block-level:
 * headings, paragraphs, bullet and numbered lists, rules. Inline markup is
 * reduced to its text (links keep their address in parentheses).
 */
export function renderMarkdownPdf(title: string, markdown: string, info: { subject?: string } = {}): Readable {
  const PDFDocument = loadPdfKit();
  const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: title, Subject: info.subject ?? title } });
  doc.font('Helvetica-Bold').fontSize(18).text(plain(title));
  doc.moveDown(0.8);
  for (const block of blocks(markdown)) {
    switch (block.type) {
      case 'heading':
        doc
          .moveDown(0.4)
          .font('Helvetica-Bold')
          .fontSize(block.level <= 1 ? 16 : block.level === 2 ? 14 : 12)
          .text(plain(block.text));
        doc.moveDown(0.3);
        break;
      case 'item':
        doc
          .font('Helvetica')
          .fontSize(11)
          .text(`${block.marker} ${plain(block.text)}`, { indent: 12 });
        break;
      case 'rule':
        doc.moveDown(0.5);
        doc
          .moveTo(doc.page.margins.left, doc.y)
          .lineTo(doc.page.width - doc.page.margins.right, doc.y)
          .stroke();
        doc.moveDown(0.5);
        break;
      case 'paragraph':
        doc.font('Helvetica').fontSize(11).text(plain(block.text), { align: 'left' });
        doc.moveDown(0.6);
        break;
    }
  }
  doc.end();
  return doc;
}

type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'item'; marker: string; text: string }
  | { type: 'rule' }
  | { type: 'paragraph'; text: string };

function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) out.push({ type: 'paragraph', text: paragraph.join(' ') });
    paragraph = [];
  };
  for (const raw of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trim();
    let m: RegExpExecArray | null;
    if (!line) flush();
    else if ((m = /^(#{1,6})\s+(.*?)\s*#*$/.exec(line))) {
      flush();
      out.push({ type: 'heading', level: m[1].length, text: m[2] });
    } else if (/^([-*_])(\s*\1){2,}$/.test(line)) {
      flush();
      out.push({ type: 'rule' });
    } else if ((m = /^[-*+]\s+(.*)$/.exec(line))) {
      flush();
      out.push({ type: 'item', marker: '•', text: m[1] });
    } else if ((m = /^(\d{1,4})[.)]\s+(.*)$/.exec(line))) {
      flush();
      out.push({ type: 'item', marker: `${m[1]}.`, text: m[2] });
    } else paragraph.push(line);
  }
  flush();
  return out;
}

/** Inline Markdown → text. */
export function plain(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\(([^)\s]+)[^)]*\)/g, '$1 ($2)')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(\*|_)(.+?)\1/g, '$2')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!])/g, '$1');
}
