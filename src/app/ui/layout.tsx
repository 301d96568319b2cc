import type { ComponentChildren, HTMLAttributes } from 'preact';
import { useT } from '../i18n';
import { ApiError } from '../api/client';

/** A page's heading (the one h1, which the shell focuses after a navigation) and its actions. */
export function PageHeader({
  title,
  subtitle,
  actions,
}: {
  title: ComponentChildren;
  subtitle?: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <div class="page-header">
      <div>
        <h1 tabIndex={-1} id="page-title">
          {title}
        </h1>
        {subtitle && <p class="subtitle">{subtitle}</p>}
      </div>
      {actions && <div class="actions">{actions}</div>}
    </div>
  );
}

export interface CardProps extends Omit<HTMLAttributes<HTMLElement>, 'class'> {
  /** extra class names (a plain string: they are joined into the element's class) */
  class?: string;
  /** a heading of the card (h2), naming the region */
  heading?: ComponentChildren;
  headingLevel?: 2 | 3;
  children?: ComponentChildren;
}

export function Card({ heading, headingLevel = 2, children, class: extra, ...rest }: CardProps) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section {...rest} class={['card', extra ?? ''].filter(Boolean).join(' ')}>
      {heading && <Heading class="card-heading">{heading}</Heading>}
      {children}
    </section>
  );
}

export type Tone = 'neutral' | 'info' | 'success' | 'warning' | 'danger';

/** A short state or count; its meaning is in the text, never in the colour alone. */
export function Badge({ tone = 'neutral', children }: { tone?: Tone; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

export function EmptyState({
  title,
  children,
  action,
}: {
  title: ComponentChildren;
  children?: ComponentChildren;
  action?: ComponentChildren;
}) {
  return (
    <div class="empty-state">
      <p class="empty-title">{title}</p>
      {children && <p>{children}</p>}
      {action}
    </div>
  );
}

/** A message in the page: errors as alerts (read at once), the rest as status. */
export function Notice({ tone = 'info', children }: { tone?: Tone; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${tone}`} role={tone === 'danger' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** The text to show for a failure: the API's message, or the app's own for "no connection". */
export function useErrorText(): (error: unknown) => string {
  const t = useT();
  return (error) => {
    if (error instanceof ApiError) return error.offline ? t('shell.error.offline') : error.message;
    return error instanceof Error ? error.message : String(error);
  };
}

export function ErrorNotice({ error }: { error: unknown }) {
  const text = useErrorText();
  return <Notice tone="danger">{text(error)}</Notice>;
}

export function Loading({ label }: { label?: string }) {
  const t = useT();
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {label ?? t('shell.loading')}
    </p>
  );
}
