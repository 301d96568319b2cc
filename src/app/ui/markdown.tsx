import type { ComponentChildren } from 'preact';
import { parseBlocks, parseInline } from './markdown-parse';

/**
 * A step's text as Markdown: the blocks the template PDF renders
 * (src/lib/pdf.ts: headings, paragraphs, bullet and numbered lists, rules)
 * and the inline marks it reduces to text there (bold, italic, code, links),
 * shown here as marks. Built as elements, never as HTML: an author's text
 * cannot inject markup, and the strict CSP needs no exception.
 */

function InlineText({ text }: { text: string }) {
  return (
    <>
      {parseInline(text).map((part) => {
        if (typeof part === 'string') return part;
        switch (part.mark) {
          case 'strong':
            return <strong>{part.text}</strong>;
          case 'em':
            return <em>{part.text}</em>;
          case 'code':
            return <code>{part.text}</code>;
          case 'link':
            return (
              <a href={part.href} rel="noopener noreferrer" target="_blank">
                {part.text}
              </a>
            );
        }
      })}
    </>
  );
}

/** Step text rendered; `headingBase` shifts heading levels under the page's own (a step title is an h2 or h3). */
export function Markdown({ text, headingBase = 3 }: { text: string; headingBase?: number }) {
  const blocks = parseBlocks(text);
  if (blocks.length === 0) return null;
  return (
    <div class="markdown">
      {blocks.map((block): ComponentChildren => {
        switch (block.type) {
          case 'heading': {
            const level = Math.min(6, headingBase + block.level - 1);
            const Tag = `h${level}` as 'h3';
            return (
              <Tag>
                <InlineText text={block.text} />
              </Tag>
            );
          }
          case 'list': {
            const items = block.items.map((item) => (
              <li>
                <InlineText text={item} />
              </li>
            ));
            return block.ordered ? <ol start={block.start}>{items}</ol> : <ul>{items}</ul>;
          }
          case 'rule':
            return <hr />;
          case 'paragraph':
            return (
              <p>
                <InlineText text={block.text} />
              </p>
            );
        }
      })}
    </div>
  );
}
