import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { useT } from '../i18n';

/**
 * A modal dialog on the native <dialog> (showModal): the browser keeps focus
 * inside and makes the page behind inert, Escape closes it; focus returns to
 * what opened it. `open` is controlled by the caller.
 */
export function Dialog({
  open,
  title,
  onClose,
  children,
  actions,
}: {
  open: boolean;
  title: ComponentChildren;
  onClose: () => void;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      const opener = document.activeElement as HTMLElement | null;
      dialog.showModal();
      return () => opener?.focus();
    }
    if (!open && dialog.open) dialog.close();
    return undefined;
  }, [open]);
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby={`d${titleId}`}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {open && (
        <>
          <div class="dialog-head">
            <h2 id={`d${titleId}`}>{title}</h2>
            <button type="button" class="btn btn-ghost icon-only" onClick={onClose} aria-label={t('shell.dialog.close')}>
              ×
            </button>
          </div>
          <div class="dialog-body">{children}</div>
          {actions && <div class="dialog-actions">{actions}</div>}
        </>
      )}
    </dialog>
  );
}
