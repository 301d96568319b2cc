import { useEffect, useState } from 'preact/hooks';
import type { CurrentUser } from '../api/session';
import { useI18n } from '../i18n';
import type { JobData, SignoffDef } from '../offline/job-data';
import { Badge, Button } from '../ui';
import { SignStepDialog } from './sign-step-dialog';
import { meaningsOf, validSignature } from './progress';
import type { StepSignatureMeaning } from '../../domain/vocabulary';

export { meaningsOf, validSignature };

/** The sign-offs still missing on the steps that apply (what completing the job would refuse with SIGNOFF_MISSING). */
export function missingSignoffs(
  job: Pick<JobData, 'signoffs'>,
  steps: readonly { stepId: string; signoff: SignoffDef | null }[],
  applies: (stepId: string) => boolean,
): { stepId: string; meaning: StepSignatureMeaning }[] {
  return steps.flatMap((step) =>
    applies(step.stepId)
      ? meaningsOf(step.signoff)
          .filter((m) => !validSignature(job.signoffs, step.stepId, m))
          .map((meaning) => ({ stepId: step.stepId, meaning }))
      : [],
  );
}

export interface SignoffPanelProps {
  job: JobData;
  step: { stepId: string; title: string; signoff: SignoffDef | null };
  /** the signed-in user */
  user: CurrentUser;
  /** why signing is not possible now (offline, not recorded yet, the record still waiting to be sent); null: it is */
  blocked: string | null;
  /** the meanings this page offers to sign (the operator's run page: both; the verifier's page: VERIFIED) */
  offer: readonly StepSignatureMeaning[];
  onSigned: (job: JobData) => void;
  /** open the sign dialog for this meaning as soon as signing is possible (the run page, right after "Save and next") */
  ask?: StepSignatureMeaning | null;
}

/**
 * Who performed and who verified a step, and the buttons to sign: a table of
 * the meanings the step asks for (signed by whom and when, or waiting), the
 * invalidated signatures kept below it (re-recording the step invalidates
 * them), and — where the user may — "Sign as performer" / "Sign as verifier".
 * The server decides every signature; a refusal comes back in plain words.
 */
export function SignoffPanel({ job, step, user, blocked, offer, onSigned, ask = null }: SignoffPanelProps) {
  const { t, formatDate, format, roleName } = useI18n();
  const [signing, setSigning] = useState<StepSignatureMeaning | null>(null);
  const meanings = meaningsOf(step.signoff);
  const invalidated = (job.signoffs ?? []).filter((s) => s.stepId === step.stepId && s.invalidatedAt !== null);
  const mayOffer = (meaning: StepSignatureMeaning) =>
    offer.includes(meaning) && (meaning === 'PERFORMED' || (step.signoff?.verifier?.roles ?? []).some((r) => user.roles.includes(r)));
  // asked once when it becomes possible (the record reached the server); closing the dialog does not reopen it
  useEffect(() => {
    if (ask && !blocked && meanings.includes(ask) && mayOffer(ask) && !validSignature(job.signoffs, step.stepId, ask)) setSigning(ask);
  }, [ask, blocked]);
  if (meanings.length === 0) return null;
  const headingId = `signoff-${step.stepId}`;
  return (
    <section class="signoff-panel" aria-labelledby={headingId}>
      <h3 id={headingId}>{t('rules.signoff.heading')}</h3>
      <ul class="signoff-list">
        {meanings.map((meaning) => {
          const signature = validSignature(job.signoffs, step.stepId, meaning);
          return (
            <li key={meaning} data-meaning={meaning}>
              <span class="signoff-meaning">{t(`rules.signoff.role.${meaning}`)}</span>{' '}
              {signature ? (
                <>
                  <Badge tone="success">{t('rules.signoff.signed')}</Badge>{' '}
                  {t('rules.signoff.by', { name: signature.signerName, date: formatDate(signature.signedAt, true) })}
                </>
              ) : (
                <>
                  <Badge tone="warning">{t('rules.signoff.waiting')}</Badge>
                  {meaning === 'VERIFIED' && step.signoff?.verifier && (
                    <> {t('rules.signoff.verifierRoles', { roles: format.list(step.signoff.verifier.roles.map(roleName)) })}</>
                  )}
                  {mayOffer(meaning) && !blocked && (
                    <>
                      {' '}
                      <Button variant={meaning === 'PERFORMED' ? 'primary' : 'secondary'} onClick={() => setSigning(meaning)}>
                        {t(`rules.signoff.sign.${meaning}`)}
                      </Button>
                    </>
                  )}
                </>
              )}
            </li>
          );
        })}
      </ul>
      {blocked && meanings.some((m) => !validSignature(job.signoffs, step.stepId, m) && mayOffer(m)) && (
        <p class="signoff-blocked">{blocked}</p>
      )}
      {invalidated.length > 0 && (
        <details class="signoff-invalidated">
          <summary>{t('rules.signoff.invalidatedCount', { n: invalidated.length })}</summary>
          <ul>
            {invalidated.map((s) => (
              <li key={`${s.meaning}-${s.signedAt}`}>
                {t('rules.signoff.invalidated', {
                  meaning: t(`rules.meaning.${s.meaning}`),
                  name: s.signerName,
                  date: formatDate(s.signedAt, true),
                  at: formatDate(s.invalidatedAt, true),
                })}
              </li>
            ))}
          </ul>
        </details>
      )}
      <SignStepDialog
        open={signing !== null}
        jobId={job.id}
        stepId={step.stepId}
        stepTitle={step.title}
        meaning={signing ?? 'PERFORMED'}
        signer={user}
        onClose={() => setSigning(null)}
        onSigned={(next) => {
          setSigning(null);
          onSigned(next);
        }}
      />
    </section>
  );
}
