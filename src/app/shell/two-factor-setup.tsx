import { useState } from 'preact/hooks';
import { api } from '../api/client';
import { useT } from '../i18n';
import { Button, Card, CodeField, Notice, PageHeader, PasswordField, useErrorText } from '../ui';
import { useSession } from './session-context';

/**
 * The client requires a second factor and this user has none: before
 * anything else they enrol here (POST two-factor/setup with their password →
 * the QR code for an authenticator app → a first code to two-factor/enable →
 * the recovery codes, shown once). The server refuses every other route
 * until then (TWO_FACTOR_SETUP_REQUIRED).
 */
export function TwoFactorSetup() {
  const t = useT();
  const errorText = useErrorText();
  const { refresh } = useSession();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [setup, setSetup] = useState<{ secret: string; qrCodeDataUrl: string } | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = async (step: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await step();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title={t('shell.twoFactor.title')} subtitle={t('shell.twoFactor.intro')} />
      {error && <Notice tone="danger">{error}</Notice>}
      {recoveryCodes ? (
        <Card heading={t('shell.twoFactor.recoveryTitle')}>
          <p>{t('shell.twoFactor.recoveryIntro')}</p>
          <ul class="recovery-codes">
            {recoveryCodes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
          <Button variant="primary" onClick={() => void refresh()}>
            {t('shell.twoFactor.continue')}
          </Button>
        </Card>
      ) : setup ? (
        <form
          class="form-grid"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => {
              const answer = await api<{ recoveryCodes: string[] }>('POST', '/api/client/auth/two-factor/enable', { code: code.trim() });
              setRecoveryCodes(answer.recoveryCodes);
            });
          }}
        >
          <Card heading={t('shell.twoFactor.scanTitle')}>
            <img class="qr" src={setup.qrCodeDataUrl} alt={t('shell.twoFactor.qrAlt')} width={200} height={200} />
            <p>
              {t('shell.twoFactor.secret')} <code>{setup.secret}</code>
            </p>
            <CodeField label={t('shell.signIn.code')} value={code} onValue={setCode} />
            <Button type="submit" variant="primary" busy={busy}>
              {t('shell.twoFactor.enable')}
            </Button>
          </Card>
        </form>
      ) : (
        <form
          class="form-grid"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () =>
              setSetup(await api<{ secret: string; qrCodeDataUrl: string }>('POST', '/api/client/auth/two-factor/setup', { password })),
            );
          }}
        >
          <Card heading={t('shell.twoFactor.passwordTitle')}>
            <PasswordField label={t('shell.signIn.password')} value={password} onValue={setPassword} />
            <Button type="submit" variant="primary" busy={busy}>
              {t('shell.twoFactor.start')}
            </Button>
          </Card>
        </form>
      )}
    </>
  );
}
