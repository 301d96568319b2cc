import type { ComponentChildren } from 'preact';

/**
 * A step's text (the Markdown the PDFs render) as Preact elements: headings,
 * paragraphs, bullet and numbered lists, rules; bold, italic, code and links
 * inline. Built as elements, never as HTML text, so nothing an author writes
 * can become markup or script; a link keeps only an http(s), mailto or
 * same-origin address (anything else is shown as its text).
 */
type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'paragraph'; text: string }
  | { type: 'list'; ordered: boolean; items: string[] }
  | { type: 'rule' };

function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) out.push({ type: 'paragraph', text: paragraph.join(' ') });
    paragraph = [];
  };
  const item = (ordered: boolean, text: string) => {
    flush();
    const last = out[out.length - 1];
    if (last?.type === 'list' && last.ordered === ordered) last.items.push(text);
    else out.push({ type: 'list', ordered, items: [text] });
  };
  for (const raw of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trim();
    let m: RegExpExecArray | null;
    if (!line) flush();
    else if ((m = /^(#{1,6})\s+(.*?)\s*#*$/.exec(line))) {
      flush();
      out.push({ type: 'heading', level: m[1]!.length, text: m[2]! });
    } else if (/^([-*_])(\s*\1){2,}$/.test(line)) {
      flush();
      out.push({ type: 'rule' });
    } else if ((m = /^[-*+]\s+(.*)$/.exec(line))) item(false, m[1]!);
    else if ((m = /^\d+[.)]\s+(.*)$/.exec(line))) item(true, m[1]!);
    else paragraph.push(line);
  }
  flush();
  return out;
}

export function safeHref(href: string): string | undefined {
  if (/^(https?:|mailto:)/i.test(href)) return href;
  if (href.startsWith('/') && !href.startsWith('//')) return href;
  return undefined;
}

const INLINE = /(\*\*|__)(.+?)\1|(\*|_)(.+?)\3|`([^`]+)`|!?\[([^\]]+)\]\(([^)\s]+)[^)]*\)/g;

function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index! > last) out.push(unescape(text.slice(last, m.index)));
    if (m[2] !== undefined) out.push(<strong>{inline(m[2])}</strong>);
    else if (m[4] !== undefined) out.push(<em>{inline(m[4])}</em>);
    else if (m[5] !== undefined) out.push(<code>{m[5]}</code>);
    else if (m[6] !== undefined) {
      const href = safeHref(m[7]!);
      out.push(href ? <a href={href} rel="noopener noreferrer" target={href.startsWith('/') ? undefined : '_blank'}>{m[6]}</a> : m[6]);
    }
    last = m.index! + m[0].length;
  }
  if (last < text.length) out.push(unescape(text.slice(last)));
  return out;
}

const unescape = (text: string) => text.replace(/\\([\\`*_{}[\]()#+\-.!])/g, '$1');

/** `headingBase`: the level a `#` becomes (a step's title is an h2, so its text's headings start at h3). */
export function Markdown({ text, headingBase = 3 }: { text: string; headingBase?: number }) {
  return (
    <div class="markdown">
      {blocks(text).map((block, i) => {
        switch (block.type) {
          case 'heading': {
            const Tag = `h${Math.min(6, Math.max(2, headingBase + block.level - 1))}` as 'h2' | 'h3' | 'h4' | 'h5' | 'h6';
            return <Tag key={i}>{inline(block.text)}</Tag>;
          }
          case 'paragraph':
            return <p key={i}>{inline(block.text)}</p>;
          case 'list': {
            const items = block.items.map((text, j) => <li key={j}>{inline(text)}</li>);
            return block.ordered ? <ol key={i}>{items}</ol> : <ul key={i}>{items}</ul>;
          }
          case 'rule':
            return <hr key={i} />;
        }
      })}
    </div>
  );
}
