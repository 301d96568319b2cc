import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Tone } from './layout';

/**
 * Short messages after an action ("Job created"), in one polite live region
 * the shell renders once (<Toasts/>); any code calls toast(). A toast with an
 * action stays until dismissed (the service worker's "new version" one).
 * They never pile up: the same text again replaces the one shown, and at
 * most MAX_SHOWN show at once (the oldest without an action gives way).
 * A toast that times out waits while the pointer is on it or the focus is in
 * it (WCAG 2.2.1): an author reaching "Undo" by keyboard does not lose it.
 */
export interface ToastMessage {
  id: number;
  tone: Tone;
  text: ComponentChildren;
  action?: { label: string; run(): void };
  /** ms; 0 keeps it until dismissed */
  duration: number;
}

const MAX_SHOWN = 3;

/** a running toast's timer: what is left of its time while it waits (held) */
interface Timer {
  handle: ReturnType<typeof setTimeout> | null;
  endsAt: number;
  remaining: number;
}
/** what is left when a held toast goes on: at least enough to reach its button again */
const MIN_AFTER_HOLD = 2000;

let next = 1;
const timers = new Map<number, Timer>();
let messages: ToastMessage[] = [];
const listeners = new Set<(messages: ToastMessage[]) => void>();

function publish(): void {
  for (const listener of listeners) listener(messages);
}

export function toast(text: ComponentChildren, options: { tone?: Tone; action?: ToastMessage['action']; duration?: number } = {}): number {
  const message: ToastMessage = {
    id: next++,
    tone: options.tone ?? 'success',
    text,
    action: options.action,
    duration: options.duration ?? (options.action ? 0 : 5000),
  };
  const kept = messages.filter((m) => typeof text !== 'string' || m.text !== text);
  while (kept.length >= MAX_SHOWN)
    kept.splice(
      Math.max(
        0,
        kept.findIndex((m) => !m.action),
      ),
      1,
    );
  messages = [...kept, message];
  publish();
  if (message.duration > 0) run(message.id, message.duration);
  return message.id;
}

function run(id: number, ms: number): void {
  timers.set(id, { handle: setTimeout(() => dismiss(id), ms), endsAt: Date.now() + ms, remaining: ms });
}

/** The pointer or the focus came to the toast: its time stands still. */
function hold(id: number): void {
  const timer = timers.get(id);
  if (!timer?.handle) return;
  clearTimeout(timer.handle);
  timers.set(id, { handle: null, endsAt: timer.endsAt, remaining: Math.max(timer.endsAt - Date.now(), MIN_AFTER_HOLD) });
}

/** The pointer and the focus left it: its time goes on. */
function release(id: number): void {
  const timer = timers.get(id);
  if (timer && !timer.handle) run(id, timer.remaining);
}

export function dismiss(id: number): void {
  const timer = timers.get(id);
  if (timer?.handle) clearTimeout(timer.handle);
  timers.delete(id);
  messages = messages.filter((m) => m.id !== id);
  publish();
}

export function Toasts({ dismissLabel }: { dismissLabel: string }) {
  const [shown, setShown] = useState(messages);
  useEffect(() => {
    listeners.add(setShown);
    return () => void listeners.delete(setShown);
  }, []);
  return (
    <div class="toasts" role="status" aria-live="polite">
      {shown.map((message) => (
        <div
          key={message.id}
          class={`toast toast-${message.tone}`}
          onMouseEnter={() => hold(message.id)}
          onMouseLeave={(e) => !e.currentTarget.contains(document.activeElement) && release(message.id)}
          onFocusIn={() => hold(message.id)}
          onFocusOut={(e) =>
            !e.currentTarget.contains(e.relatedTarget as Node | null) && !e.currentTarget.matches(':hover') && release(message.id)
          }
        >
          <span>{message.text}</span>
          {message.action && (
            <button type="button" class="btn btn-primary" onClick={() => message.action!.run()}>
              {message.action.label}
            </button>
          )}
          <button type="button" class="btn btn-ghost icon-only" aria-label={dismissLabel} onClick={() => dismiss(message.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
