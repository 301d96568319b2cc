import './console.css';
import { h, replace } from './dom';
import { errorText } from './ui';
import { currentSession, signOut, type Session } from './session';
import { setPasswordPage, signInPage } from './signin';
import {
  agreementsPage,
  changePasswordPage,
  clientsPage,
  clientUsersPage,
  licenseKeyPage,
  licensesPage,
  logsPage,
  overviewPage,
  translationsPage,
} from './admin-pages';
import { backupsPage, outboxPage, securityEventsPage } from './operations-pages';
import { msaPage, seatsPage, securitySettingsPage, usersPage } from './security-admin-pages';

/**
 * The console's shell: finds out who the session cookie belongs to, then shows
 * the sign-in page or the pages of that kind of administrator. Pages live
 * behind hash routes (#/clients), so the server serves one HTML page.
 */

type PageRender = () => HTMLElement[] | Promise<HTMLElement[]>;
interface PageEntry {
  path: string;
  title: string;
  render: PageRender;
  nav?: boolean;
}

const app = document.getElementById('app')!;
let session: Session = { kind: 'none' };

function adminPages(): PageEntry[] {
  return [
    { path: 'overview', title: 'Overview', render: overviewPage },
    { path: 'clients', title: 'Clients', render: clientsPage },
    { path: 'licenses', title: 'Licenses', render: licensesPage },
    { path: 'license-key', title: 'License key', render: licenseKeyPage },
    { path: 'agreements', title: 'Agreements', render: agreementsPage },
    { path: 'logs', title: 'Logs', render: logsPage },
    { path: 'security-events', title: 'Security events', render: securityEventsPage },
    { path: 'mail', title: 'Mail outbox', render: outboxPage },
    { path: 'backups', title: 'Backups', render: backupsPage },
    { path: 'translations', title: 'Translations', render: translationsPage },
    { path: 'password', title: 'Change password', render: () => changePasswordPage(passwordChanged) },
  ];
}

function securityAdminPages(): PageEntry[] {
  return [
    { path: 'users', title: 'Users', render: () => usersPage(session.kind === 'user' ? session.id : 0) },
    { path: 'seats', title: 'Seats', render: seatsPage },
    { path: 'security', title: 'Security settings', render: securitySettingsPage },
    { path: 'msa', title: 'MSA', render: msaPage },
  ];
}

function pagesOf(current: Session): PageEntry[] {
  if (current.kind === 'admin') return adminPages();
  if (current.kind === 'user' && current.roles.includes('admin')) return securityAdminPages();
  return [];
}

/** The generated password is gone: so is the first-run banner (the page stays, with its success message). */
function passwordChanged(): void {
  if (session.kind === 'admin') session.initialPasswordInUse = false;
  document.getElementById('first-run')?.remove();
}

async function refreshSession(): Promise<void> {
  session = await currentSession();
  await render();
}

async function render(): Promise<void> {
  const path = location.pathname;
  const link = /^\/auth\/(set|reset)-password\/([^/]+)$/.exec(path);
  if (link) {
    replace(
      app,
      setPasswordPage(link[1] as 'set' | 'reset', decodeURIComponent(link[2]), () => void refreshSession()),
    );
    return;
  }
  if (session.kind === 'none') {
    document.title = 'Sign in · wip console';
    replace(
      app,
      signInPage(() => void refreshSession()),
    );
    app.querySelector('input')?.focus();
    return;
  }
  const pages = pagesOf(session);
  const route = location.hash.replace(/^#\/?/, '');
  const clientUsers = /^clients\/(\d+)\/users$/.exec(route);
  const entry: PageEntry | undefined =
    clientUsers && session.kind === 'admin'
      ? { path: route, title: 'Users of a client', render: () => clientUsersPage(Number(clientUsers[1])) }
      : (pages.find((p) => p.path === route) ?? pages[0]);
  const main = h('main', { id: 'main', tabindex: '-1' });
  replace(
    app,
    h(
      'a.skip',
      {
        href: '#main',
        onclick: (event: Event) => {
          event.preventDefault();
          main.focus();
        },
      },
      'Skip to content',
    ),
    header(),
    h('div.layout', {}, nav(pages, entry), main),
  );
  if (!entry) {
    replace(
      main,
      h('h1', {}, 'Nothing to administer'),
      h('p', {}, 'Your account holds no administrator role. The console is for system administrators and Security Administrators.'),
      // authors, reviewers, supervisors and operators work in the floor app
      h('p', {}, 'Templates, reviews and jobs are in the floor app: ', h('a', { href: '/app/' }, 'open the floor app'), '.'),
    );
    return;
  }
  document.title = `${entry.title} · wip console`;
  replace(
    main,
    h('h1', {}, entry.title),
    firstRunBanner(),
    h('div', { id: 'notices', role: 'status', 'aria-live': 'polite' }),
    h('p.loading', {}, 'Loading…'),
  );
  try {
    const content = await entry.render();
    main.querySelector('.loading')?.replaceWith(...content);
  } catch (error) {
    main.querySelector('.loading')?.replaceWith(h('p.notice.error', { role: 'alert' }, errorText(error)));
  }
}

function header(): HTMLElement {
  const who = session.kind === 'admin' ? `${session.username} (system administrator)` : session.kind === 'user' ? session.email : '';
  return h(
    'header.top',
    {},
    h('span.brand', {}, 'wip console'),
    h('span.who', {}, who),
    h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          await signOut(session).catch(() => undefined);
          session = { kind: 'none' };
          location.hash = '';
          await render();
        },
      },
      'Sign out',
    ),
  );
}

function nav(pages: PageEntry[], current: PageEntry | undefined): HTMLElement {
  return h(
    'nav.side',
    { 'aria-label': 'Console pages' },
    h(
      'ul',
      {},
      pages
        .filter((p) => p.nav !== false)
        .map((p) =>
          h(
            'li',
            {},
            h(
              'a',
              {
                href: `#/${p.path}`,
                onclick: reopen,
                'aria-current': p === current || current?.path.startsWith(`${p.path}/`) ? 'page' : undefined,
              },
              p.title,
            ),
          ),
        ),
    ),
  );
}

/**
 * A link to the page already shown changes no hash, so no hashchange would
 * render it again and its old messages (an error) would stay: render it anew,
 * as any other navigation does.
 */
function reopen(event: Event): void {
  const link = event.currentTarget as HTMLAnchorElement;
  if (link.hash !== location.hash) return;
  event.preventDefault();
  void render();
}

/** First run: the password generated at install still opens the admin account. */
function firstRunBanner(): HTMLElement | null {
  if (session.kind !== 'admin' || !session.initialPasswordInUse) return null;
  return h(
    'div.banner.warning',
    { role: 'alert', id: 'first-run' },
    h(
      'p',
      {},
      'You are using the password generated at installation. ',
      h('a', { href: '#/password' }, 'Change it now'),
      ' before you go on.',
    ),
  );
}

window.addEventListener('hashchange', () => void render());
// back from another page (a download, the API docs): the browser may restore this one from its cache, messages
// and all; it is drawn anew instead, so an old error does not greet the administrator
window.addEventListener('pageshow', (event) => {
  if (event.persisted) void refreshSession();
});
refreshSession().catch((error) =>
  replace(app, h('main', { id: 'main' }, h('h1', {}, 'The console could not start'), h('p', { role: 'alert' }, errorText(error)))),
);
