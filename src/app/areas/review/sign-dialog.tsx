import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, graphql } from '../../api/client';
import { useI18n } from '../../i18n';
import { Button, Dialog, Notice, TextField, useErrorText } from '../../ui';
import { personName, SIGN, type Person, type ReviewVersion, type SignedAction } from './queries';

/**
 * An electronic signature (21 CFR Part 11): before anything is sent the
 * dialog shows what is signed (a version: the template, its number and the
 * content's fingerprint; a job: its title and deviations), by whom and with
 * which meaning; the signer confirms with their password or a current
 * two-factor code. The server checks it: a wrong one comes back as its
 * answer, shown here, and nothing is signed. ESignatureDialog is the dialog;
 * SignDialog signs a version (approve, reject, publish), the exceptions page
 * a job's review (reviewJob).
 */
const MEANING: Record<SignedAction, 'APPROVED' | 'REJECTED' | 'PUBLISHED'> = {
  APPROVE: 'APPROVED',
  REJECT: 'REJECTED',
  PUBLISH: 'PUBLISHED',
};

export interface ESignatureDialogProps {
  open: boolean;
  /** the form's id (unique on the page) */
  formId: string;
  title: string;
  submitLabel: string;
  danger?: boolean;
  /** what is signed, shown before anything is sent: rows above the signer, the meaning and the date */
  subject: { label: string; value: ComponentChildren }[];
  signer: Person;
  /** the meaning, in words */
  meaning: string;
  /** what the signer declares */
  statement: string;
  /** more fields of the form (a reason, a comment), after the statement */
  children?: ComponentChildren;
  /** checks the extra fields before sending; false stops (the fields show why) */
  validate?: () => boolean;
  /** sends the signature with the credentials; a refusal rejects */
  sign: (credentials: { password: string | null; code: string | null }) => Promise<unknown>;
  /** a refusal about an extra field: true when that field shows it */
  onFieldProblem?: (caught: unknown) => boolean;
  onClose: () => void;
  onSigned: () => void;
}

export function ESignatureDialog({
  open,
  formId,
  title,
  submitLabel,
  danger,
  subject,
  signer,
  meaning,
  statement,
  children,
  validate,
  sign,
  onFieldProblem,
  onClose,
  onSigned,
}: ESignatureDialogProps) {
  const { t, formatDate } = useI18n();
  const errorText = useErrorText();
  const [method, setMethod] = useState<'password' | 'code'>('password');
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  // every opening starts empty: a password never lingers in a closed dialog
  useEffect(() => {
    setSecret('');
    setMethod('password');
    setError(null);
  }, [open, formId]);

  if (!open) return <Dialog open={false} title="" onClose={onClose} children={null} />;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (validate && !validate()) return;
    setBusy(true);
    setError(null);
    try {
      await sign({ password: method === 'password' ? secret : null, code: method === 'code' ? secret.trim() : null });
      setSecret('');
      onSigned();
    } catch (caught) {
      setSecret('');
      if (!onFieldProblem?.(caught)) setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      title={title}
      onClose={onClose}
      actions={
        <>
          <Button onClick={onClose} disabled={busy}>
            {t('review.sign.cancel')}
          </Button>
          <Button type="submit" form={formId} variant={danger ? 'danger' : 'primary'} busy={busy}>
            {submitLabel}
          </Button>
        </>
      }
    >
      <form id={formId} class="sign-form" onSubmit={(event) => void submit(event)} noValidate>
        <dl class="sign-manifest">
          {subject.map((row) => (
            <div key={row.label}>
              <dt>{row.label}</dt>
              <dd>{row.value}</dd>
            </div>
          ))}
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
        <p class="sign-statement">{statement}</p>
        {children}
        <fieldset class="sign-method">
          <legend>{t('review.sign.confirmWith')}</legend>
          {(['password', 'code'] as const).map((value) => (
            <label key={value} class="radio">
              <input
                type="radio"
                name={`${formId}-method`}
                value={value}
                checked={method === value}
                onChange={() => {
                  setMethod(value);
                  setSecret('');
                }}
              />
              {t(`review.sign.method.${value}`)}
            </label>
          ))}
        </fieldset>
        {method === 'password' ? (
          <TextField
            key="password"
            label={t('review.sign.password')}
            type="password"
            value={secret}
            onValue={setSecret}
            autoComplete="current-password"
            required
          />
        ) : (
          <TextField
            key="code"
            label={t('review.sign.code')}
            value={secret}
            onValue={setSecret}
            autoComplete="one-time-code"
            inputMode="numeric"
            required
            hint={t('review.sign.codeHint')}
          />
        )}
        {error !== null && <Notice tone="danger">{t('review.sign.refused', { message: errorText(error) })}</Notice>}
      </form>
    </Dialog>
  );
}

export interface SignDialogProps {
  action: SignedAction | null;
  version: ReviewVersion;
  signer: Person;
  onClose: () => void;
  onSigned: (action: SignedAction) => void;
}

/** Signs a version: approve, reject (with a reason) or publish. */
export function SignDialog({ action, version, signer, onClose, onSigned }: SignDialogProps) {
  const { t } = useI18n();
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);

  useEffect(() => {
    setReason('');
    setReasonError(null);
  }, [action]);

  if (!action) return <Dialog open={false} title="" onClose={onClose} children={null} />;
  const meaning = t(`review.meaning.${MEANING[action]}`);
  return (
    <ESignatureDialog
      open
      formId={`sign-${action.toLowerCase()}`}
      title={t(`review.sign.title.${action}`)}
      submitLabel={t(`review.sign.submit.${action}`)}
      danger={action === 'REJECT'}
      subject={[
        { label: t('review.sign.document'), value: t('review.queue.item', { title: version.template.title, number: version.number }) },
        { label: t('review.sign.fingerprint'), value: <code class="hash">{version.contentHash}</code> },
      ]}
      signer={signer}
      meaning={meaning}
      statement={t('review.sign.statement', { name: personName(signer), meaning })}
      validate={() => {
        if (action === 'REJECT' && reason.trim() === '') {
          setReasonError(t('review.sign.reasonRequired'));
          return false;
        }
        setReasonError(null);
        return true;
      }}
      sign={(credentials) => graphql(SIGN[action], { versionId: version.id, ...credentials, ...(action === 'REJECT' && { reason }) })}
      onFieldProblem={(caught) => {
        const reasonProblem = caught instanceof ApiError ? caught.fields.find((f) => f.path.endsWith('reason')) : undefined;
        if (reasonProblem) setReasonError(reasonProblem.message);
        return reasonProblem !== undefined;
      }}
      onClose={onClose}
      onSigned={() => onSigned(action)}
    >
      {action === 'REJECT' && (
        <TextField
          label={t('review.sign.reason')}
          value={reason}
          onValue={setReason}
          multiline
          rows={3}
          required
          maxLength={2000}
          error={reasonError}
          hint={t('review.sign.reasonHint')}
        />
      )}
    </ESignatureDialog>
  );
}
