import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { APP_LANGUAGES, type AppLanguage } from '../../lib/app-texts';
import { useI18n, useT } from '../i18n';
import { queuedItems, userKey } from '../offline';
import { Button, Dialog, Icon, Toasts } from '../ui';
import type { NavItem } from './area';
import { navFor } from './areas';
import { useSession } from './session-context';
import { SyncIndicator } from './sync-indicator';

/** Items of the phone's bottom bar before "More": five places of 72 px at 360 px, room for a German label. */
const BAR_ITEMS = 4;

/**
 * The signed-in frame of every page: a skip link, the header (the client's
 * logo and name, the sync indicator, the language, the user, sign out), the
 * navigation by role (a side rail from 600 px, a bottom bar on a phone with
 * "More" for what does not fit) and the main region the router fills.
 */
export function Layout({ children }: { children: ComponentChildren }) {
  const { t, language, setLanguage } = useI18n();
  const { session } = useSession();
  const { path } = useLocation();
  const nav = navFor(session.user);
  const current = currentItem(
    nav.map((item) => item.href),
    path,
  );
  // on a phone the bottom bar holds four items and "More" (the rest), or all of them when five fit
  const more = nav.length > BAR_ITEMS + 1 ? nav.slice(BAR_ITEMS) : [];
  const { branding, user } = session;
  return (
    <div class="app">
      <a
        class="skip-link"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        {t('shell.skip')}
      </a>
      <header class="app-header">
        <a class="brand" href="/app/">
          {branding.logoUrl && <img class="brand-logo" src={branding.logoUrl} alt="" />}
          <span class="brand-name">{branding.displayName || t('shell.appName')}</span>
        </a>
        <SyncIndicator />
        <div class="header-tools">
          <label class="language">
            <span class="visually-hidden">{t('shell.language.label')}</span>
            <Icon name="language" />
            <select value={language} onChange={(event) => void setLanguage(event.currentTarget.value as AppLanguage)}>
              {APP_LANGUAGES.map((code) => (
                <option key={code} value={code} lang={code}>
                  {t(`shell.language.${code}`)}
                </option>
              ))}
            </select>
          </label>
          <span class="who" title={`${user.name} (${user.email})`}>
            {user.name}
          </span>
          <SignOutButton />
        </div>
      </header>
      <div class="app-body">
        <nav class="app-nav" aria-label={t('shell.nav.label')}>
          <ul>
            {nav.map((item, index) => (
              <li key={item.href} class={more.length > 0 && index >= BAR_ITEMS ? 'nav-overflow' : undefined}>
                <NavLink item={item} current={current} />
              </li>
            ))}
            {more.length > 0 && (
              <li class="nav-more">
                <MoreMenu items={more} current={current} />
              </li>
            )}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </div>
      <Toasts dismissLabel={t('shell.dismiss')} />
    </div>
  );
}

function NavLink({ item, current }: { item: NavItem; current: string | undefined }) {
  const t = useT();
  return (
    <a href={item.href} aria-current={item.href === current ? 'page' : undefined}>
      {item.icon && <Icon name={item.icon} />}
      <span>{t(item.label)}</span>
    </a>
  );
}

/**
 * "More" in the phone's bottom bar: a disclosure button and the list of the
 * other pages above the bar (navigation links, so a disclosure rather than an
 * ARIA menu). Opening it moves the focus to its first link; Escape, a click
 * outside or choosing a page closes it. When the current page is one of them
 * the button is marked as current and says which page it is.
 */
function MoreMenu({ items, current }: { items: NavItem[]; current: string | undefined }) {
  const t = useT();
  const { path } = useLocation();
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const here = items.find((item) => item.href === current);
  useEffect(() => setOpen(false), [path]);
  useEffect(() => {
    if (!open) return undefined;
    root.current?.querySelector<HTMLElement>('.nav-more-list a[aria-current], .nav-more-list a')?.focus();
    const outside = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);
  return (
    <div
      ref={root}
      onKeyDown={(event) => {
        if (event.key !== 'Escape' || !open) return;
        setOpen(false);
        button.current?.focus();
      }}
    >
      <button
        ref={button}
        type="button"
        class={`nav-more-button${here ? ' is-current' : ''}`}
        aria-expanded={open}
        aria-controls="nav-more-list"
        onClick={() => setOpen(!open)}
      >
        <Icon name="more" />
        <span>{t('shell.nav.more')}</span>
        {here && <span class="visually-hidden"> {t('shell.nav.moreCurrent', { page: t(here.label) })}</span>}
      </button>
      <ul id="nav-more-list" class="nav-more-list" aria-label={t('shell.nav.moreLabel')} hidden={!open}>
        {items.map((item) => (
          <li key={item.href}>
            <NavLink item={item} current={current} />
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Sign out. With changes still waiting to be sent the user is warned first:
 * they stay on the device, bound to this user, and are sent when they sign in
 * here again (docs/guides/operator.md, "Shared devices").
 */
function SignOutButton() {
  const { t } = useI18n();
  const { session, signOut } = useSession();
  const [waiting, setWaiting] = useState(0);
  const [busy, setBusy] = useState(false);
  const leave = () => {
    setBusy(true);
    void signOut();
  };
  const ask = async () => {
    const items = await queuedItems(userKey(session.user)).catch(() => []);
    if (items.length > 0) setWaiting(items.length);
    else leave();
  };
  return (
    <>
      <button type="button" class="btn btn-ghost" onClick={() => void ask()}>
        <Icon name="signout" />
        <span class="label">{t('shell.signOut')}</span>
      </button>
      <Dialog
        open={waiting > 0}
        title={t('shell.signOutWaiting.title')}
        onClose={() => setWaiting(0)}
        actions={
          <>
            <Button variant="danger" busy={busy} onClick={leave}>
              {t('shell.signOutWaiting.confirm')}
            </Button>
            <Button onClick={() => setWaiting(0)}>{t('shell.signOutWaiting.stay')}</Button>
          </>
        }
      >
        <p>{t('shell.signOutWaiting.body', { n: waiting })}</p>
      </Dialog>
    </>
  );
}

/** The navigation entry of a path: the longest href it starts with (/app/jobs/12 → /app/jobs; /app/jobs/new → itself). */
function currentItem(hrefs: string[], path: string): string | undefined {
  const normalized = path.endsWith('/') ? path : `${path}/`;
  return hrefs
    .filter((href) =>
      href === '/app/' ? path === '/app/' || path === '/app' : normalized.startsWith(href.endsWith('/') ? href : `${href}/`),
    )
    .sort((a, b) => b.length - a.length)[0];
}
