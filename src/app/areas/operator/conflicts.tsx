import { useState } from 'preact/hooks';
import { useI18n, useT } from '../../i18n';
import { Button, Card, toast } from '../../ui';
import { resolveItem, stepsOfJob, type Decision, type JobData, type QueueItem, type UserKey } from '../../offline';
import { valueText } from './common';

/**
 * What waits for the operator's decision on a job: a step someone else
 * recorded meanwhile (both records side by side: keep mine or keep theirs) or
 * a change the server refused (try again or discard). Nothing here is ever
 * resolved without the operator.
 */
export function ConflictPanel({ user, job, items }: { user: UserKey; job: JobData; items: QueueItem[] }) {
  const t = useT();
  const { formatDate } = useI18n();
  const [busy, setBusy] = useState<string | null>(null);
  const open = items.filter((i) => i.state !== 'pending');
  if (open.length === 0) return null;
  const steps = stepsOfJob(job);
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
        const what =
          item.kind === 'record'
            ? t('operator.conflict.kind.record', { title: step?.title ?? item.stepId })
            : item.kind === 'transition'
              ? t('operator.conflict.kind.transition', { action: item.action })
              : item.kind === 'fault'
                ? t('operator.conflict.kind.fault', { description: item.description })
                : t('operator.conflict.kind.upload', { name: item.name });
        return (
          <div class="conflict" key={item.id} data-item={item.id}>
            <h3>{what}</h3>
            {item.state === 'conflict' && item.kind === 'record' && item.conflict ? (
              <>
                <p>{t('operator.conflict.intro')}</p>
                <div class="conflict-sides">
                  <div class="conflict-side" data-side="mine">
                    <h4>{t('operator.conflict.mine')}</h4>
                    <dl>
                      {item.values.map((v) => {
                        const field = step?.fields.find((f) => f.key === v.key);
                        return (
                          <div key={v.key}>
                            <dt>{field?.label ?? v.key}</dt>
                            <dd>{valueText(t, field, v.value)}</dd>
                          </div>
                        );
                      })}
                    </dl>
                  </div>
                  <div class="conflict-side" data-side="theirs">
                    <h4>
                      {item.conflict.theirs
                        ? t('operator.conflict.theirs', { name: item.conflict.theirs.recordedBy, date: formatDate(item.conflict.theirs.recordedAt, true) })
                        : t('operator.conflict.empty')}
                    </h4>
                    <dl>
                      {(item.conflict.theirs?.values ?? []).map((v) => {
                        const field = step?.fields.find((f) => f.key === v.key);
                        return (
                          <div key={v.key}>
                            <dt>{field?.label ?? v.key}</dt>
                            <dd>{valueText(t, field, v.value)}</dd>
                          </div>
                        );
                      })}
                    </dl>
                  </div>
                </div>
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
                <p>{t('operator.conflict.refused', { message: item.error?.message ?? item.state })}</p>
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
