import { api, query, type Page } from './api';
import { formatDate, h, replace } from './dom';
import { seatTable, userColumns } from './admin-pages';
import { confirmAction, facts, form, notice, pagedTable, run, section } from './ui';

/** The pages of a client's Security Administrator (role `admin`): users, seats, security settings, MSA. */

const ROLES = ['admin', 'user_admin', 'author', 'operator', 'approver', 'publisher', 'viewer'];
const ROLE_HINT = 'A connect license holds the operator and viewer roles only; a full license any role.';
const LICENSE_OPTIONS = [
  { value: 'full', label: 'full (any role)' },
  { value: 'connect', label: 'connect (operator, viewer)' },
];

export function usersPage(): HTMLElement[] {
  const editor = h('div');
  const table = pagedTable<any>({
    caption: 'Users',
    search: 'Search users by email or name',
    load: (cursor, search) => api<Page<any>>('GET', `/api/admin/user${query({ cursor, search, limit: 20 })}`),
    columns: [
      ...userColumns,
      {
        label: 'Actions',
        cell: (u: any) =>
          h(
            'span.row-actions',
            {},
            h('button', { type: 'button', onclick: () => edit(u) }, 'Edit'),
            u.status === 'invited' ? action('Resend invitation', () => api('POST', `/api/admin/user/${u.id}/invite`), `Invitation sent to ${u.email}.`) : null,
            action('Unlock', () => api('POST', `/api/admin/user/${u.id}/unlock`), `${u.email} unlocked.`),
            action('Reset 2FA', () => api('POST', '/api/client/auth/reset-two-factor', { userId: u.id }), `Second factor of ${u.email} reset.`, `Reset the second factor of ${u.email}?`),
            action(u.status === 'disabled' ? 'Enable' : 'Disable', () => api('PUT', '/api/admin/user', { id: u.id, disabled: u.status !== 'disabled' }), `${u.email} ${u.status === 'disabled' ? 'enabled' : 'disabled'}.`, u.status === 'disabled' ? undefined : `Disable ${u.email}? Their sessions end at once.`),
            action('Delete', () => api('DELETE', `/api/admin/user/${u.id}`), `${u.email} deleted.`, `Delete ${u.email}? This cannot be undone.`, true),
          ),
      },
    ],
  });

  function action(label: string, call: () => Promise<unknown>, done: string, ask?: string, danger = false): HTMLButtonElement {
    const button = h(danger ? 'button.danger' : 'button', { type: 'button' }, label) as HTMLButtonElement;
    button.addEventListener('click', async () => {
      if (ask && !(await confirmAction({ title: label, message: ask, confirm: label }))) return;
      await run(button, async () => {
        await call();
        await table.reload();
        return done;
      });
    });
    return button;
  }

  function edit(user: any): void {
    replace(
      editor,
      section(
        `Edit ${user.email}`,
        form({
          label: `Edit ${user.email}`,
          fields: [
            { name: 'firstName', label: 'First name', value: user.firstName },
            { name: 'lastName', label: 'Last name', value: user.lastName },
            { name: 'roles', label: 'Roles', type: 'checkboxes', options: ROLES, value: user.roles, hint: ROLE_HINT },
            { name: 'licenseType', label: 'License type', type: 'select', options: LICENSE_OPTIONS, value: user.licenseType },
          ],
          submit: 'Save',
          async onSubmit(values) {
            await api('PUT', '/api/admin/user', { id: user.id, firstName: values.firstName, lastName: values.lastName, roles: values.roles, licenseType: values.licenseType });
            await table.reload();
            replace(editor);
            notice(`${user.email} saved.`);
          },
        }),
      ),
    );
    editor.querySelector('input')?.focus();
  }

  const invite = form({
    label: 'Invite a user',
    fields: [
      { name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'off' },
      { name: 'firstName', label: 'First name' },
      { name: 'lastName', label: 'Last name' },
      { name: 'roles', label: 'Roles', type: 'checkboxes', options: ROLES, value: ['viewer'], hint: ROLE_HINT },
      { name: 'licenseType', label: 'License type', type: 'select', options: LICENSE_OPTIONS, value: 'full' },
    ],
    submit: 'Send invitation',
    async onSubmit(values, element) {
      const body: Record<string, unknown> = { email: values.email, roles: values.roles, licenseType: values.licenseType };
      if (values.firstName) body.firstName = values.firstName;
      if (values.lastName) body.lastName = values.lastName;
      await api('POST', '/api/admin/user', body);
      element.reset();
      await table.reload();
      return `Invitation sent to ${values.email}.`;
    },
  });
  return [section('Users', table.element), editor, section('Invite a user', invite)];
}

export async function seatsPage(): Promise<HTMLElement[]> {
  const license = await api('GET', '/api/client/license');
  const seats = license.seats ?? {};
  return [
    section(
      'Seats in use',
      seatTable('Seats of this organisation', ['Allocated', 'Used', 'Free'], Object.keys(seats).map((type) => [type, seats[type].allocated, seats[type].used, seats[type].free])),
      facts([
        ['License status', license.status],
        ['Expires', formatDate(license.expiresAt)],
      ]),
    ),
  ];
}

export async function securitySettingsPage(): Promise<HTMLElement[]> {
  const settings = await api('GET', '/api/client/auth/client-security-settings');
  return [
    section(
      'Security settings',
      form({
        label: 'Security settings',
        fields: [
          { name: 'passwordMinLength', label: 'Minimum password length', type: 'number', min: 12, value: settings.passwordMinLength },
          {
            name: 'twoFactorRequired',
            label: 'Two-factor authentication required for',
            type: 'select',
            options: [
              { value: 'off', label: 'nobody' },
              { value: 'admins', label: 'Security Administrators' },
              { value: 'all', label: 'everyone' },
            ],
            value: settings.twoFactorRequired,
          },
          { name: 'sessionIdleTimeout', label: 'Idle timeout (seconds)', type: 'number', min: 60, value: settings.sessionIdleTimeout, hint: 'Empty: the appliance default.' },
          { name: 'allowedSignUpDomains', label: 'Sign-up domains', value: (settings.allowedSignUpDomains ?? []).join(', '), hint: 'Comma-separated, e.g. example.com' },
          { name: 'ssoEnforced', label: 'Single sign-on required', type: 'checkbox', value: settings.ssoEnforced },
          { name: 'allowSelfApproval', label: 'Approvers may approve their own versions', type: 'checkbox', value: settings.allowSelfApproval },
        ],
        submit: 'Save settings',
        async onSubmit(values) {
          const domains = String(values.allowedSignUpDomains).split(',').map((d) => d.trim()).filter(Boolean);
          await api('PUT', '/api/client/auth/client-security-settings', {
            passwordMinLength: values.passwordMinLength,
            twoFactorRequired: values.twoFactorRequired,
            sessionIdleTimeout: values.sessionIdleTimeout ?? null,
            allowedSignUpDomains: domains,
            ssoEnforced: values.ssoEnforced,
            allowSelfApproval: values.allowSelfApproval,
          });
          return 'Settings saved.';
        },
      }),
    ),
  ];
}

export async function msaPage(): Promise<HTMLElement[]> {
  const status = await api('GET', '/api/client/have-client-accepted-msa');
  const box = h('div');
  const show = (s: any) =>
    replace(
      box,
      facts([
        ['Accepted', s.accepted ? 'yes' : 'no'],
        ['Version', s.version ?? '—'],
        ['Accepted at', formatDate(s.acceptedAt)],
      ]),
      s.version && !s.accepted
        ? h('button.primary', { type: 'button', onclick: (event: Event) => run(event.currentTarget as HTMLButtonElement, async () => {
            await api('POST', '/api/client/accept-msa', { version: s.version });
            show(await api('GET', '/api/client/have-client-accepted-msa'));
            return 'MSA accepted.';
          }) }, `Accept MSA version ${s.version}`)
        : null,
      s.version ? h('p', {}, h('a', { href: '/api/client/download-agreement' }, 'Download the MSA (PDF)')) : h('p', {}, 'No MSA has been published.'),
    );
  show(status);
  return [section('Master services agreement', box)];
}
