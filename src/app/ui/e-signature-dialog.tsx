import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useI18n } from '../i18n';
import { Button } from './button';
import { Dialog } from './dialog';
import { CodeField, PasswordField } from './fields';
import { Notice, useErrorText } from './layout';

/**
 * An electronic signature (21 CFR Part 11), the one dialog for every signature
 * in the app: before anything is sent it shows what is signed, by whom, with
 * which meaning and when; the signer confirms with their password or a current
 * two-factor code. The server checks it: a refusal comes back as its answer,
 * shown here, and nothing is signed. The review area signs versions and jobs
 * with it, the execution rules a step (src/app/rules/sign-step-dialog.tsx).
 */
export interface ESignatureDialogProps<Signed = unknown> {
  open: boolean;
  /** the form's id (unique on the page); a new id starts the dialog afresh */
  formId: string;
  title: string;
  submitLabel: string;
  danger?: boolean;
  /**
   * Where the dialog's own labels are (each place words its signatures its own
   * way): `<texts>.cancel`, `.signer`, `.meaning`, `.date`, `.confirmWith`,
   * `.method.password`, `.method.code`, `.password`, `.code`, and `.refused`
   * ({message}) unless refusalText is given.
   */
  texts: string;
  /** a hint under the two-factor code field */
  codeHint?: string;
  /** what is signed, shown before anything is sent: rows above the signer, the meaning and the date */
  subject: { label: string; value: ComponentChildren }[];
  /** the signer: the name as shown and the e-mail address */
  signer: { name: string; email: string };
  /** the meaning, in words */
  meaning: string;
  /** what the signer declares */
  statement: string;
  /** more fields of the form (a reason, a comment), after the statement */
  children?: ComponentChildren;
  /** checks the extra fields before sending; false stops (the fields show why) */
  validate?: () => boolean;
  /** sends the signature with the credentials; a refusal rejects */
  sign: (credentials: { password: string | null; code: string | null }) => Promise<Signed>;
  /** a refusal in words (default: `<texts>.refused` with the server's message) */
  refusalText?: (error: unknown) => string;
  /** a refusal about an extra field: true when that field shows it */
  onFieldProblem?: (caught: unknown) => boolean;
  onClose: () => void;
  /** with what sign resolved to */
  onSigned: (signed: Signed) => void;
}

export function ESignatureDialog<Signed = unknown>({
  open,
  formId,
  title,
  submitLabel,
  danger,
  texts,
  codeHint,
  subject,
  signer,
  meaning,
  statement,
  children,
  validate,
  sign,
  refusalText,
  onFieldProblem,
  onClose,
  onSigned,
}: ESignatureDialogProps<Signed>) {
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
      const signed = await sign({ password: method === 'password' ? secret : null, code: method === 'code' ? secret.trim() : null });
      setSecret('');
      onSigned(signed);
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
            {t(`${texts}.cancel`)}
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
            <dt>{t(`${texts}.signer`)}</dt>
            <dd>
              {signer.name} ({signer.email})
            </dd>
          </div>
          <div>
            <dt>{t(`${texts}.meaning`)}</dt>
            <dd>
              <strong class="sign-meaning">{meaning}</strong>
            </dd>
          </div>
          <div>
            <dt>{t(`${texts}.date`)}</dt>
            <dd>{formatDate(new Date().toISOString(), true)}</dd>
          </div>
        </dl>
        <p class="sign-statement">{statement}</p>
        {children}
        <fieldset class="sign-method">
          <legend>{t(`${texts}.confirmWith`)}</legend>
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
              {t(`${texts}.method.${value}`)}
            </label>
          ))}
        </fieldset>
        {method === 'password' ? (
          <PasswordField key="password" label={t(`${texts}.password`)} value={secret} onValue={setSecret} />
        ) : (
          <CodeField key="code" label={t(`${texts}.code`)} value={secret} onValue={setSecret} hint={codeHint} />
        )}
        {error !== null && (
          <Notice tone="danger">{refusalText ? refusalText(error) : t(`${texts}.refused`, { message: errorText(error) })}</Notice>
        )}
      </form>
    </Dialog>
  );
}
