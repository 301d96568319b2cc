import type { ComponentChildren, VNode } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useT } from '../../i18n';

/**
 * A list whose items the author reorders by dragging a handle (mouse, pen or
 * touch: pointer events, so tablets work too) or with the keyboard alone:
 * focus the handle, Space or Enter picks the item up, the arrow keys move it,
 * Space or Enter drops it, Escape puts it back. Every move is announced
 * through the page's live region (`announce`), so a screen-reader user hears
 * where the item went.
 */
export interface ReorderProps<T> {
  items: readonly T[];
  keyOf: (item: T) => string;
  /** what the item is called in announcements and on its handle ("Step 2: Read the pressure") */
  nameOf: (item: T, index: number) => string;
  onMove: (from: number, to: number) => void;
  announce: (message: string) => void;
  render: (item: T, index: number, handle: VNode) => ComponentChildren;
  /** the list's accessible name */
  label: string;
  class?: string;
}

export function Reorder<T>(props: ReorderProps<T>) {
  const t = useT();
  const { items, keyOf, nameOf, onMove, announce, render, label } = props;
  const [grabbed, setGrabbed] = useState<{ key: string; from: number } | null>(null);
  const [dragging, setDragging] = useState<{ key: string; over: number } | null>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const refocus = useRef<string | null>(null);

  // after a move the item re-renders elsewhere: keep the keyboard focus on its handle
  useEffect(() => {
    if (!refocus.current || !listRef.current) return;
    const handle = listRef.current.querySelector<HTMLButtonElement>(`[data-reorder-key="${CSS.escape(refocus.current)}"]`);
    refocus.current = null;
    handle?.focus();
  });

  const position = (index: number) => t('author.reorder.position', { position: index + 1, count: items.length });

  function onKeyDown(event: KeyboardEvent, item: T, index: number) {
    const key = keyOf(item);
    const isGrabbed = grabbed?.key === key;
    if (event.key === ' ' || event.key === 'Enter') {
      event.preventDefault();
      if (isGrabbed) {
        setGrabbed(null);
        announce(t('author.reorder.dropped', { name: nameOf(item, index), position: position(index) }));
      } else {
        setGrabbed({ key, from: index });
        announce(t('author.reorder.grabbed', { name: nameOf(item, index), position: position(index) }));
      }
    } else if (isGrabbed && (event.key === 'ArrowUp' || event.key === 'ArrowDown')) {
      event.preventDefault();
      const to = event.key === 'ArrowUp' ? index - 1 : index + 1;
      if (to < 0 || to >= items.length) {
        announce(t(to < 0 ? 'author.reorder.atTop' : 'author.reorder.atBottom', { name: nameOf(item, index) }));
        return;
      }
      refocus.current = key;
      onMove(index, to);
      announce(t('author.reorder.moved', { name: nameOf(item, to), position: position(to) }));
    } else if (isGrabbed && event.key === 'Escape') {
      event.preventDefault();
      refocus.current = key;
      if (grabbed.from !== index) onMove(index, grabbed.from);
      setGrabbed(null);
      announce(t('author.reorder.cancelled', { name: nameOf(item, grabbed.from), position: position(grabbed.from) }));
    }
  }

  /** The index the pointer is over: the item whose middle is below the pointer, else the last. */
  function indexAt(clientY: number): number {
    const rows = [...(listRef.current?.children ?? [])] as HTMLElement[];
    for (let i = 0; i < rows.length; i++) {
      const rect = rows[i].getBoundingClientRect();
      if (clientY < rect.top + rect.height / 2) return i;
    }
    return Math.max(0, rows.length - 1);
  }

  function onPointerDown(event: PointerEvent, item: T, index: number) {
    if (event.button !== 0) return;
    const handle = event.currentTarget as HTMLElement;
    handle.setPointerCapture(event.pointerId);
    const key = keyOf(item);
    const startY = event.clientY;
    let over = index;
    let moving = false;
    const move = (e: PointerEvent) => {
      if (!moving && Math.abs(e.clientY - startY) < 4) return;
      moving = true;
      over = indexAt(e.clientY);
      setDragging({ key, over });
    };
    const up = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      handle.removeEventListener('pointercancel', up);
      setDragging(null);
      if (moving && over !== index) {
        onMove(index, over);
        announce(
          t('author.reorder.dropped', {
            name: nameOf(item, over),
            position: t('author.reorder.position', { position: over + 1, count: items.length }),
          }),
        );
      }
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
    handle.addEventListener('pointercancel', up);
  }

  return (
    <ol class={`reorder ${props.class ?? ''}`} aria-label={label} ref={listRef}>
      {items.map((item, index) => {
        const key = keyOf(item);
        const isGrabbed = grabbed?.key === key;
        const handle = (
          <button
            type="button"
            class={`grab${isGrabbed ? ' grabbed' : ''}`}
            data-reorder-key={key}
            aria-label={t('author.reorder.handle', { name: nameOf(item, index) })}
            aria-pressed={isGrabbed}
            aria-describedby="author-reorder-help"
            onKeyDown={(e) => onKeyDown(e, item, index)}
            onPointerDown={(e) => onPointerDown(e, item, index)}
            onBlur={() => {
              // a keyed move re-inserts the focused handle (a blur): only a real leave drops the item
              if (isGrabbed && refocus.current !== key) setGrabbed(null);
            }}
          >
            <span aria-hidden="true">⠿</span>
          </button>
        );
        const classes = [
          'reorder-item',
          isGrabbed ? 'is-grabbed' : '',
          dragging?.key === key ? 'is-dragging' : '',
          dragging && dragging.key !== key && dragging.over === index ? 'drop-target' : '',
        ];
        return (
          <li key={key} class={classes.filter(Boolean).join(' ')}>
            {render(item, index, handle)}
          </li>
        );
      })}
    </ol>
  );
}

/** The instructions every handle points to (aria-describedby), once per page. */
export function ReorderHelp() {
  const t = useT();
  return (
    <p id="author-reorder-help" class="visually-hidden">
      {t('author.reorder.help')}
    </p>
  );
}
