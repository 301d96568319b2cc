import type { ButtonHTMLAttributes, ComponentChildren, LooseAnchorHTMLAttributes } from 'preact';

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'ghost';

export interface ButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type' | 'class'> {
  /** extra class names (a plain string: they are joined into the element's class) */
  class?: string;
  variant?: ButtonVariant;
  /** large: the operator's one-hand buttons (56 px); default 44 px, the smallest touch target */
  size?: 'normal' | 'large';
  /** busy: disabled, with a spinner and aria-busy (a double tap sends nothing twice) */
  busy?: boolean;
  type?: 'button' | 'submit' | 'reset';
  children?: ComponentChildren;
}

/** A button of at least 44 × 44 px, visible focus, variants by meaning. */
export function Button({
  variant = 'secondary',
  size = 'normal',
  busy = false,
  type = 'button',
  class: extra,
  disabled,
  children,
  ...rest
}: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      class={['btn', `btn-${variant}`, size === 'large' ? 'btn-large' : '', extra ?? ''].filter(Boolean).join(' ')}
      disabled={disabled || busy}
      aria-busy={busy ? 'true' : undefined}
    >
      {busy && <span class="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}

export interface LinkButtonProps extends Omit<LooseAnchorHTMLAttributes<HTMLAnchorElement>, 'class'> {
  /** extra class names (a plain string: they are joined into the element's class) */
  class?: string;
  href: string;
  variant?: ButtonVariant;
  size?: 'normal' | 'large';
  children?: ComponentChildren;
}

/** A link that looks like a button (navigation, not an action). */
export function LinkButton({ variant = 'secondary', size = 'normal', class: extra, children, ...rest }: LinkButtonProps) {
  return (
    // the rest of an anchor's attributes, spread untyped: preact's types narrow `role` per element
    <a {...(rest as object)} class={['btn', `btn-${variant}`, size === 'large' ? 'btn-large' : '', extra ?? ''].filter(Boolean).join(' ')}>
      {children}
    </a>
  );
}
