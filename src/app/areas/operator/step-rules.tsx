import { useState } from 'preact/hooks';
import { ApiError, graphql, requestLanguage } from '../../api/client';
import { useT } from '../../i18n';
import type { AppMarkNotApplicableMutation, AppMarkNotApplicableMutationVariables } from '../../api/operation-types';
import { jobDocument, keepServerJob, type JobData, type SectionDef, type StepDef, type UserKey } from '../../offline';
import { describeCondition } from '../../rules/describe';
import { Button, Dialog, Notice, TextField, toast } from '../../ui';
import type { StepRule } from './job-rules';

/** Why the step does not apply, in words: the condition that is not met, and what it asks for. */
export function NotApplyingNotice({ rule, doc }: { rule: StepRule; doc: { sections: SectionDef[] } }) {
  const t = useT();
  const why = rule.why;
  if (!why) return null;
  return (
    <Notice tone="info">
      <strong>{t('rules.run.notApplying')}</strong>{' '}
      {why.by === 'server'
        ? t('rules.run.serverReason', { reason: why.reason })
        : why.by === 'section'
          ? t('rules.run.sectionCondition', { section: why.section.title, condition: describeCondition(t, doc, why.section.when) })
          : t('rules.run.stepCondition', { condition: describeCondition(t, doc, why.step.when) })}{' '}
      {t('rules.run.notCounted')}
    </Notice>
  );
}

// the input written out field by field: the contract names the mutation and its fields, not its input type's name
export const MARK = (fields: string) =>
  `mutation AppMarkNotApplicable($jobId: ID!, $stepId: String!, $reason: String!, $language: String) { markStepNotApplicable(input: {jobId: $jobId, stepId: $stepId, reason: $reason}) { job { ${fields} } } }`;

/**
 * "Not applicable" on a step the template allows it on (`allowNotApplicable`):
 * the operator gives a reason (required), the server records the step as not
 * applicable — a deviation quality reviews. Online only: it is not queued.
 */
export function NotApplicableButton({
  user,
  job,
  step,
  online,
  onMarked,
}: {
  user: UserKey;
  job: JobData;
  step: StepDef;
  online: boolean;
  onMarked: () => void;
}) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async () => {
    if (!reason.trim()) return setProblem(t('rules.notApplicable.reasonMissing'));
    setBusy(true);
    setError(null);
    try {
      const data = await graphql<AppMarkNotApplicableMutation, AppMarkNotApplicableMutationVariables>(MARK(await jobDocument()), {
        jobId: job.id,
        stepId: step.stepId,
        reason: reason.trim(),
        language: requestLanguage(),
      });
      await keepServerJob(user, data.markStepNotApplicable.job);
      toast(t('rules.notApplicable.done'));
      setOpen(false);
      setReason('');
      onMarked();
    } catch (caught) {
      if (caught instanceof ApiError && caught.offline) setError(t('rules.notApplicable.offline'));
      else if (caught instanceof ApiError && caught.fields.some((f) => f.path.endsWith('reason')))
        setProblem(caught.fields.find((f) => f.path.endsWith('reason'))!.message);
      else setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button size="large" variant="ghost" onClick={() => setOpen(true)}>
        {t('rules.notApplicable.button')}
      </Button>
      <Dialog
        open={open}
        title={t('rules.notApplicable.title', { title: step.title })}
        onClose={() => setOpen(false)}
        actions={
          <Button variant="primary" busy={busy} disabled={!online} onClick={() => void send()}>
            {t('rules.notApplicable.confirm')}
          </Button>
        }
      >
        {!online && <Notice tone="warning">{t('rules.notApplicable.offline')}</Notice>}
        <TextField
          label={t('rules.notApplicable.reason')}
          value={reason}
          onValue={(v) => (setReason(v), setProblem(null))}
          multiline
          rows={3}
          required
          error={problem}
          hint={t('rules.notApplicable.hint')}
        />
        {error && <Notice tone="danger">{error}</Notice>}
      </Dialog>
    </>
  );
}
