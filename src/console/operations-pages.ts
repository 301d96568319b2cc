import { api, ApiError, query, type Answer, type ErrorBody, type Item } from './api';
import { formatBytes, formatDate, h } from './dom';
import { facts, form, pagedTable, progress, run, section, textOf } from './ui';

/**
 * The operations pages of a system administrator: security events, the mail
 * outbox, backups, and the live tail and export of the logs page.
 */

type Filters = Record<string, string>;
type LogItem = Item<'GET', '/api/admin/logs'>;
const iso = (v: string) => (v ? new Date(v).toISOString() : '');

const ACTOR_KINDS: Record<string, string> = { admin: 'System administrator', user: 'User', cli: 'Command line', system: 'System' };

/**
 * Who did it, by name: "System administrator admin", "User Jane Roe
 * <jane@example.com>", "Command line root" (the OS user); "—" when nobody
 * is known (a failed sign-in: the account tried is in the message).
 */
export function whoOf(l: { actor?: { kind: string; id: number | null; name: string | null } | null }): string {
  const actor = l.actor;
  if (!actor) return '—';
  const kind = ACTOR_KINDS[actor.kind] ?? actor.kind;
  return `${kind} ${actor.name ?? `#${actor.id}`}`;
}

/** An administrative change's fields, "name: Old → New"; credentials only as changed. */
function changesOf(l: { data?: { changes?: Record<string, unknown> } }): string {
  const changes = l.data?.changes;
  if (!changes || typeof changes !== 'object') return '';
  const show = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));
  return Object.entries(changes)
    .map(([field, c]) =>
      c && typeof c === 'object' && 'after' in c
        ? `${field}: ${show('before' in c ? c.before : undefined)} → ${show(c.after)}`
        : `${field}: changed`,
    )
    .join('; ');
}

/** The columns of both log pages (the logs page and the security events page). */
export const logColumns = [
  { label: 'Time', cell: (l: LogItem) => formatDate(l.createdAt) },
  // second: on a phone it shows without scrolling the table sideways
  { label: 'Who', cell: (l: LogItem) => whoOf(l) },
  { label: 'Event', cell: (l: LogItem) => l.event },
  { label: 'Level', cell: (l: LogItem) => l.level },
  { label: 'Client', cell: (l: LogItem) => l.clientId ?? '—' },
  { label: 'Message', cell: (l: LogItem) => [l.message, changesOf(l)].filter(Boolean).join(' — ') },
];

export function securityEventsPage(): HTMLElement[] {
  let filters: Filters = {};
  const table = pagedTable({
    caption: 'Security events, newest first',
    load: (cursor) => api('GET', '/api/admin/logs', { query: { ...filters, category: 'security', cursor, limit: 50 } }),
    columns: [...logColumns, { label: 'IP address', cell: (l: LogItem) => l.ip ?? '—' }],
  });
  const filter = form({
    label: 'Filter security events',
    fields: [
      { name: 'event', label: 'Event', hint: 'e.g. auth.admin_sign_in, auth.sign_in_failed, client.created, license.seats_changed' },
      { name: 'clientId', label: 'Client id', type: 'number', min: 1 },
      { name: 'since', label: 'Since', type: 'datetime-local' },
      { name: 'until', label: 'Until', type: 'datetime-local' },
    ],
    submit: 'Apply filters',
    async onSubmit(values) {
      filters = {
        event: textOf(values.event),
        clientId: textOf(values.clientId),
        since: iso(textOf(values.since)),
        until: iso(textOf(values.until)),
      };
      await api('GET', '/api/admin/logs', { query: { ...filters, category: 'security', limit: 1 } }); // field errors first
      await table.reload();
    },
  });
  return [
    h(
      'p',
      {},
      'Sign-ins and their failures, lockouts, token reuse, password and two-factor changes, invitations, security settings and SSO, schedules at their job limits, license keys, backups, deleted log entries, and every administrative change (clients, seats, agreements, administrators, webhooks, translations) with who made it, from where, and what changed.',
    ),
    section('Filter', filter),
    section('Security events', table.element),
    logExportSection(() => ({ ...filters, category: 'security' })),
  ];
}

export function outboxPage(): HTMLElement[] {
  let status = 'failed';
  const table = pagedTable({
    caption: 'Outbox messages, newest first',
    load: (cursor) => api('GET', '/api/admin/mail/outbox', { query: { status, cursor, limit: 20 } }),
    columns: [
      { label: 'Created', cell: (m) => formatDate(m.createdAt) },
      { label: 'To', cell: (m) => m.to },
      { label: 'Subject', cell: (m) => m.subject },
      { label: 'Status', cell: (m) => m.status },
      { label: 'Attempts', cell: (m) => m.attempts },
      { label: 'Last error', cell: (m) => m.lastError ?? '—' },
      {
        label: 'Actions',
        cell: (m) =>
          m.status === 'failed'
            ? h(
                'button',
                {
                  type: 'button',
                  onclick: (event: Event) =>
                    run(event.currentTarget as HTMLButtonElement, async () => {
                      await api('POST', '/api/admin/mail/outbox/{id}/retry', { path: { id: m.id } });
                      await table.reload();
                      return `Message ${m.id} is queued again.`;
                    }),
                },
                `Retry message ${m.id}`,
              )
            : '—',
      },
    ],
  });
  const statusForm = form({
    label: 'Show messages',
    fields: [
      {
        name: 'status',
        label: 'Status',
        type: 'select',
        value: status,
        options: [{ value: 'failed', label: 'failed' }, 'pending', 'sent', 'stored', { value: '', label: 'any' }],
      },
    ],
    submit: 'Show',
    async onSubmit(values) {
      status = textOf(values.status);
      await table.reload();
    },
  });
  const retryAll = h(
    'button.primary',
    {
      type: 'button',
      onclick: (event: Event) =>
        run(event.currentTarget as HTMLButtonElement, async () => {
          const { requeued } = await api('POST', '/api/admin/mail/outbox/retry');
          await table.reload();
          return `${requeued} failed message(s) queued again.`;
        }),
    },
    'Retry all failed messages',
  );
  return [
    h('p', {}, 'Mail is kept here until delivered; a message fails after the configured number of attempts and stays until it is retried.'),
    section('Show', statusForm),
    section('Outbox', table.element, h('p', {}, retryAll)),
  ];
}

const PHASES: Record<string, string> = { database: 'copying the database', files: 'checking the files', archive: 'writing the archive' };

export async function backupsPage(): Promise<HTMLElement[]> {
  const table = pagedTable({
    caption: 'Backups, newest first',
    load: (cursor) => api('GET', '/api/admin/backups', { query: { cursor, limit: 20 } }),
    columns: [
      { label: 'Taken', cell: (b) => formatDate(b.createdAt) },
      { label: 'Kind', cell: (b) => b.kind },
      { label: 'Size', cell: (b) => formatBytes(b.bytes) },
      {
        label: 'File',
        cell: (b) => h('a', { href: `/api/admin/backups/${encodeURIComponent(b.name)}/download`, download: b.name }, b.name),
      },
    ],
  });
  const bar = progress('Backup progress');
  const start = h('button.primary', { type: 'button' }, 'Start a backup');
  start.addEventListener(
    'click',
    () =>
      void run(start, async () => {
        let job = await api('POST', '/api/admin/backups');
        while (job.status === 'running') {
          bar.set(job.percent, `${job.percent} % — ${job.phase ? (PHASES[job.phase] ?? job.phase) : ''}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
          job = await api('GET', '/api/admin/backups/jobs/{id}', { path: { id: job.id } });
        }
        if (job.status === 'failed') {
          bar.set(0, 'Failed.');
          throw new Error(`The backup failed: ${job.error}`);
        }
        bar.set(100, `Done: ${job.backup?.name ?? ''}`);
        await table.reload();
        return `Backup ${job.backup?.name ?? ''} written.`;
      }),
  );
  return [
    section(
      'Start a backup',
      h(
        'p',
        {},
        'Writes the same archive as "wip backup" (database, files, secrets, TLS material) into the backup folder while the appliance keeps serving. Keep archives as safe as the appliance itself: they hold its secrets.',
      ),
      start,
      bar.element,
    ),
    section('Backups', table.element),
  ];
}

/** Overview facts: database and disk size, last backup. */
export async function storageSection(): Promise<HTMLElement> {
  const storage = await api('GET', '/api/admin/system/storage');
  const disk = (d: Answer<'GET', '/api/admin/system/storage'>['dataDisk']) =>
    d ? `${formatBytes(d.freeBytes)} free of ${formatBytes(d.totalBytes)}` : '—';
  return section(
    'Storage and backups',
    facts([
      ['Database size', formatBytes(storage.databaseBytes)],
      ['Data disk', disk(storage.dataDisk)],
      ['Backup disk', disk(storage.backupDisk)],
      [
        'Last backup',
        storage.lastBackup
          ? `${formatDate(storage.lastBackup.createdAt)} (${storage.lastBackup.kind}, ${formatBytes(storage.lastBackup.bytes)})`
          : 'none yet',
      ],
      ['Backups kept', storage.backupCount],
    ]),
    h('p', {}, h('a', { href: '#/backups' }, 'Backups')),
  );
}

/** Live tail of the log (Server-Sent Events with the session cookie), newest on top, at most 200 rows kept. */
export function logTailSection(filters: () => Filters): HTMLElement {
  const list = h('ol.tail', { 'aria-label': 'Live log entries, newest first' });
  const state = h('span', { role: 'status' }, 'Stopped.');
  let source: EventSource | null = null;
  const button = h('button', { type: 'button', 'aria-pressed': 'false' }, 'Start live tail');
  const stop = () => {
    source?.close();
    source = null;
    button.textContent = 'Start live tail';
    button.setAttribute('aria-pressed', 'false');
    state.textContent = 'Stopped.';
  };
  button.addEventListener('click', () => {
    if (source) return stop();
    const { since: _since, until: _until, ...rest } = filters();
    source = new EventSource(`/api/admin/logs/stream${query(rest)}`);
    button.textContent = 'Stop live tail';
    button.setAttribute('aria-pressed', 'true');
    state.textContent = 'Connecting…';
    source.onopen = () => (state.textContent = 'Live: new entries appear at the top.');
    source.onerror = () => (state.textContent = 'Connection lost; reconnecting…');
    source.addEventListener('log', (event) => {
      const row = JSON.parse((event as MessageEvent<string>).data) as {
        level: string;
        createdAt: string;
        event: string;
        message: string;
      } & Parameters<typeof whoOf>[0];
      list.prepend(
        h(`li.${row.level}`, {}, `${formatDate(row.createdAt)}  ${row.level.toUpperCase()}  ${row.event}  ${whoOf(row)}  ${row.message}`),
      );
      while (list.children.length > 200) list.lastElementChild?.remove();
    });
  });
  // the tail ends when the page is left
  window.addEventListener('hashchange', stop, { once: true });
  return section('Live tail', h('p.row-actions', {}, button, state), list);
}

/** Export of the filtered log as a file, with progress (rows received of X-Total-Count). */
export function logExportSection(filters: () => Filters): HTMLElement {
  const bar = progress('Export progress');
  const exportForm = form({
    label: 'Export the log',
    fields: [
      {
        name: 'format',
        label: 'Format',
        type: 'select',
        value: 'ndjson',
        options: [
          { value: 'ndjson', label: 'NDJSON (one JSON object per line)' },
          { value: 'csv', label: 'CSV' },
        ],
      },
    ],
    submit: 'Export',
    async onSubmit(values) {
      const response = await fetch(`/api/admin/logs/export${query({ ...filters(), format: textOf(values.format) })}`, {
        credentials: 'same-origin',
      });
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => ({}))) as ErrorBody;
        throw new ApiError(
          response.status,
          body.error?.code ?? 'ERROR',
          body.error?.message ?? `Export failed (${response.status})`,
          body.error?.details?.fields ?? [],
        );
      }
      const total = Number(response.headers.get('x-total-count') ?? 0);
      const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `wip-logs.${textOf(values.format)}`;
      const chunks: Uint8Array[] = [];
      let lines = values.format === 'csv' ? -1 : 0; // the CSV header is not a row
      const reader = response.body.getReader();
      bar.set(total ? 0 : null, `0 of ${total} rows`);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        for (const byte of value) if (byte === 10) lines++;
        bar.set(total ? Math.min(100, Math.round((lines / total) * 100)) : null, `${Math.max(0, lines)} of ${total} rows`);
      }
      bar.set(100, `${Math.max(0, lines)} rows exported.`);
      const url = URL.createObjectURL(
        new Blob(chunks as BlobPart[], { type: response.headers.get('content-type') ?? 'application/octet-stream' }),
      );
      const link = h('a', { href: url, download: name });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      return `Exported ${Math.max(0, lines)} rows as ${name}.`;
    },
  });
  return section(
    'Export',
    h('p', {}, 'Downloads the entries matching the filters, oldest first, with secrets redacted.'),
    exportForm,
    bar.element,
  );
}
