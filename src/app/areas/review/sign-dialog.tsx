import { useEffect, useState } from 'preact/hooks';
import { ApiError, graphql } from '../../api/client';
import { useI18n } from '../../i18n';
import { Button, Dialog, Notice, TextField, useErrorText } from '../../ui';
import { personName, SIGN, type Person, type ReviewVersion, type SignedAction } from './queries';

/**
 * An electronic signature (21 CFR Part 11): before anything is sent the
 * dialog shows what is signed (the template, its version and the content's
 * fingerprint), by whom and with which meaning; the signer confirms with
 * their password or a current two-factor code. The server checks it: a wrong
 * one comes back as its answer, shown here, and nothing is signed.
 */
const MEANING: Record<SignedAction, 'APPROVED' | 'REJECTED' | 'PUBLISHED'> = { APPROVE: 'APPROVED', REJECT: 'REJECTED', PUBLISH: 'PUBLISHED' };

export interface SignDialogProps {
  action: SignedAction | null;
  version: ReviewVersion;
  signer: Person;
  onClose: () => void;
  onSigned: (action: SignedAction) => void;
}

export function SignDialog({ action, version, signer, onClose, onSigned }: SignDialogProps) {
  const { t, formatDate } = useI18n();
  const errorText = useErrorText();
  const [reason, setReason] = useState('');
  const [method, setMethod] = useState<'password' | 'code'>('password');
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [reasonError, setReasonError] = useState<string | null>(null);

  // every opening starts empty: a password never lingers in a closed dialog
  useEffect(() => {
    setReason('');
    setSecret('');
    setMethod('password');
    setError(null);
    setReasonError(null);
  }, [action]);

  if (!action) return <Dialog open={false} title="" onClose={onClose} children={null} />;
  const meaning = t(`review.meaning.${MEANING[action]}`);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (action === 'REJECT' && reason.trim() === '') {
      setReasonError(t('review.sign.reasonRequired'));
      return;
    }
    setBusy(true);
    setError(null);
    setReasonError(null);
    try {
      await graphql(SIGN[action], {
        versionId: version.id,
        password: method === 'password' ? secret : null,
        code: method === 'code' ? secret.trim() : null,
        ...(action === 'REJECT' && { reason }),
      });
      setSecret('');
      onSigned(action);
    } catch (caught) {
      setSecret('');
      const reasonProblem = caught instanceof ApiError ? caught.fields.find((f) => f.path.endsWith('reason')) : undefined;
      if (reasonProblem) setReasonError(reasonProblem.message);
      else setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const formId = `sign-${action.toLowerCase()}`;
  return (
    <Dialog
      open
      title={t(`review.sign.title.${action}`)}
      onClose={onClose}
      actions={
        <>
          <Button onClick={onClose} disabled={busy}>
            {t('review.sign.cancel')}
          </Button>
          <Button type="submit" form={formId} variant={action === 'REJECT' ? 'danger' : 'primary'} busy={busy}>
            {t(`review.sign.submit.${action}`)}
          </Button>
        </>
      }
    >
      <form id={formId} class="sign-form" onSubmit={(event) => void submit(event)} noValidate>
        <dl class="sign-manifest">
          <div>
            <dt>{t('review.sign.document')}</dt>
            <dd>{t('review.queue.item', { title: version.template.title, number: version.number })}</dd>
          </div>
          <div>
            <dt>{t('review.sign.fingerprint')}</dt>
            <dd>
              <code class="hash">{version.contentHash}</code>
            </dd>
          </div>
          <div>
            <dt>{t('review.sign.signer')}</dt>
            <dd>
              {personName(signer)} ({signer.email})
            </dd>
          </div>
          <div>
            <dt>{t('review.sign.meaning')}</dt>
            <dd>
              <strong class="sign-meaning">{meaning}</strong>
            </dd>
          </div>
          <div>
            <dt>{t('review.sign.date')}</dt>
            <dd>{formatDate(new Date().toISOString(), true)}</dd>
          </div>
        </dl>
        <p class="sign-statement">{t('review.sign.statement', { name: personName(signer), meaning })}</p>
        {action === 'REJECT' && (
          <TextField label={t('review.sign.reason')} value={reason} onValue={setReason} multiline rows={3} required maxLength={2000} error={reasonError} hint={t('review.sign.reasonHint')} />
        )}
        <fieldset class="sign-method">
          <legend>{t('review.sign.confirmWith')}</legend>
          {(['password', 'code'] as const).map((value) => (
            <label key={value} class="radio">
              <input type="radio" name={`${formId}-method`} value={value} checked={method === value} onChange={() => {
                  setMethod(value);
                  setSecret('');
                }} />
              {t(`review.sign.method.${value}`)}
            </label>
          ))}
        </fieldset>
        {method === 'password' ? (
          <TextField key="password" label={t('review.sign.password')} type="password" value={secret} onValue={setSecret} autoComplete="current-password" required />
        ) : (
          <TextField key="code" label={t('review.sign.code')} value={secret} onValue={setSecret} autoComplete="one-time-code" inputMode="numeric" required hint={t('review.sign.codeHint')} />
        )}
        {error !== null && <Notice tone="danger">{t('review.sign.refused', { message: errorText(error) })}</Notice>}
      </form>
    </Dialog>
  );
}
