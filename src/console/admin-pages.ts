import { api, ApiError, type Answer, type Item } from './api';
import { formatDate, h, replace } from './dom';
import { confirmAction, errorText, facts, form, pagedTable, run, section, notice, textOf } from './ui';
import { logColumns, logExportSection, logTailSection, storageSection } from './operations-pages';
import { fingerprintLine } from './records-section';
import { LICENSE_TYPES } from '../policies/roles';

/** The pages of a system administrator. Each calls existing REST routes and shows what they answer. */

/** What a seat of each license type is for (docs/api/rest.md: roles and license types), said where seats are chosen. */
export const SEAT_TYPES: Record<string, { label: string; explains: string }> = {
  full: { label: 'Full', explains: 'any role: Security Administrator, user admin, author, approver, publisher, operator, viewer' },
  connect: { label: 'Connect', explains: 'shop-floor people who run jobs or read instructions: the operator and viewer roles only' },
};

export function seatTypesExplained(): HTMLElement {
  return h(
    'div.explain',
    {},
    h('p', {}, 'Each user of a client holds one seat. There are two types:'),
    h(
      'ul',
      {},
      Object.entries(SEAT_TYPES).map(([type, seat]) =>
        h('li', { 'data-type': type }, h('strong', {}, `${seat.label} seat`), ` — ${seat.explains}.`),
      ),
    ),
  );
}

/** Every client's name by id (the console shows names, not ids): the list in pages of 100. */
async function allClients(): Promise<{ id: number; name: string }[]> {
  const clients: { id: number; name: string }[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await api('GET', '/api/admin/client', { query: { cursor, limit: 100 } });
    clients.push(...page.items.map((c) => ({ id: c.id, name: c.name })));
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return clients;
}

/** What the answer of an invitation says about where it went (never "sent" when it only reached the outbox). */
export function invitationOutcome(email: string, invitation: { delivery: 'queued' | 'outbox' } | undefined): string {
  if (!invitation) return '';
  return invitation.delivery === 'outbox'
    ? `Mail is not configured on this appliance: the invitation to ${email} is waiting in the outbox (the data directory's outbox folder), not sent.`
    : `Invitation to ${email} handed to the mail server.`;
}

export async function overviewPage(): Promise<HTMLElement[]> {
  const [version, health, ready, license, fingerprint] = await Promise.all([
    api('GET', '/api/client/version'),
    api('GET', '/healthz').catch((error) => ({ status: errorText(error) })),
    api('GET', '/readyz').catch((error) => ({ status: errorText(error) })),
    api('GET', '/api/admin/license-on-prem'),
    fingerprintLine(),
  ]);
  const updates = h(
    'p',
    {},
    h(
      'button',
      {
        type: 'button',
        onclick: (event: Event) =>
          run(event.currentTarget as HTMLButtonElement, async () => {
            const result = await api('GET', '/api/client/check-updates');
            replace(
              updates,
              result.updateAvailable
                ? `Version ${result.latest} is available.`
                : result.source === 'unreachable'
                  ? `The update source could not be reached${result.error ? `: ${result.error}` : ''}.`
                  : 'No newer version is known.',
            );
          }),
      },
      'Check for updates',
    ),
  );
  return [
    licenseWarnings(license),
    section(
      'Appliance',
      facts([
        ['Version', version.version],
        ['Runtime', runtimeText(version.runtime)],
        ['Health', String(health.status ?? 'ok')],
        ['Readiness', String(ready.status ?? 'ok')],
      ]),
      updates,
      fingerprint,
    ),
    section('License', licenseFacts(license), seatUsage(license)),
    await storageSection().catch((error) => section('Storage and backups', h('p.error', {}, errorText(error)))),
  ].filter(Boolean) as HTMLElement[];
}

/** `Node.js 24.21.0, supported until 2028-04-30`: the date as the API gives it (a date, no time of day to shift by time zone) */
function runtimeText(runtime: Answer<'GET', '/api/client/version'>['runtime'] | undefined): string {
  if (!runtime) return '—';
  return `Node.js ${runtime.version}, ${runtime.supportedUntil ? `supported until ${runtime.supportedUntil}` : 'end of life unknown'}`;
}

function licenseWarnings(license: LicenseOverview): HTMLElement | null {
  const warnings: string[] = [];
  if (license.evaluation) warnings.push('No license key is installed: the appliance runs on the evaluation allowance.');
  if (license.grace) warnings.push('The license has expired and is in its grace period.');
  if (license.readOnly) warnings.push('The license has expired: the appliance is read-only.');
  if (license.warning) warnings.push(String(license.warning));
  return warnings.length
    ? h(
        'div.banner.warning',
        { role: 'alert' },
        warnings.map((w) => h('p', {}, w)),
      )
    : null;
}

type LicenseOverview = Answer<'GET', '/api/admin/license-on-prem'>;

/**
 * The parts of the license overview whose shape the OpenAPI document leaves
 * open (`licensee`, `usage`: z.unknown() in src/presenters/schemas.ts), as
 * services/licensing.ts builds them.
 */
interface SeatCounts {
  total?: number;
  allocated?: number;
  used?: number;
  unallocated?: number;
}
const licenseeOf = (license: LicenseOverview) => license.licensee as { name?: string } | null;
const seatsOf = (license: LicenseOverview) => (license.usage as { seats?: Record<string, SeatCounts | undefined> } | null)?.seats ?? {};

function licenseFacts(license: LicenseOverview): HTMLElement {
  return facts([
    ['Status', license.status],
    ['Licensee', licenseeOf(license)?.name ?? (license.evaluation ? 'Evaluation' : '—')],
    ['Expires', formatDate(license.expiresAt)],
    ['Days to expiry', license.daysToExpiry ?? '—'],
    ['Installation id', license.installationId],
  ]);
}

function seatUsage(license: LicenseOverview): HTMLElement {
  const seats = seatsOf(license);
  return seatTable(
    'Seats by license type',
    ['Licensed', 'Allocated to clients', 'Used', 'Not allocated'],
    LICENSE_TYPES.map((type) => [type, seats[type]?.total, seats[type]?.allocated, seats[type]?.used, seats[type]?.unallocated]),
  );
}

/** A table of seat counts: one row per license type. */
export function seatTable(caption: string, headings: string[], rows: (string | number | undefined)[][]): HTMLElement {
  // its own scroll container: at 390 px the five columns may be wider than the screen, the page is not
  return h(
    'div.table-wrap',
    {},
    h(
      'table.seats',
      {},
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Type', ...headings].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map(([type, ...values]) =>
          h(
            'tr',
            { 'data-type': type },
            h('th', { scope: 'row' }, type),
            values.map((v) => h('td', {}, v ?? '—')),
          ),
        ),
      ),
    ),
  );
}

export function clientsPage(): HTMLElement[] {
  const table = pagedTable({
    caption: 'Clients',
    search: 'Search clients by name',
    load: (cursor, search) => api('GET', '/api/admin/client', { query: { cursor, search, limit: 20 } }),
    columns: [
      { label: 'Id', cell: (c) => c.id },
      { label: 'Name', cell: (c) => c.name },
      { label: 'Created', cell: (c) => formatDate(c.createdAt) },
      {
        label: 'Actions',
        cell: (c) =>
          h(
            'span.row-actions',
            {},
            h('a', { href: `#/clients/${c.id}/users` }, 'Users'),
            h('button', { type: 'button', onclick: () => editClient(c) }, 'Rename'),
            h(
              'button.danger',
              { type: 'button', onclick: (event: Event) => deleteClient(c, event.currentTarget as HTMLButtonElement) },
              'Delete',
            ),
          ),
      },
    ],
  });
  const editor = h('div');
  function editClient(client: Item<'GET', '/api/admin/client'>): void {
    replace(
      editor,
      section(
        `Rename ${client.name}`,
        form({
          fields: [{ name: 'name', label: 'Name', required: true, value: client.name }],
          submit: 'Save',
          async onSubmit(values) {
            await api('PUT', '/api/admin/client/{id}', { path: { id: client.id }, body: { name: values.name } });
            await table.reload();
            replace(editor);
            notice(`Client renamed to ${textOf(values.name)}.`);
          },
        }),
      ),
    );
    editor.querySelector('input')?.focus();
  }
  async function deleteClient(client: Item<'GET', '/api/admin/client'>, button: HTMLButtonElement): Promise<void> {
    const confirmed = await confirmAction({
      title: `Delete ${client.name}?`,
      message: 'The client is deleted with its users, sessions and data. This cannot be undone.',
      confirm: 'Delete client',
      typed: client.name,
    });
    if (!confirmed) return;
    await run(button, async () => {
      await api('DELETE', '/api/admin/client/{id}', { path: { id: client.id } });
      await table.reload();
      return `Client ${client.name} deleted.`;
    });
  }
  const create = form({
    label: 'Create a client',
    fields: [
      { name: 'name', label: 'Client name', required: true },
      { name: 'owner.email', label: 'Owner email (Security Administrator)', type: 'email', required: true, autocomplete: 'off' },
      { name: 'owner.firstName', label: 'Owner first name' },
      { name: 'owner.lastName', label: 'Owner last name' },
      {
        name: 'owner.password',
        label: 'Owner password',
        type: 'password',
        autocomplete: 'new-password',
        hint: 'Leave empty to email the owner an invitation instead (this needs a mail server: WIP_SMTP_URL).',
      },
      {
        name: 'seats.full',
        label: 'Full seats',
        type: 'number',
        min: 0,
        value: 1,
        hint: `For ${SEAT_TYPES.full.explains}. The owner takes one.`,
      },
      { name: 'seats.connect', label: 'Connect seats', type: 'number', min: 0, value: 0, hint: `For ${SEAT_TYPES.connect.explains}.` },
    ],
    submit: 'Create client',
    async onSubmit(values, element) {
      const owner: Record<string, string> = { email: textOf(values['owner.email']) };
      if (values['owner.firstName']) owner.firstName = textOf(values['owner.firstName']);
      if (values['owner.lastName']) owner.lastName = textOf(values['owner.lastName']);
      if (values['owner.password']) owner.password = textOf(values['owner.password']);
      const created = await api('POST', '/api/admin/client', {
        body: {
          name: values.name,
          owner,
          seats: { full: values['seats.full'] ?? 0, connect: values['seats.connect'] ?? 0 },
        },
      });
      element.reset();
      await table.reload();
      const invited = created.owner?.invitation;
      const ownerNote = invited
        ? ` ${invitationOutcome(owner.email, invited)}${invited.delivery === 'outbox' ? ' Without a mail server, give owners a password here, or configure mail (WIP_SMTP_URL).' : ''}`
        : '';
      return `Client ${created.name ?? values.name} created.${ownerNote} Add seats later on the Licenses page.`;
    },
  });
  return [section('Clients', table.element), editor, section('Create a client', seatTypesExplained(), create)];
}

export async function clientUsersPage(clientId: number): Promise<HTMLElement[]> {
  const client = await api('GET', '/api/admin/client/{id}', { path: { id: clientId } });
  document.querySelector('main h1')!.textContent = `Users of ${client.name}`;
  document.title = `Users of ${client.name} · wip console`;
  const table = pagedTable({
    caption: `Users of ${client.name}`,
    search: 'Search users',
    load: (cursor, search) => api('GET', '/api/admin/user', { query: { clientId, cursor, search, limit: 20 } }),
    columns: userColumns,
  });
  return [h('p', {}, h('a', { href: '#/clients' }, '← Clients')), section(`Users of ${client.name}`, table.element)];
}

type UserItem = Item<'GET', '/api/admin/user'>;

export const userColumns = [
  { label: 'Email', cell: (u: UserItem) => u.email },
  { label: 'Name', cell: (u: UserItem) => [u.firstName, u.lastName].filter(Boolean).join(' ') || '—' },
  { label: 'Roles', cell: (u: UserItem) => u.roles.join(', ') },
  { label: 'License', cell: (u: UserItem) => u.licenseType },
  { label: 'Status', cell: (u: UserItem) => u.status },
];

export async function licensesPage(): Promise<HTMLElement[]> {
  const [clients, license] = await Promise.all([allClients(), api('GET', '/api/admin/license-on-prem')]);
  const table = pagedTable({
    caption: 'Seat allocations',
    load: (cursor) => api('GET', '/api/admin/license', { query: { cursor, limit: 20 } }),
    columns: [
      { label: 'Client', cell: (l) => l.clientName ?? `#${l.clientId}` },
      { label: 'Type', cell: (l) => l.licenseType },
      { label: 'Seats', cell: (l) => l.seats },
      { label: 'Expires', cell: (l) => formatDate(l.expiresAt) },
      {
        label: 'Change seats',
        cell: (l) => {
          const id = `seats-${l.id}`;
          const input = h('input', { id, type: 'number', min: 0, value: l.seats, class: 'narrow' });
          return h(
            'span.row-actions',
            {},
            h('label.visually-hidden', { for: id }, `Seats of ${l.clientName ?? l.clientId}, ${l.licenseType}`),
            input,
            h(
              'button',
              {
                type: 'button',
                onclick: (event: Event) =>
                  run(event.currentTarget as HTMLButtonElement, async () => {
                    await api('PUT', '/api/admin/license/{id}', { path: { id: l.id }, body: { seats: Number(input.value) } });
                    await table.reload();
                    return 'Seats changed.';
                  }),
              },
              'Save',
            ),
          );
        },
      },
    ],
  });
  // any type the installed license (or the evaluation allowance) has seats of, whether or not the client has an allocation yet
  const licensed = LICENSE_TYPES.filter((type) => (seatsOf(license)[type]?.total ?? 0) > 0);
  const types = licensed.length ? licensed : LICENSE_TYPES;
  const add = clients.length
    ? form({
        label: 'Add seats to a client',
        fields: [
          {
            name: 'clientId',
            label: 'Client',
            type: 'select',
            required: true,
            options: clients.map((c) => ({ value: String(c.id), label: c.name })),
          },
          {
            name: 'licenseType',
            label: 'Seat type',
            type: 'select',
            options: types.map((t) => ({ value: t, label: t === 'connect' ? 'Connect (operator, viewer)' : 'Full (any role)' })),
            value: types[0],
          },
          { name: 'seats', label: 'Seats', type: 'number', min: 1, required: true, value: 1 },
        ],
        submit: 'Add seats',
        async onSubmit(values) {
          await api('POST', '/api/admin/license', {
            body: { clientId: Number(values.clientId), licenseType: values.licenseType, seats: values.seats ?? 0 },
          });
          await table.reload();
          const client = clients.find((c) => String(c.id) === values.clientId);
          return `${textOf(values.seats)} ${textOf(values.licenseType)} seat${values.seats === 1 ? '' : 's'} added to ${client?.name ?? 'the client'}.`;
        },
      })
    : h('p', {}, 'Create a client first: seats are allocated to clients.');
  return [
    section(
      'Licenses',
      h(
        'p',
        {},
        "Seats of the installed license allocated to each client. A client's seats of a type are the sum of its allocations of that type.",
      ),
      table.element,
    ),
    section('Add seats', seatTypesExplained(), add),
  ];
}

export async function licenseKeyPage(): Promise<HTMLElement[]> {
  const current = h('div');
  const preview = h('div', { 'aria-live': 'polite' });
  async function showCurrent(): Promise<void> {
    const license = await api('GET', '/api/admin/license-on-prem');
    replace(current, licenseWarnings(license), licenseFacts(license), seatUsage(license));
  }
  await showCurrent();
  let pendingKey = '';
  const keyForm = form({
    label: 'Check a license key',
    fields: [
      { name: 'licenseKey', label: 'License key', type: 'textarea', hint: 'Paste the key, or choose the key file below.' },
      { name: 'file', label: 'Key file', type: 'file', accept: '.lic,.txt,text/plain' },
    ],
    submit: 'Check the key',
    async onSubmit(values) {
      const key: string = values.file ? (await (values.file as File).text()).trim() : textOf(values.licenseKey).trim();
      const terms = await api('POST', '/api/admin/license-on-prem/preview', { body: { licenseKey: key } });
      pendingKey = key;
      replace(
        preview,
        section(
          'Terms of this key',
          facts([
            ['License id', terms.licenseId],
            ['Licensee', terms.licensee?.name ?? '—'],
            ['Issued', formatDate(terms.issuedAt)],
            ['Expires', formatDate(terms.expiresAt)],
            ['Full seats', terms.seats?.full],
            ['Connect seats', terms.seats?.connect],
            ['Clients', terms.maxClients ?? 'unlimited'],
            ['Features', (terms.features ?? []).join(', ') || '—'],
          ]),
          h(
            'button.primary',
            {
              type: 'button',
              onclick: (event: Event) =>
                run(event.currentTarget as HTMLButtonElement, async () => {
                  await api('POST', '/api/admin/license-on-prem', { body: { licenseKey: pendingKey } });
                  replace(preview);
                  await showCurrent();
                  return 'License key installed.';
                }),
            },
            'Install this key',
          ),
        ),
      );
      return 'The key is valid: check its terms below, then install it.';
    },
  });
  return [section('Installed license', current), section('Install a license key', keyForm), preview];
}

export function agreementsPage(): HTMLElement[] {
  const table = pagedTable({
    caption: 'Agreement versions',
    load: (cursor) => api('GET', '/api/admin/agreement', { query: { cursor, limit: 20 } }),
    columns: [
      { label: 'Kind', cell: (a) => String(a.kind).toUpperCase() },
      { label: 'Version', cell: (a) => a.version },
      { label: 'Title', cell: (a) => a.title },
      { label: 'Effective', cell: (a) => formatDate(a.effectiveAt) },
      { label: 'PDF', cell: (a) => (a.hasPdf || a.fileName ? 'yes' : 'no') },
    ],
  });
  const upload = form({
    label: 'Publish an agreement version',
    fields: [
      {
        name: 'kind',
        label: 'Kind',
        type: 'select',
        options: [
          { value: 'eula', label: 'EULA' },
          { value: 'msa', label: 'MSA' },
        ],
        value: 'eula',
      },
      { name: 'version', label: 'Version', required: true },
      { name: 'title', label: 'Title', required: true },
      { name: 'file', label: 'PDF', type: 'file', accept: 'application/pdf' },
      { name: 'requiresReacceptance', label: 'Earlier acceptances must be renewed', type: 'checkbox' },
    ],
    submit: 'Publish',
    async onSubmit(values, element) {
      const body: Record<string, unknown> = {
        kind: values.kind,
        version: values.version,
        title: values.title,
        requiresReacceptance: values.requiresReacceptance,
      };
      if (values.file) {
        const data = new FormData();
        data.append('file', values.file as File);
        const uploaded = await api('POST', '/api/admin/upload', { body: data });
        body.fileId = uploaded.files[0].id;
        body.fileName = (values.file as File).name;
      }
      await api('POST', '/api/admin/agreement', { body });
      element.reset();
      await table.reload();
      return 'Agreement published.';
    },
  });
  return [section('Agreements', table.element), section('Publish a version', upload)];
}

export function logsPage(): HTMLElement[] {
  let filters: Record<string, string> = {};
  const table = pagedTable({
    caption: 'Log entries, newest first',
    load: (cursor) => api('GET', '/api/admin/logs', { query: { ...filters, cursor, limit: 50 } }),
    columns: logColumns,
  });
  const filter = form({
    label: 'Filter logs',
    fields: [
      {
        name: 'level',
        label: 'Level',
        type: 'select',
        options: [{ value: '', label: 'any' }, 'info', 'warn', 'error', { value: 'warn,error', label: 'warn and error' }],
      },
      { name: 'clientId', label: 'Client id', type: 'number', min: 1 },
      { name: 'event', label: 'Event' },
      { name: 'since', label: 'Since', type: 'datetime-local' },
      { name: 'until', label: 'Until', type: 'datetime-local' },
    ],
    submit: 'Apply filters',
    async onSubmit(values) {
      const iso = (v: string) => (v ? new Date(v).toISOString() : '');
      filters = {
        level: textOf(values.level),
        clientId: textOf(values.clientId),
        event: textOf(values.event),
        since: iso(textOf(values.since)),
        until: iso(textOf(values.until)),
      };
      await api('GET', '/api/admin/logs', { query: { ...filters, limit: 1 } }); // field errors show before the table changes
      await table.reload();
    },
  });
  return [section('Filter', filter), section('Logs', table.element), logTailSection(() => filters), logExportSection(() => filters)];
}

/**
 * Translations: what they are for, and adding and editing entries
 * through the API's POST and PUT (the list alone was an empty read-only page).
 */
export async function translationsPage(): Promise<HTMLElement[]> {
  const clients = await allClients();
  const clientName = (id: number | null) => (id === null ? 'all clients' : (clients.find((c) => c.id === id)?.name ?? `#${id}`));
  const editor = h('div');
  const table = pagedTable({
    caption: 'Translation entries',
    load: (cursor) => api('GET', '/api/admin/internationalization', { query: { cursor, limit: 50 } }),
    columns: [
      { label: 'Language', cell: (t) => t.language },
      { label: 'Namespace', cell: (t) => t.namespace },
      { label: 'Key', cell: (t) => t.key },
      { label: 'Text', cell: (t) => t.text },
      { label: 'For', cell: (t) => clientName(t.clientId) },
      {
        label: 'Actions',
        cell: (t) =>
          h('button', { type: 'button', 'aria-label': `Edit ${t.language} ${t.namespace} ${t.key}`, onclick: () => edit(t) }, 'Edit'),
      },
    ],
  });
  function edit(entry: Item<'GET', '/api/admin/internationalization'>): void {
    replace(
      editor,
      section(
        `Edit ${entry.namespace}.${entry.key} (${entry.language}, ${clientName(entry.clientId)})`,
        form({
          label: 'Edit a translation',
          fields: [{ name: 'text', label: 'Text', type: 'textarea', required: true, value: entry.text }],
          submit: 'Save text',
          async onSubmit(values) {
            await api('PUT', '/api/admin/internationalization/{id}', { path: { id: entry.id }, body: { text: values.text } });
            await table.reload();
            replace(editor);
            notice(`Text of ${entry.namespace}.${entry.key} (${entry.language}) saved.`);
          },
        }),
      ),
    );
    editor.querySelector('textarea')?.focus();
  }
  const add = form({
    label: 'Add a translation',
    fields: [
      { name: 'language', label: 'Language', required: true, hint: 'A language tag: en, de, de-AT, fr…' },
      {
        name: 'namespace',
        label: 'Namespace',
        required: true,
        value: 'errors',
        hint: 'errors: error messages, keyed by error code (e.g. LICENSE_SEATS_EXHAUSTED); updates: update notices; or a namespace of your apps.',
      },
      { name: 'key', label: 'Key', required: true },
      { name: 'text', label: 'Text', type: 'textarea', required: true },
      {
        name: 'clientId',
        label: 'For',
        type: 'select',
        options: [{ value: '', label: 'all clients' }, ...clients.map((c) => ({ value: String(c.id), label: `${c.name} only` }))],
        value: '',
      },
    ],
    submit: 'Add translation',
    async onSubmit(values, element) {
      try {
        await api('POST', '/api/admin/internationalization', {
          body: {
            language: values.language,
            namespace: values.namespace,
            key: values.key,
            text: values.text,
            ...(values.clientId && { clientId: Number(values.clientId) }),
          },
        });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'CONFLICT')
          throw new ApiError(error.status, error.code, 'This entry exists already: edit it in the list above.');
        throw error;
      }
      element.reset();
      await table.reload();
      return 'Translation added.';
    },
  });
  return [
    section(
      'What translations are for',
      h(
        'p',
        {},
        'The appliance ships its texts in English and German. Here you add a language or change a text: error messages the API answers (namespace errors, keyed by error code), update notices (updates), and the texts of your apps. An entry for all clients applies everywhere; one for a single client overrides it for that client only.',
      ),
      h(
        'p',
        {},
        'Apps and the web app fetch the merged texts from /api/client/internalization/LANGUAGE; a more specific language wins (de-AT over de over en).',
      ),
    ),
    section('Translations', table.element),
    editor,
    section('Add a translation', add),
  ];
}

export function changePasswordPage(onChanged: () => void): HTMLElement[] {
  return [
    section(
      'Change your password',
      form({
        label: 'Change your password',
        fields: [
          { name: 'username', label: 'Username', autocomplete: 'username', type: 'text', hint: 'For your password manager.' },
          { name: 'currentPassword', label: 'Current password', type: 'password', autocomplete: 'current-password', required: true },
          {
            name: 'newPassword',
            label: 'New password',
            type: 'password',
            autocomplete: 'new-password',
            required: true,
            hint: 'At least 8 characters.',
          },
        ],
        submit: 'Change password',
        async onSubmit(values, element) {
          await api('POST', '/api/admin/auth/change-password', {
            body: { currentPassword: values.currentPassword, newPassword: values.newPassword },
          });
          element.reset();
          onChanged();
          return 'Password changed. Your other sessions have ended.';
        },
      }),
    ),
  ];
}
