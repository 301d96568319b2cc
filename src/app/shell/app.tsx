import { useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorBoundary, LocationProvider, Route, Router, useLocation } from 'preact-iso';
import type { AppLanguage } from '../../lib/app-texts';
import { ApiError, completePendingSignOut, hasSessionCookie, onSessionEnded, setErrorLocalizer, setRequestLanguage } from '../api/client';
import { onSignOutElsewhere, pendingSignOut } from '../api/sign-out-lock';
import { forgetOtherUsers, forgetUser, stopSync, userKey } from '../offline';
import { currentSession, renewSessionCookie, saveLanguage, signOut, type Session } from '../api/session';
import { builtInTexts, clientTexts, i18nFor, I18nContext, initialLanguage, rememberLanguage, type I18n, type Texts } from '../i18n';
import { ErrorNotice, Loading } from '../ui';
import { areasFor, routesOf } from './areas';
import { focusPageHeading } from './focus';
import { Home } from './home';
import { Layout } from './layout';
import { NotFound } from './not-found';
import { SessionContext, type SessionState } from './session-context';
import { SignIn } from './sign-in';
import { TwoFactorSetup } from './two-factor-setup';

/**
 * The app's root: the language and its texts, who is signed in, and the
 * router. Signed out, every path shows the sign-in page at
 * /app/signin?next=<the path asked for>, and after sign-in the app goes
 * there (a deep link survives the sign-in). A 401 from any request (the
 * session ended) does the same from wherever the user is.
 */

type State =
  | { kind: 'loading' }
  | { kind: 'signingOut' }
  | { kind: 'signedOut' }
  | { kind: 'signedIn'; session: Session; offline: boolean }
  | { kind: 'failed'; error: unknown };

const SESSION_KEY = 'wip.app.session';
const SIGN_OUT_RETRY_MS = 15_000;

/** The last session seen on this device (no token: who it was and the branding), for a start without network. */
function rememberedSession(): Session | null {
  try {
    return JSON.parse(localStorage.getItem(SESSION_KEY) ?? 'null') as Session | null;
  } catch {
    return null;
  }
}

/** A path under /app/ to return to after sign-in; anything else (another origin, /api/) is ignored. */
function safeNext(next: string | null): string {
  return next && /^\/app\/(?!signin)/.test(next) && !next.startsWith('//') ? next : '/app/';
}

export function App() {
  return (
    <LocationProvider scope="/app/">
      <Root />
    </LocationProvider>
  );
}

function Root() {
  const location = useLocation();
  const [language, setLanguage] = useState<AppLanguage>(initialLanguage);
  const [texts, setTexts] = useState<Texts>(() => builtInTexts(language));
  const [state, setState] = useState<State>({ kind: 'loading' });

  const load = async (): Promise<void> => {
    try {
      // signed out on this device, the server not told yet: what may be left of the user's goes (again) first
      const lock = pendingSignOut();
      if (lock?.user) await forgetUser(lock.user).catch(() => undefined);
      // no session cookie and no session remembered for working offline: the sign-in page, without a 401 to log
      const session = hasSessionCookie() || rememberedSession() ? await currentSession() : null;
      if (!session) {
        localStorage.removeItem(SESSION_KEY);
        setState({ kind: 'signedOut' });
        return;
      }
      localStorage.setItem(SESSION_KEY, JSON.stringify(session));
      await forgetOtherUsers(userKey(session.user)).catch(() => undefined);
      void renewSessionCookie().catch(() => undefined);
      const chosen = session.user.language ?? language;
      setLanguage(chosen);
      rememberLanguage(chosen);
      // the user's language goes with every request: instructions and PDFs in it where translated
      setRequestLanguage(chosen);
      setTexts(await clientTexts(chosen));
      setState({ kind: 'signedIn', session, offline: false });
    } catch (error) {
      const remembered = rememberedSession();
      const offline = error instanceof ApiError && error.offline;
      // signed out while offline: the sign-in page, which works once the network is back (never the last user's pages)
      if (offline && pendingSignOut()) setState({ kind: 'signedOut' });
      else if (offline && remembered) setState({ kind: 'signedIn', session: remembered, offline: true });
      else setState({ kind: 'failed', error });
    }
  };

  useEffect(() => {
    void load();
    return onSessionEnded(() => setState((current) => (current.kind === 'signedIn' ? { kind: 'signedOut' } : current)));
  }, []);

  useEffect(() => {
    // a sign-out still to reach the server: sent as soon as the network returns, not only with the next request
    const retry = () => void (pendingSignOut() && completePendingSignOut().catch(() => undefined));
    const timer = setInterval(retry, SIGN_OUT_RETRY_MS);
    window.addEventListener('online', retry);
    // signed out in another tab: this one leaves the user's page too; a page restored from the back-forward cache
    // after a sign-out starts again (and finds the sign-in page)
    const stopElsewhere = onSignOutElsewhere(() => window.location.replace('/app/signin'));
    const restored = (event: PageTransitionEvent) => {
      if (event.persisted && pendingSignOut()) window.location.reload();
    };
    window.addEventListener('pageshow', restored);
    return () => {
      clearInterval(timer);
      window.removeEventListener('online', retry);
      window.removeEventListener('pageshow', restored);
      stopElsewhere();
    };
  }, []);

  // signed out: the sign-in page, keeping where the user wanted to go; signed in: away from it
  useEffect(() => {
    if (state.kind === 'signedOut' && location.path !== '/app/signin') {
      // after a sign-out on this device, the previous user's page is not where the next person lands
      location.route(pendingSignOut() ? '/app/signin' : `/app/signin?next=${encodeURIComponent(location.url)}`, true);
    }
    if (state.kind === 'signedIn' && location.path === '/app/signin') {
      location.route(
        safeNext(new URLSearchParams(location.url.split('?')[1] ?? '').get('next') ?? sessionStorage.getItem('wip.app.next')),
        true,
      );
      sessionStorage.removeItem('wip.app.next');
    }
  }, [state.kind, location.path]);

  const i18n = useMemo<I18n>(() => {
    const bound = i18nFor(language, texts);
    // every refusal from now on in this language (src/app/error-text.ts): set here, before any request it answers
    setErrorLocalizer(bound.errorText);
    return {
      ...bound,
      async setLanguage(next: AppLanguage) {
        // texts, formats and <html lang> change in one render (the effect below sets lang after it): never English
        // words with German numbers under lang="de" while the client's own wording of the texts is on its way
        setLanguage(next);
        setTexts(builtInTexts(next));
        rememberLanguage(next);
        setRequestLanguage(next);
        if (state.kind === 'signedIn') {
          setTexts(await clientTexts(next));
          await saveLanguage(next).catch(() => undefined);
        }
      },
    };
  }, [language, texts, state.kind]);

  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);

  let content;
  if (state.kind === 'loading') content = <Loading label={i18n.t('shell.starting')} />;
  else if (state.kind === 'signingOut') content = <Loading label={i18n.t('shell.signingOut')} />;
  else if (state.kind === 'failed')
    content = (
      <main id="main" class="signin">
        <h1>{i18n.t('shell.startFailed')}</h1>
        <ErrorNotice error={state.error} />
      </main>
    );
  else if (state.kind === 'signedOut')
    content = <SignIn onSignedIn={load} language={language} onLanguage={(next) => void i18n.setLanguage(next)} />;
  else
    content = (
      <SignedIn
        session={state.session}
        offline={state.offline}
        refresh={load}
        signOut={async () => {
          // locked at once, before anything else (src/app/api/sign-out-lock.ts): no page and no request of the user's
          // from here on; the server is told now, or first thing when the network returns
          const user = state.session.user;
          const told = signOut(user);
          stopSync();
          localStorage.removeItem(SESSION_KEY);
          setState({ kind: 'signingOut' });
          await Promise.all([told, forgetUser(userKey(user)).catch(() => undefined)]);
          // a new page: nothing of the user's is left in memory (offline it comes from the service worker's cache)
          if (navigator.onLine || navigator.serviceWorker?.controller) window.location.replace('/app/signin');
          else setState({ kind: 'signedOut' });
        }}
      />
    );
  return <I18nContext.Provider value={i18n}>{content}</I18nContext.Provider>;
}

function SignedIn({
  session,
  offline,
  refresh,
  signOut,
}: {
  session: Session;
  offline: boolean;
  refresh: () => Promise<void>;
  signOut: () => Promise<void>;
}) {
  const value = useMemo<SessionState>(() => ({ session, offline, refresh, signOut }), [session, offline]);
  const routes = useMemo(() => routesOf(areasFor(session.user)), [session]);
  const brand = session.branding.displayName;
  const { path } = useLocation();
  // the first page of the visit: its title, not the focus (see focusPageHeading)
  useEffect(() => focusPageHeading(brand, false), []);
  if (path === '/app/signin') return <Loading />;
  return (
    <SessionContext.Provider value={value}>
      <Layout>
        {session.twoFactorSetupRequired && !offline ? (
          <TwoFactorSetup />
        ) : (
          <ErrorBoundary>
            <Router onRouteChange={() => focusPageHeading(brand)}>
              <Route path="/app/" component={Home} />
              {routes.map((route) => (
                <Route key={route.path} path={route.path} component={route.component} />
              ))}
              <Route default component={NotFound} />
            </Router>
          </ErrorBoundary>
        )}
      </Layout>
    </SessionContext.Provider>
  );
}
