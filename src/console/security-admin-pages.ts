import { api, type Answer, type Item } from './api';
import { formatDate, h, replace, uniqueId } from './dom';
import { invitationOutcome, seatTable, seatTypesExplained, userColumns } from './admin-pages';
import { confirmAction, facts, form, notice, pagedTable, run, section, textOf } from './ui';
import { recordsSection } from './records-section';
import { ROLES } from '../policies/roles';

/** The pages of a client's Security Administrator (role `admin`): users, seats, security settings, MSA. */

const ROLE_HINT = 'A connect license holds the operator and viewer roles only; a full license any role.';

/**
 * SPEC.md's seven roles have no supervisor: a shift lead is the least-privileged pair that does a supervisor's work
 * in the floor app (docs/guides/supervisor.md) — operator (board, new jobs, schedules) and approver (review by
 * exception, deviations, qualification overrides) — never publisher, which would let them publish templates.
 */
const SUPERVISOR_ROLES = ['operator', 'approver'];

/** A button after a form's role choices that ticks exactly a supervisor's roles, and says what each adds. */
function supervisorPreset(element: HTMLFormElement): HTMLFormElement {
  const choices = element.querySelector('fieldset.choices');
  if (!choices) return element;
  const apply = () => {
    for (const box of element.querySelectorAll<HTMLInputElement>('input[name="roles"]')) box.checked = SUPERVISOR_ROLES.includes(box.value);
    notice('Roles set for a supervisor: operator + approver.');
  };
  (choices.parentElement ?? choices).after(
    h(
      'div.field.role-preset',
      {},
      h('button', { type: 'button', onclick: apply }, 'Supervisor: operator + approver'),
      h(
        'p.hint',
        {},
        'A supervisor or shift lead needs these two, no more: operator for the board, new jobs and schedules; approver for review by exception, deviations and qualification overrides. Publisher is not needed (it publishes templates).',
      ),
    ),
  );
  return element;
}
const LICENSE_OPTIONS = [
  { value: 'full', label: 'full seat (any role)' },
  { value: 'connect', label: 'connect seat (operator, viewer: running jobs, reading instructions)' },
];

/**
 * The client's users. Each row offers only the actions that apply:
 * Unlock while locked out, Reset 2FA while a second factor is on, no Disable
 * or Delete of oneself or of the client's last Security Administrator — from
 * the account state the list answers (locked, twoFactorEnabled,
 * lastSecurityAdministrator).
 */
export function usersPage(selfId: number): HTMLElement[] {
  const editor = h('div');
  const handOver = h('div', { 'aria-live': 'polite' });
  const table = pagedTable({
    caption: 'Users',
    search: 'Search users by email or name',
    load: (cursor, search) => api('GET', '/api/admin/user', { query: { cursor, search, limit: 20 } }),
    columns: [
      ...userColumns,
      {
        label: 'Actions',
        cell: (u) => {
          const protectedAccount = u.id === selfId || u.lastSecurityAdministrator;
          return h(
            'span.row-actions',
            {},
            h('button', { type: 'button', onclick: () => edit(u) }, 'Edit'),
            u.status === 'invited'
              ? action('Resend invitation', async () =>
                  invited(u.email, await api('POST', '/api/admin/user/{userId}/invite', { path: { userId: u.id } })),
                )
              : null,
            u.locked
              ? action('Unlock', () => api('POST', '/api/admin/user/{userId}/unlock', { path: { userId: u.id } }), `${u.email} unlocked.`)
              : null,
            u.twoFactorEnabled
              ? action(
                  'Reset 2FA',
                  () => api('POST', '/api/client/auth/reset-two-factor', { body: { userId: u.id } }),
                  `Second factor of ${u.email} reset.`,
                  `Reset the second factor of ${u.email}?`,
                )
              : null,
            u.status === 'disabled'
              ? action('Enable', () => api('PUT', '/api/admin/user', { body: { id: u.id, disabled: false } }), `${u.email} enabled.`)
              : protectedAccount
                ? null
                : action(
                    'Disable',
                    () => api('PUT', '/api/admin/user', { body: { id: u.id, disabled: true } }),
                    `${u.email} disabled.`,
                    `Disable ${u.email}? Their sessions end at once.`,
                  ),
            protectedAccount
              ? null
              : action(
                  'Delete',
                  () => api('DELETE', '/api/admin/user/{userId}', { path: { userId: u.id } }),
                  `${u.email} deleted.`,
                  `Delete ${u.email}? This cannot be undone.`,
                  true,
                ),
            protectedAccount ? h('span.hint', {}, u.id === selfId ? 'you' : 'the only Security Administrator') : null,
          );
        },
      },
    ],
  });

  /** `done`: the message, or the call's answer says it (an invitation) */
  function action(label: string, call: () => Promise<unknown>, done?: string, ask?: string, danger = false): HTMLButtonElement {
    const button = h<'button'>(danger ? 'button.danger' : 'button', { type: 'button' }, label);
    button.addEventListener(
      'click',
      () =>
        void (async () => {
          if (ask && !(await confirmAction({ title: label, message: ask, confirm: label }))) return;
          await run(button, async () => {
            const said = await call();
            await table.reload();
            return done ?? (typeof said === 'string' ? said : undefined);
          });
        })(),
    );
    return button;
  }

  /**
   * Says truthfully where an invitation went. Without a mail server
   * it waits in the outbox, and the Security Administrator may take its link
   * once to hand it over: shown here, never again.
   */
  function invited(email: string, user: Answer<'POST', '/api/admin/user/{userId}/invite'>): string {
    const invitation = user.invitation;
    if (!invitation?.linkRevealable) {
      replace(handOver);
      return invitationOutcome(email, invitation) || `Invitation sent to ${email}.`;
    }
    const reveal = h('button.primary', { type: 'button' }, 'Show the invitation link');
    reveal.addEventListener(
      'click',
      () =>
        void run(reveal, async () => {
          const answer = await api('POST', '/api/admin/user/{userId}/invitation-link', { path: { userId: user.id } });
          showLink(email, answer.link);
        }),
    );
    replace(
      handOver,
      section(
        `Invitation to ${email}`,
        h('p', {}, invitationOutcome(email, invitation)),
        h(
          'p',
          {},
          'You can hand the invitation link to this person yourself (in person or by a channel you trust). It is shown once, then removed from the outbox; showing it is recorded as a security event.',
        ),
        reveal,
      ),
    );
    return invitationOutcome(email, invitation);
  }

  function showLink(email: string, link: string): void {
    const id = uniqueId('invitation-link');
    const field = h('input.link', { id, type: 'text', readonly: true, value: link, autocomplete: 'off', spellcheck: 'false' });
    const copied = h('span.form-status', { role: 'status' });
    const copy = h('button.primary', { type: 'button' }, 'Copy link');
    copy.addEventListener(
      'click',
      () =>
        void (async () => {
          field.select();
          try {
            await navigator.clipboard.writeText(link);
            copied.textContent = 'Copied.';
          } catch {
            // the clipboard API needs https (or localhost): the link is selected, ready for Ctrl+C
            copied.textContent = 'Press Ctrl+C (or ⌘C) to copy the selected link.';
          }
        })(),
    );
    replace(
      handOver,
      section(
        `Invitation link for ${email}`,
        h(
          'p',
          {},
          'Give this link to ',
          h('strong', {}, email),
          ' only. It works once, to set their password; it will not be shown again.',
        ),
        h('label', { for: id }, 'Invitation link'),
        h('div.copy-row', {}, field, copy),
        copied,
      ),
    );
    field.focus();
    field.select();
  }

  function edit(user: Item<'GET', '/api/admin/user'>): void {
    replace(
      editor,
      section(
        `Edit ${user.email}`,
        supervisorPreset(
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
              await api('PUT', '/api/admin/user', {
                body: {
                  id: user.id,
                  firstName: values.firstName,
                  lastName: values.lastName,
                  roles: values.roles,
                  licenseType: values.licenseType,
                },
              });
              await table.reload();
              replace(editor);
              notice(`${user.email} saved.`);
            },
          }),
        ),
      ),
    );
    editor.querySelector('input')?.focus();
  }

  const invite = supervisorPreset(
    form({
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
        const created = await api('POST', '/api/admin/user', { body });
        element.reset();
        await table.reload();
        return invited(textOf(values.email), created);
      },
    }),
  );
  return [section('Users', table.element), editor, handOver, section('Invite a user', invite)];
}

export async function seatsPage(): Promise<HTMLElement[]> {
  const license = await api('GET', '/api/client/license');
  // the document leaves the seats' shape open (z.unknown() in src/presenters/schemas.ts): as services/client-license.ts builds them
  const seats = (license.seats ?? {}) as Record<string, { allocated: number; used: number; free: number }>;
  return [
    section(
      'Seats in use',
      seatTable(
        'Seats of this organisation',
        ['Allocated', 'Used', 'Free'],
        Object.keys(seats).map((type) => [type, seats[type].allocated, seats[type].used, seats[type].free]),
      ),
      seatTypesExplained(),
      facts([
        ['License status', license.status],
        ['Expires', formatDate(license.expiresAt)],
      ]),
    ),
  ];
}

export async function securitySettingsPage(): Promise<HTMLElement[]> {
  const settings = await api('GET', '/api/client/auth/client-security-settings');
  // a Security Administrator (whose page this is) gets the whole settings, anyone else their public part
  const own = 'allowSelfApproval' in settings ? settings : undefined;
  return [
    section(
      'Security settings',
      form({
        label: 'Security settings',
        fields: [
          {
            name: 'passwordMinLength',
            label: 'Minimum password length',
            type: 'number',
            min: 12,
            value: settings.passwordPolicy.minLength,
          },
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
          {
            name: 'sessionIdleTimeout',
            label: 'Idle timeout (seconds)',
            type: 'number',
            min: 60,
            value: own?.sessionIdleTimeout,
            hint: 'Empty: the appliance default.',
          },
          {
            name: 'allowedSignUpDomains',
            label: 'Sign-up domains',
            value: (own?.allowedSignUpDomains ?? []).join(', '),
            hint: 'Comma-separated, e.g. example.com',
          },
          { name: 'ssoEnforced', label: 'Single sign-on required', type: 'checkbox', value: settings.ssoEnforced },
          { name: 'allowSelfApproval', label: 'Approvers may approve their own versions', type: 'checkbox', value: own?.allowSelfApproval },
        ],
        submit: 'Save settings',
        async onSubmit(values) {
          const domains = textOf(values.allowedSignUpDomains)
            .split(',')
            .map((d) => d.trim())
            .filter(Boolean);
          await api('PUT', '/api/client/auth/client-security-settings', {
            body: {
              passwordMinLength: values.passwordMinLength,
              twoFactorRequired: values.twoFactorRequired,
              sessionIdleTimeout: values.sessionIdleTimeout ?? null,
              allowedSignUpDomains: domains,
              ssoEnforced: values.ssoEnforced,
              allowSelfApproval: values.allowSelfApproval,
            },
          });
          return 'Settings saved.';
        },
      }),
    ),
    await recordsSection().catch((error) => section('Record bundles', h('p.error', {}, String((error as Error).message)))),
  ];
}

export async function msaPage(): Promise<HTMLElement[]> {
  const status = await api('GET', '/api/client/have-client-accepted-msa');
  const box = h('div');
  const show = (s: Answer<'GET', '/api/client/have-client-accepted-msa'>) =>
    replace(
      box,
      facts([
        ['Accepted', s.accepted ? 'yes' : 'no'],
        ['Version', s.version ?? '—'],
        ['Accepted at', formatDate(s.acceptedAt)],
      ]),
      s.version && !s.accepted
        ? h(
            'button.primary',
            {
              type: 'button',
              onclick: (event: Event) =>
                run(event.currentTarget as HTMLButtonElement, async () => {
                  await api('POST', '/api/client/accept-msa', { body: { version: s.version } });
                  show(await api('GET', '/api/client/have-client-accepted-msa'));
                  return 'MSA accepted.';
                }),
            },
            `Accept MSA version ${s.version}`,
          )
        : null,
      s.version
        ? h('p', {}, h('a', { href: '/api/client/download-agreement' }, 'Download the MSA (PDF)'))
        : h('p', {}, 'No MSA has been published.'),
    );
  show(status);
  return [section('Master services agreement', box)];
}
