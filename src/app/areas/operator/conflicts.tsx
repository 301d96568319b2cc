import { useState } from 'preact/hooks';
import { useI18n, useT, type Translate } from '../../i18n';
import { Button, Card, toast } from '../../ui';
import { resolveItem, stepsOfJob, type Decision, type JobData, type QueueItem, type StepDef, type UserKey } from '../../offline';
import { valueText } from './common';

/** Refusals of the execution rules said in plain words (rules.*.json), with the steps they name linked. */
const PLAIN_REFUSALS = new Set(['SIGNOFF_MISSING', 'COMMENT_REQUIRED', 'REQUIRED_FIELDS_MISSING', 'STEP_NOT_APPLICABLE']);

/** The step ids a refusal's details name: `steps`, `missing[].stepId` or `stepId`. */
function stepsNamed(details: Record<string, unknown> | undefined): string[] {
  if (!details) return [];
  const ids = new Set<string>();
  if (Array.isArray(details.steps)) for (const s of details.steps) if (typeof s === 'string') ids.add(s);
  if (Array.isArray(details.missing))
    for (const m of details.missing)
      if (m && typeof (m as { stepId?: unknown }).stepId === 'string') ids.add((m as { stepId: string }).stepId);
  if (typeof details.stepId === 'string') ids.add(details.stepId);
  return [...ids];
}

function RefusedSteps({ job, steps }: { job: JobData; steps: string[] }) {
  const t = useT();
  if (steps.length === 0) return null;
  const all = stepsOfJob(job);
  return (
    <ul class="refused-steps">
      {steps.map((stepId) => {
        const index = all.findIndex((s) => s.stepId === stepId);
        return (
          <li key={stepId}>
            {index < 0 ? (
              stepId
            ) : (
              <a href={`/app/jobs/${job.databaseId}/run?step=${index + 1}`}>
                {t('operator.review.step', { n: index + 1, title: all[index].title })}
              </a>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** What a queued item is, in words: "Recording of step Measure", "Completion of the job", "Fault: …", "Photo …". */
export function itemLabel(t: Translate, item: QueueItem, steps: readonly StepDef[]): string {
  switch (item.kind) {
    case 'record':
      return t('operator.conflict.kind.record', { title: steps.find((s) => s.stepId === item.stepId)?.title ?? item.stepId });
    case 'transition':
      return t(`operator.queue.transition.${item.action}`);
    case 'fault':
      return t('operator.conflict.kind.fault', { description: item.description });
    case 'upload':
      return t('operator.conflict.kind.upload', { name: item.name });
  }
}

/**
 * What waits for the operator's decision on a job: a step someone else
 * recorded meanwhile (both records side by side: keep mine or keep theirs) or
 * a change the server refused (try again or discard). Nothing here is ever
 * resolved without the operator.
 */
export function ConflictPanel({ user, job, items }: { user: UserKey; job: JobData; items: QueueItem[] }) {
  const t = useT();
  const { formatDate, errorText, format } = useI18n();
  const [busy, setBusy] = useState<string | null>(null);
  const open = items.filter((i) => i.state !== 'pending');
  if (open.length === 0) return null;
  const steps = stepsOfJob(job);
  // the same operator on another device: said as such ("you, on another device"), decided the same way
  const byMe = (id: number | undefined) => id !== undefined && `${user.split(':')[0]}:${id}` === user;
  const decide = async (item: QueueItem, decision: Decision) => {
    setBusy(item.id);
    try {
      await resolveItem(user, item.id, decision);
      toast(t('operator.conflict.resolved'));
    } finally {
      setBusy(null);
    }
  };
  return (
    <Card heading={t('operator.conflict.title')} class="conflicts" aria-live="polite">
      {open.map((item) => {
        const step = item.kind === 'record' ? steps.find((s) => s.stepId === item.stepId) : undefined;
        const what = itemLabel(t, item, steps);
        return (
          <div class="conflict" key={item.id} data-item={item.id}>
            <h3>{what}</h3>
            {item.state === 'conflict' && item.kind === 'record' && item.conflict ? (
              <>
                <p>{t(byMe(item.conflict.theirs?.recordedById) ? 'operator.conflict.introSelf' : 'operator.conflict.intro')}</p>
                <div class="conflict-sides">
                  <div class="conflict-side" data-side="mine">
                    <h4>{t('operator.conflict.mineAt', { date: formatDate(item.capturedAt ?? item.createdAt, true) })}</h4>
                    <dl>
                      {item.values.map((v) => {
                        const field = step?.fields.find((f) => f.key === v.key);
                        return (
                          <div key={v.key}>
                            <dt>{field?.label ?? v.key}</dt>
                            <dd>{valueText(t, format, field, v.value)}</dd>
                          </div>
                        );
                      })}
                    </dl>
                  </div>
                  <div class="conflict-side" data-side="theirs">
                    <h4>
                      {item.conflict.theirs
                        ? t(byMe(item.conflict.theirs.recordedById) ? 'operator.conflict.theirsSelf' : 'operator.conflict.theirs', {
                            name: item.conflict.theirs.recordedBy,
                            date: formatDate(item.conflict.theirs.recordedAt, true),
                          })
                        : t('operator.conflict.empty')}
                    </h4>
                    <dl>
                      {(item.conflict.theirs?.values ?? []).map((v) => {
                        const field = step?.fields.find((f) => f.key === v.key);
                        return (
                          <div key={v.key}>
                            <dt>{field?.label ?? v.key}</dt>
                            <dd>{valueText(t, format, field, v.value)}</dd>
                          </div>
                        );
                      })}
                    </dl>
                  </div>
                </div>
                {item.conflict.theirs && <p class="conflict-note">{t('operator.conflict.serverKeeps')}</p>}
                <div class="actions">
                  <Button variant="primary" busy={busy === item.id} onClick={() => void decide(item, 'mine')}>
                    {t('operator.conflict.keepMine')}
                  </Button>
                  <Button busy={busy === item.id} onClick={() => void decide(item, 'theirs')}>
                    {t('operator.conflict.keepTheirs')}
                  </Button>
                </div>
              </>
            ) : (
              <>
                <p>
                  {item.error && PLAIN_REFUSALS.has(item.error.code)
                    ? t(`rules.refused.${item.error.code}`)
                    : t('operator.conflict.refused', { message: item.error ? errorText(item.error) : item.state })}
                </p>
                <RefusedSteps job={job} steps={stepsNamed(item.error?.details)} />
                <div class="actions">
                  <Button variant="primary" busy={busy === item.id} onClick={() => void decide(item, 'retry')}>
                    {t('operator.conflict.retry')}
                  </Button>
                  <Button variant="danger" busy={busy === item.id} onClick={() => void decide(item, 'discard')}>
                    {t('operator.conflict.discard')}
                  </Button>
                </div>
              </>
            )}
          </div>
        );
      })}
    </Card>
  );
}
