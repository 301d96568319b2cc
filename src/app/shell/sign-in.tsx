import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, completePendingSignOut } from '../api/client';
import { pendingSignOut } from '../api/sign-out-lock';
import { APP_LANGUAGES, type AppLanguage } from '../../lib/app-texts';
import { useI18n } from '../i18n';
import { Button, CodeField, Notice, PasswordField, Select, TextField, useErrorText } from '../ui';
import type { SsoProviderKind } from '../../domain/vocabulary';

/**
 * Sign-in through the existing routes, as the console does: email and
 * password (POST /api/client/auth/sign-in sets the session and CSRF
 * cookies), then the second factor when the account has one
 * (verify-two-factor with the challenge), the client to choose when the
 * email exists in several. Single sign-on: a button for the provider this
 * device last used or the link named (/app/signin?sso=oidc:<name>); the
 * provider's post-login URL set to /app/signin brings the one-time ?code=
 * back here, exchanged at /api/client/auth/sso/exchange.
 */

type Step = { kind: 'password' } | { kind: 'code'; challengeToken: string } | { kind: 'client'; clients: { id: number; name: string }[] };

interface SsoChoice {
  /** the kinds with a sign-in page (a directory only provisions users) */
  kind: Exclude<SsoProviderKind, 'directory'>;
  provider: string;
}

const SSO_KEY = 'wip.app.sso';

function ssoChoice(): SsoChoice | null {
  const named = new URLSearchParams(location.search).get('sso');
  const text = named ?? localStorage.getItem(SSO_KEY);
  const match = text ? /^(oidc|saml|dynamics):([A-Za-z0-9_.-]{0,64})$/.exec(text) : null;
  if (!match) return null;
  if (named) localStorage.setItem(SSO_KEY, named);
  return { kind: match[1] as SsoChoice['kind'], provider: match[2] };
}

function ssoStart(choice: SsoChoice): string {
  const provider = choice.provider ? `?provider=${encodeURIComponent(choice.provider)}` : '';
  if (choice.kind === 'saml') return `/api/client/auth/vendor-saml${provider}`;
  if (choice.kind === 'dynamics') return `/api/client/auth/vendor-dynamics${provider}`;
  return `/api/client/auth/oidc${provider}`;
}

export function SignIn({
  onSignedIn,
  language,
  onLanguage,
}: {
  onSignedIn: () => Promise<void>;
  language: AppLanguage;
  onLanguage: (language: AppLanguage) => void;
}) {
  const { t } = useI18n();
  const errorText = useErrorText();
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [clientId, setClientId] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [ssoRequired, setSsoRequired] = useState(false);
  const sso = ssoChoice();
  const form = useRef<HTMLFormElement>(null);
  const [signOutWaits, setSignOutWaits] = useState(() => pendingSignOut() !== null);

  // signed out while offline: said until the server has ended the session (the shell sends it when it can)
  useEffect(() => {
    if (!signOutWaits) return undefined;
    const timer = setInterval(() => setSignOutWaits(pendingSignOut() !== null), 1000);
    return () => clearInterval(timer);
  }, [signOutWaits]);

  useEffect(() => {
    document.title = t('shell.signIn.title');
    form.current?.querySelector<HTMLInputElement>('input')?.focus();
  }, [step.kind]);

  // back from the identity provider: ?code= (one-time) or ?error=
  useEffect(() => {
    const params = new URLSearchParams(location.search);
    const ssoCode = params.get('code');
    const ssoError = params.get('error');
    if (ssoError) setError(t('shell.signIn.ssoFailed', { code: ssoError }));
    if (!ssoCode) return;
    history.replaceState(
      null,
      '',
      `/app/signin${sessionStorage.getItem('wip.app.next') ? `?next=${encodeURIComponent(sessionStorage.getItem('wip.app.next')!)}` : ''}`,
    );
    void submit(() => api('POST', '/api/client/auth/sso/exchange', { code: ssoCode }, { quiet401: true }));
  }, []);

  async function submit(call: () => Promise<{ twoFactorRequired?: boolean; challengeToken?: string }>): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      const result = await call();
      if (result.twoFactorRequired && result.challengeToken) {
        setStep({ kind: 'code', challengeToken: result.challengeToken });
        setCode('');
        return;
      }
      await onSignedIn();
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === 'CLIENT_SELECTION_REQUIRED' && Array.isArray(failure.details.clients)) {
        setStep({ kind: 'client', clients: failure.details.clients as { id: number; name: string }[] });
        return;
      }
      if (failure instanceof ApiError && failure.code === 'SSO_REQUIRED') setSsoRequired(true);
      setError(failure instanceof ApiError && failure.code === 'INVALID_CREDENTIALS' ? t('shell.signIn.invalid') : errorText(failure));
    } finally {
      setBusy(false);
    }
  }

  const signInWithPassword = (event: Event) => {
    event.preventDefault();
    const identifier = email.trim();
    if (!identifier.includes('@')) {
      setError(t('shell.signIn.notAnEmail'));
      return;
    }
    const body: Record<string, unknown> = { email: identifier, password };
    if (step.kind === 'client' && clientId) body.clientId = Number(clientId);
    void submit(() => api('POST', '/api/client/auth/sign-in', body, { quiet401: true }));
  };

  const verifyCode = (event: Event) => {
    event.preventDefault();
    if (step.kind !== 'code') return;
    void submit(() =>
      api('POST', '/api/client/auth/verify-two-factor', { challengeToken: step.challengeToken, code: code.trim() }, { quiet401: true }),
    );
  };

  const startSso = async () => {
    if (!sso) return;
    const next = new URLSearchParams(location.search).get('next');
    if (next) sessionStorage.setItem('wip.app.next', next);
    // the provider's round trip is a navigation, past the API client: a sign-out still pending goes first
    try {
      await completePendingSignOut();
    } catch (failure) {
      setError(errorText(failure));
      return;
    }
    location.assign(ssoStart(sso));
  };

  return (
    <div class="signin-page">
      <main id="main" class="signin" tabIndex={-1}>
        <h1>{step.kind === 'code' ? t('shell.signIn.codeTitle') : t('shell.signIn.title')}</h1>
        {signOutWaits && <Notice tone="info">{t('shell.signIn.signOutPending')}</Notice>}
        {error && <Notice tone="danger">{error}</Notice>}
        {step.kind === 'code' ? (
          <form ref={form} onSubmit={verifyCode} aria-label={t('shell.signIn.codeTitle')}>
            <p>{t('shell.signIn.codeIntro')}</p>
            <CodeField label={t('shell.signIn.code')} value={code} onValue={setCode} />
            <Button type="submit" variant="primary" busy={busy}>
              {t('shell.signIn.verify')}
            </Button>
            <Button variant="ghost" onClick={() => setStep({ kind: 'password' })}>
              {t('shell.signIn.back')}
            </Button>
          </form>
        ) : (
          <form ref={form} onSubmit={signInWithPassword} aria-label={t('shell.signIn.title')}>
            <TextField label={t('shell.signIn.email')} type="email" value={email} onValue={setEmail} autocomplete="username" required />
            <PasswordField label={t('shell.signIn.password')} value={password} onValue={setPassword} />
            {step.kind === 'client' && (
              <Select
                label={t('shell.signIn.client')}
                hint={t('shell.signIn.clientHint')}
                value={clientId}
                onValue={setClientId}
                placeholder={t('shell.choose')}
                required
                options={step.clients.map((client) => ({ value: String(client.id), label: client.name }))}
              />
            )}
            <Button type="submit" variant="primary" busy={busy}>
              {t('shell.signIn.submit')}
            </Button>
          </form>
        )}
        {sso && step.kind === 'password' && (
          <div class="sso">
            {ssoRequired && <p>{t('shell.signIn.ssoRequired')}</p>}
            <Button variant={ssoRequired ? 'primary' : 'secondary'} onClick={() => void startSso()}>
              {t('shell.signIn.sso')}
            </Button>
          </div>
        )}
        <p class="signin-foot">
          {t('shell.signIn.adminHint')} <a href="/console/">{t('shell.signIn.console')}</a>
        </p>
        <label class="language signin-language">
          <span>{t('shell.language.label')}</span>
          <select value={language} onChange={(event) => onLanguage(event.currentTarget.value as AppLanguage)}>
            {APP_LANGUAGES.map((tag) => (
              <option key={tag} value={tag} lang={tag}>
                {t(`shell.language.${tag}`)}
              </option>
            ))}
          </select>
        </label>
      </main>
    </div>
  );
}
