import { ApiError, graphql, requestLanguage } from '../api/client';
import { useI18n } from '../i18n';
import { jobDocument, type JobData } from '../offline/job-data';
import { ESignatureDialog } from '../ui';
import type { AppSignStepMutation, AppSignStepMutationVariables } from '../api/operation-types';
import type { StepSignatureMeaning } from '../../domain/vocabulary';

/** The codes a step signature is refused with that people should read in plain words (rules.*.json). */
/** Signing a step answers with the whole job document: the signature can change what the job still needs. */
export const signStepMutation = (jobFields: string) =>
  `mutation AppSignStep($input: SignStepInput!, $language: String) { signStep(input: $input) { job { ${jobFields} } } }`;

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
  meaning: StepSignatureMeaning;
  signer: { name: string; email: string };
  onClose: () => void;
  /** the job as the server has it after the signature */
  onSigned: (job: JobData) => void;
}

/**
 * A step's e-signature (docs/execution-rules.md) in the app's e-signature
 * dialog (src/app/ui/e-signature-dialog.tsx): what is signed (the step, as
 * recorded), by whom and with which meaning shown before anything is sent; the
 * signer confirms with their password or a current two-factor code. signStep
 * signs as the signed-in user, so a verifier signs in their own session.
 * Online only: the server checks the password and the separation of duties.
 */
export function SignStepDialog({ open, jobId, stepId, stepTitle, meaning, signer, onClose, onSigned }: SignStepDialogProps) {
  const { t } = useI18n();
  const name = signer.name || signer.email;
  const meaningText = t(`rules.meaning.${meaning}`);
  return (
    <ESignatureDialog
      key={stepId}
      open={open}
      formId={`sign-step-${meaning.toLowerCase()}`}
      title={t(`rules.sign.title.${meaning}`)}
      submitLabel={t('rules.sign.submit')}
      texts="rules.sign"
      subject={[{ label: t('rules.sign.step'), value: stepTitle }]}
      signer={{ name, email: signer.email }}
      meaning={meaningText}
      statement={t('rules.sign.statement', { name, meaning: meaningText })}
      sign={async ({ password, code }) => {
        // nothing typed: refused here, without asking the server
        if (!(password ?? code ?? '').trim()) throw new ApiError(422, 'VALIDATION_ERROR', t('rules.sign.secretMissing'));
        const data = await graphql<AppSignStepMutation, AppSignStepMutationVariables>(signStepMutation(await jobDocument()), {
          language: requestLanguage(),
          input: { jobId, stepId, meaning, password, code },
        });
        return data.signStep.job;
      }}
      refusalText={(error) => signRefusalText(t, error)}
      onClose={onClose}
      onSigned={onSigned}
    />
  );
}
