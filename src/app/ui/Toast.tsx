import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Tone } from './layout';

/**
 * Short messages after an action ("Job created"), in one polite live region
 * the shell renders once (<Toasts/>); any code calls toast(). A toast with an
 * action stays until dismissed (the service worker's "new version" one).
 * They never pile up: the same text again replaces the one shown, and at
 * most MAX_SHOWN show at once (the oldest without an action gives way).
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

let next = 1;
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
  if (message.duration > 0) setTimeout(() => dismiss(message.id), message.duration);
  return message.id;
}

export function dismiss(id: number): void {
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
        <div key={message.id} class={`toast toast-${message.tone}`}>
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
