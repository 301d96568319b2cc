import { useEffect, useState } from 'preact/hooks';
import { ApiError, graphql, requestLanguage } from '../api/client';
import { useI18n } from '../i18n';
import { jobDocument, type JobData } from '../offline/job-data';
import { Button, Dialog, Notice, TextField } from '../ui';

export type StepMeaning = 'PERFORMED' | 'VERIFIED';

/** The codes a step signature is refused with that people should read in plain words (rules.*.json). */
const PLAIN = new Set([
  'SEPARATION_OF_DUTIES',
  'INVALID_CREDENTIALS',
  'FORBIDDEN',
  'STEP_NOT_APPLICABLE',
  'CONFLICT',
  'JOB_CLOSED',
  'VALIDATION_ERROR',
  'TOO_MANY_REQUESTS',
  'ACCOUNT_LOCKED',
]);

/** A refusal of signStep in plain words (the server's message for the rest). */
export function signRefusalText(t: (key: string, values?: Record<string, string | number>) => string, error: unknown): string {
  if (error instanceof ApiError) {
    if (error.offline) return t('rules.sign.error.OFFLINE');
    if (PLAIN.has(error.code)) return t(`rules.sign.error.${error.code}`);
    return t('rules.sign.error.other', { message: error.message });
  }
  return error instanceof Error ? error.message : String(error);
}

export interface SignStepDialogProps {
  open: boolean;
  /** the job's global id */
  jobId: string;
  stepId: string;
  stepTitle: string;
  meaning: StepMeaning;
  signer: { name: string; email: string };
  onClose: () => void;
  /** the job as the server has it after the signature */
  onSigned: (job: JobData) => void;
}

/**
 * A step's e-signature (docs/execution-rules.md): what is signed (the step, as
 * recorded), by whom and with which meaning shown before anything is sent; the
 * signer confirms with their password or a current two-factor code. signStep
 * signs as the signed-in user, so a verifier signs in their own session.
 * Online only: the server checks the password and the separation of duties.
 */
export function SignStepDialog({ open, jobId, stepId, stepTitle, meaning, signer, onClose, onSigned }: SignStepDialogProps) {
  const { t, formatDate } = useI18n();
  const [method, setMethod] = useState<'password' | 'code'>('password');
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  // every opening starts empty: a password never lingers in a closed dialog
  useEffect(() => {
    setSecret('');
    setMethod('password');
    setError(null);
  }, [open, stepId, meaning]);

  const name = signer.name || signer.email;
  const meaningText = t(`rules.meaning.${meaning}`);
  const formId = `sign-step-${meaning.toLowerCase()}`;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!secret.trim()) return setError(new ApiError(422, 'VALIDATION_ERROR', t('rules.sign.secretMissing')));
    setBusy(true);
    setError(null);
    try {
      const data = await graphql<{ signStep: { job: JobData } }>(
        `mutation AppSignStep($input: SignStepInput!, $language: String) { signStep(input: $input) { job { ${await jobDocument()} } } }`,
        {
          language: requestLanguage(),
          input: {
            jobId,
            stepId,
            meaning,
            password: method === 'password' ? secret : null,
            code: method === 'code' ? secret.trim() : null,
          },
        },
      );
      setSecret('');
      onSigned(data.signStep.job);
    } catch (caught) {
      setSecret('');
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      title={t(`rules.sign.title.${meaning}`)}
      onClose={onClose}
      actions={
        <>
          <Button onClick={onClose} disabled={busy}>
            {t('rules.sign.cancel')}
          </Button>
          <Button type="submit" form={formId} variant="primary" busy={busy}>
            {t('rules.sign.submit')}
          </Button>
        </>
      }
    >
      <form id={formId} class="sign-form" onSubmit={(event) => void submit(event)} noValidate>
        <dl class="sign-manifest">
          <div>
            <dt>{t('rules.sign.step')}</dt>
            <dd>{stepTitle}</dd>
          </div>
          <div>
            <dt>{t('rules.sign.signer')}</dt>
            <dd>
              {name} ({signer.email})
            </dd>
          </div>
          <div>
            <dt>{t('rules.sign.meaning')}</dt>
            <dd>
              <strong>{meaningText}</strong>
            </dd>
          </div>
          <div>
            <dt>{t('rules.sign.date')}</dt>
            <dd>{formatDate(new Date().toISOString(), true)}</dd>
          </div>
        </dl>
        <p>{t('rules.sign.statement', { name, meaning: meaningText })}</p>
        <fieldset class="sign-method">
          <legend>{t('rules.sign.confirmWith')}</legend>
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
              {t(`rules.sign.method.${value}`)}
            </label>
          ))}
        </fieldset>
        {method === 'password' ? (
          <TextField
            key="password"
            label={t('rules.sign.password')}
            type="password"
            value={secret}
            onValue={setSecret}
            autoComplete="current-password"
            required
          />
        ) : (
          <TextField
            key="code"
            label={t('rules.sign.code')}
            value={secret}
            onValue={setSecret}
            autoComplete="one-time-code"
            inputMode="numeric"
            required
          />
        )}
        {error !== null && <Notice tone="danger">{signRefusalText(t, error)}</Notice>}
      </form>
    </Dialog>
  );
}
