import type { ComponentChildren } from 'preact';
import { useId, useRef } from 'preact/hooks';

export interface Tab {
  id: string;
  label: ComponentChildren;
}

/**
 * Tabs (WAI-ARIA tabs pattern): one tab stop, arrow keys / Home / End move
 * between tabs, the panel is labelled by its tab. Controlled: the caller keeps
 * the selected id.
 */
export function Tabs({
  tabs,
  selected,
  onSelect,
  label,
  children,
}: {
  tabs: Tab[];
  selected: string;
  onSelect: (id: string) => void;
  label: string;
  children: ComponentChildren;
}) {
  const base = useId();
  const list = useRef<HTMLDivElement>(null);
  const move = (event: KeyboardEvent) => {
    const index = tabs.findIndex((tab) => tab.id === selected);
    const next =
      event.key === 'ArrowRight'
        ? (index + 1) % tabs.length
        : event.key === 'ArrowLeft'
          ? (index - 1 + tabs.length) % tabs.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? tabs.length - 1
              : -1;
    if (next < 0) return;
    event.preventDefault();
    onSelect(tabs[next].id);
    queueMicrotask(() => list.current?.querySelectorAll<HTMLElement>('[role=tab]')[next]?.focus());
  };
  return (
    <div class="tabs">
      <div role="tablist" aria-label={label} ref={list} onKeyDown={move}>
        {tabs.map((tab) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={`${base}-tab-${tab.id}`}
            aria-selected={tab.id === selected ? 'true' : 'false'}
            aria-controls={`${base}-panel`}
            tabIndex={tab.id === selected ? 0 : -1}
            onClick={() => onSelect(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${base}-panel`} aria-labelledby={`${base}-tab-${selected}`} tabIndex={0}>
        {children}
      </div>
    </div>
  );
}
