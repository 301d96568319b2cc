import { DOMImplementation, DOMParser, XMLSerializer, type Element } from '@xmldom/xmldom';

/**
 * XLIFF 2.0 (OASIS, urn:oasis:names:tc:xliff:document:2.0) as translators'
 * tools read and write it, for one file of plain-text units: each unit one
 * segment with a source, maybe a target, a `state`, and notes. The XML itself
 * is @xmldom/xmldom's (a W3C DOM parser and serializer, strict in 0.9): the
 * texts must come back byte for byte, which is what this module adds —
 * `xml:space="preserve"` on every unit (a tool may otherwise collapse a
 * Markdown body's spaces), carriage returns written as `&#13;` (a conforming
 * parser turns a literal CR LF into LF), no inline codes (the texts are plain
 * text, Markdown included), and units never split (`canResegment="no"`).
 * Reading takes what tools legitimately do with a file: units inside groups,
 * a unit in several segments (their texts joined in order), CDATA, comments.
 * (The `xliff` npm package was measured and rejected: it drops a text's
 * trailing newline and whatever follows it, and turns a literal `&amp;` into
 * `&`; see docs/decisions/0009-translations-beside-the-version.md.)
 */

export const XLIFF_NAMESPACE = 'urn:oasis:names:tc:xliff:document:2.0';
/** XLIFF 2.1 and 2.2 keep 2.0's core: a file a tool wrote in them reads the same. */
const READABLE_VERSIONS = new Set(['2.0', '2.1', '2.2']);

export type XliffState = 'initial' | 'translated' | 'reviewed' | 'final';
const STATES: ReadonlySet<string> = new Set<XliffState>(['initial', 'translated', 'reviewed', 'final']);

export interface XliffUnit {
  id: string;
  source: string;
  /** absent: no <target> element */
  target?: string;
  /** the segment's state; absent on reading when the file gives none (XLIFF's default is initial) */
  state?: XliffState;
  /** written as the unit's one note (what the text is, why it is stale) */
  note?: string;
}

export interface XliffDocument {
  sourceLanguage: string;
  targetLanguage?: string;
  fileId: string;
  units: XliffUnit[];
}

/** A file that is not well-formed XML or not XLIFF 2.0; the message says what, for the person who sent it. */
export class XliffError extends Error {}

export function writeXliff(doc: XliffDocument): string {
  const xml = new DOMImplementation().createDocument(XLIFF_NAMESPACE, 'xliff', null);
  const root = xml.documentElement!;
  root.setAttribute('version', '2.0');
  root.setAttribute('srcLang', doc.sourceLanguage);
  if (doc.targetLanguage) root.setAttribute('trgLang', doc.targetLanguage);
  const element = (parent: Element, name: string, depth: number, attributes: Record<string, string> = {}, text?: string): Element => {
    // indentation between elements only: never inside a source or target, whose text is the content
    parent.appendChild(xml.createTextNode(`\n${'  '.repeat(depth)}`));
    const child = xml.createElementNS(XLIFF_NAMESPACE, name);
    for (const [key, value] of Object.entries(attributes)) child.setAttribute(key, value);
    if (text !== undefined) child.appendChild(xml.createTextNode(text));
    parent.appendChild(child);
    return child;
  };
  const closing = (parent: Element, depth: number) => parent.appendChild(xml.createTextNode(`\n${'  '.repeat(depth)}`));
  const file = element(root, 'file', 1, { id: doc.fileId });
  for (const unit of doc.units) {
    const el = element(file, 'unit', 2, { id: unit.id, canResegment: 'no' });
    el.setAttributeNS('http://www.w3.org/XML/1998/namespace', 'xml:space', 'preserve');
    if (unit.note !== undefined) {
      const notes = element(el, 'notes', 3);
      element(notes, 'note', 4, {}, unit.note);
      closing(notes, 3);
    }
    const segment = element(el, 'segment', 3, unit.state ? { state: unit.state } : {});
    element(segment, 'source', 4, {}, unit.source);
    if (unit.target !== undefined) element(segment, 'target', 4, {}, unit.target);
    closing(segment, 3);
    closing(el, 2);
  }
  closing(file, 1);
  closing(root, 0);
  // the serializer escapes & < > in texts; a CR it leaves as is, and a parser would read CR LF as LF
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(xml).replace(/\r/g, '&#13;')}\n`;
}

/** @throws XliffError */
export function readXliff(text: string): XliffDocument {
  // XLIFF needs no DTD; one could declare entities (external ones, or a billion laughs): refused before parsing
  if (/<!DOCTYPE/i.test(text)) throw new XliffError('a DOCTYPE is not allowed');
  let xml;
  try {
    xml = new DOMParser({
      onError(level, message) {
        if (level !== 'warning') throw new XliffError(message.replace(/\s+/g, ' ').trim());
      },
    }).parseFromString(text, 'text/xml');
  } catch (error) {
    if (error instanceof XliffError) throw error;
    throw new XliffError(error instanceof Error ? error.message.replace(/\s+/g, ' ').trim() : 'not well-formed XML');
  }
  const root = xml.documentElement;
  if (!root || root.localName !== 'xliff' || root.namespaceURI !== XLIFF_NAMESPACE)
    throw new XliffError(`the root element must be <xliff> in the namespace ${XLIFF_NAMESPACE}`);
  const version = root.getAttribute('version') ?? '';
  if (!READABLE_VERSIONS.has(version)) throw new XliffError(`version "${version}" is not XLIFF 2.0`);
  const files = children(root, 'file');
  if (files.length !== 1) throw new XliffError(`expected one <file>, found ${files.length}`);
  const file = files[0];
  const units: XliffUnit[] = [];
  for (const unit of descendants(file, 'unit')) {
    const id = unit.getAttribute('id');
    if (!id) throw new XliffError('a <unit> without an id');
    // a unit's text is its segments' (and ignorables') in order; a tool may have split it
    const parts = Array.from(unit.childNodes).filter(
      (n): n is Element => isElement(n) && (n.localName === 'segment' || n.localName === 'ignorable'),
    );
    if (parts.length === 0) throw new XliffError(`unit "${id}" has no <segment>`);
    let source = '';
    let target: string | undefined;
    let state: XliffState | undefined;
    for (const part of parts) {
      const [src] = children(part, 'source');
      if (!src) throw new XliffError(`unit "${id}": a segment without a <source>`);
      source += src.textContent ?? '';
      const [trg] = children(part, 'target');
      if (trg) target = (target ?? '') + (trg.textContent ?? '');
      if (part.localName === 'segment') {
        const own = part.getAttribute('state');
        if (own && !STATES.has(own)) throw new XliffError(`unit "${id}": state "${own}" is not an XLIFF 2.0 state`);
        // the least advanced segment's state is the unit's: one untranslated part leaves the unit untranslated
        const value = (own || 'initial') as XliffState;
        if (state === undefined || order(value) < order(state)) state = value;
      }
    }
    units.push({ id, source, ...(target !== undefined && { target }), ...(state !== undefined && { state }) });
  }
  return {
    sourceLanguage: root.getAttribute('srcLang') ?? '',
    ...(root.hasAttribute('trgLang') && { targetLanguage: root.getAttribute('trgLang')! }),
    fileId: file.getAttribute('id') ?? '',
    units,
  };
}

const order = (state: XliffState) => ['initial', 'translated', 'reviewed', 'final'].indexOf(state);
const isElement = (node: { nodeType: number }): node is Element => node.nodeType === 1;
function children(parent: Element, name: string): Element[] {
  return Array.from(parent.childNodes).filter(
    (n): n is Element => isElement(n) && n.localName === name && n.namespaceURI === XLIFF_NAMESPACE,
  );
}
function descendants(parent: Element, name: string): Element[] {
  return Array.from(parent.getElementsByTagNameNS(XLIFF_NAMESPACE, name));
}
