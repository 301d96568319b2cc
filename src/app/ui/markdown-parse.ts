/**
 * Markdown of a step's text, parsed: the blocks the template PDF renders
 * (src/lib/pdf.ts: headings, paragraphs, bullet and numbered lists, rules)
 * and the inline marks it reduces to text there (bold, italic, code, links).
 * No DOM here: Markdown.tsx renders these as elements, for the author's preview and the operator's step alike.
 */

export type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'list'; ordered: boolean; items: string[]; start: number }
  | { type: 'rule' }
  | { type: 'paragraph'; text: string };

/** The same block rules as the PDF (src/lib/pdf.ts blocks()), with consecutive items grouped into lists. */
export function parseBlocks(markdown: string): Block[] {
  const out: Block[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) out.push({ type: 'paragraph', text: paragraph.join(' ') });
    paragraph = [];
  };
  const item = (ordered: boolean, text: string, number: number) => {
    flush();
    const last = out.at(-1);
    if (last?.type === 'list' && last.ordered === ordered) last.items.push(text);
    else out.push({ type: 'list', ordered, items: [text], start: number });
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
    } else if ((m = /^[-*+]\s+(.*)$/.exec(line))) item(false, m[1], 1);
    else if ((m = /^(\d{1,4})[.)]\s+(.*)$/.exec(line))) item(true, m[2], Number(m[1]));
    else paragraph.push(line);
  }
  flush();
  return out;
}

export type Inline = string | { mark: 'strong' | 'em' | 'code'; text: string } | { mark: 'link'; text: string; href: string };

const INLINE = /(`[^`]+`)|(\*\*|__)(.+?)\2|(\*|_)(.+?)\4|\[([^\]]+)\]\(([^)\s]+)[^)]*\)|!\[([^\]]*)\]\([^)]*\)/g;

/** Inline marks of one block's text; links only to http(s) or mailto addresses. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(unescape(text.slice(last, m.index)));
    if (m[1]) out.push({ mark: 'code', text: m[1].slice(1, -1) });
    else if (m[2]) out.push({ mark: 'strong', text: unescape(m[3]) });
    else if (m[4]) out.push({ mark: 'em', text: unescape(m[5]) });
    else if (m[6]) out.push(/^(https?:|mailto:)/i.test(m[7]) ? { mark: 'link', text: unescape(m[6]), href: m[7] } : unescape(m[6]));
    else out.push(unescape(m[8] ?? ''));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(unescape(text.slice(last)));
  return out;
}

const unescape = (text: string) => text.replace(/\\([\\`*_{}[\]()#+\-.!])/g, '$1');
