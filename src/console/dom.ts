/** A tiny DOM helper: h('tag.class', {attributes, on…}, children). No framework, no innerHTML. */

type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, unknown>;

/** An attribute's value as text, once listeners and absent values are handled: form values (text, numbers, lists). */
function attrText(value: unknown): string {
  const text = value as string | number | boolean | string[];
  return String(text);
}

export function h<K extends keyof HTMLElementTagNameMap>(
  spec: K | `${K}.${string}`,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const [tag, ...classes] = spec.split('.');
  const element = document.createElement(tag as K);
  if (classes.length) element.className = classes.join(' ');
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2), value as EventListener);
    else if (key === 'value' && element instanceof HTMLInputElement)
      element.setAttribute('value', attrText(value)); // also what form.reset() restores
    else if (key === 'value' && 'value' in element) (element as HTMLInputElement).value = attrText(value);
    else if (key === 'checked') (element as HTMLInputElement).checked = Boolean(value);
    else element.setAttribute(key, value === true ? '' : attrText(value));
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let ids = 0;
export const uniqueId = (prefix: string) => `${prefix}-${++ids}`;

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}
