import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { useI18n } from '../../i18n';
import { Badge, Button, Card, Dialog, ErrorNotice, LinkButton, Loading, Notice, PageHeader, toast, useAsync, useErrorText } from '../../ui';
import { jobRecordPath } from '../jobs/paths';
import { deleteSchedule, scheduleDetails, setSchedulePaused, type ScheduleDetails } from './api';
import { ScheduleFacts } from './schedule-facts';

/**
 * /app/schedules/:id: one schedule — what it makes, how it recurs, its next occurrences — and what each occurrence
 * handled so far became: the job (linked to its record) or why it was skipped. Edit, pause, resume, delete.
 */
export default function SchedulePage() {
  const { params } = useRoute();
  const id = Number(params.id);
  const { t } = useI18n();
  const [state, reload] = useAsync(() => scheduleDetails(id), [id]);
  return (
    <>
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <ErrorNotice error={state.error} />}
      {state.status === 'done' &&
        (state.value ? (
          <Schedule schedule={state.value} reload={reload} />
        ) : (
          <>
            <PageHeader title={t('supervisor.schedule.title')} />
            <Notice tone="warning">{t('supervisor.schedule.notFound')}</Notice>
          </>
        ))}
    </>
  );
}

function Schedule({ schedule, reload }: { schedule: ScheduleDetails; reload: () => void }) {
  const { t, formatDate } = useI18n();
  const errorText = useErrorText();
  const { route } = useLocation();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);

  const act = async (action: () => Promise<void>, done: string, then?: () => void) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      toast(done);
      (then ?? reload)();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  const pause = schedule.state === 'ACTIVE';

  return (
    <>
      <PageHeader
        title={schedule.title}
        subtitle={t('supervisor.schedule.subtitle')}
        actions={
          <>
            <LinkButton href={`/app/schedules/${schedule.databaseId}/edit`}>{t('supervisor.schedule.edit')}</LinkButton>
            <Button
              busy={busy}
              onClick={() =>
                void act(
                  () => setSchedulePaused(schedule, pause),
                  t(pause ? 'supervisor.schedules.paused' : 'supervisor.schedules.resumed', { title: schedule.title }),
                )
              }
            >
              {t(pause ? 'supervisor.schedules.pause' : 'supervisor.schedules.resume')}
            </Button>
            <Button variant="danger" onClick={() => setConfirming(true)}>
              {t('supervisor.schedule.delete')}
            </Button>
          </>
        }
      />
      {error && <Notice tone="danger">{error}</Notice>}
      <Card heading={t('supervisor.schedule.about')}>
        <ScheduleFacts schedule={schedule} />
      </Card>
      <Card heading={t('supervisor.schedule.occurrences', { n: schedule.occurrences.totalCount })}>
        {schedule.occurrences.nodes.length === 0 ? (
          <p>{t('supervisor.schedule.noOccurrences')}</p>
        ) : (
          <div class="table-wrap" tabIndex={0} role="region" aria-label={t('supervisor.schedule.occurrencesTable')}>
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">{t('supervisor.schedule.occursAt')}</th>
                  <th scope="col">{t('supervisor.schedules.for')}</th>
                  <th scope="col">{t('supervisor.schedule.became')}</th>
                </tr>
              </thead>
              <tbody>
                {[...schedule.occurrences.nodes].reverse().map((occurrence) => (
                  <tr key={`${occurrence.occursAt}-${occurrence.asset?.name ?? ''}`}>
                    <td>
                      <time dateTime={occurrence.occursAt}>{formatDate(occurrence.occursAt, true)}</time>
                    </td>
                    <td>{occurrence.asset?.name ?? '—'}</td>
                    <td>
                      {occurrence.job ? (
                        <>
                          <a href={jobRecordPath(occurrence.job.databaseId)}>
                            {t('supervisor.schedule.job', { id: occurrence.job.databaseId, title: occurrence.job.title })}
                          </a>{' '}
                          <Badge>{t(`supervisor.state.${occurrence.job.state}`)}</Badge>
                        </>
                      ) : occurrence.status === 'SKIPPED' ? (
                        t(`supervisor.schedule.skipped.${occurrence.reason ?? 'MISSED'}`)
                      ) : (
                        t('supervisor.schedule.withdrawn')
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
      <Dialog
        open={confirming}
        title={t('supervisor.schedule.deleteTitle', { title: schedule.title })}
        onClose={() => setConfirming(false)}
        actions={
          <>
            <Button
              variant="danger"
              busy={busy}
              onClick={() =>
                void act(
                  () => deleteSchedule(schedule),
                  t('supervisor.schedule.deleted', { title: schedule.title }),
                  () => route('/app/schedules'),
                )
              }
            >
              {t('supervisor.schedule.deleteConfirm')}
            </Button>
            <Button variant="ghost" onClick={() => setConfirming(false)}>
              {t('supervisor.cancel')}
            </Button>
          </>
        }
      >
        <p>{t('supervisor.schedule.deleteText')}</p>
      </Dialog>
    </>
  );
}
