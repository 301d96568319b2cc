import { useState } from 'preact/hooks';
import { useI18n } from '../../i18n';
import { Button, Card, EmptyState, ErrorNotice, LinkButton, Loading, Notice, PageHeader, toast, useAsync, useErrorText } from '../../ui';
import { schedules, setSchedulePaused, type ScheduleSummary } from './api';
import { ScheduleFacts } from './schedule-facts';

/**
 * /app/schedules: the client's schedules of recurring jobs — what each makes, how it recurs (in the client's time
 * zone) and its next occurrences — with pause and resume here; a new schedule, and each one's page (its occurrences,
 * edit, delete), a link away.
 */
export default function SchedulesPage() {
  const { t } = useI18n();
  const errorText = useErrorText();
  const [state, reload] = useAsync(schedules);
  const [busy, setBusy] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const toggle = async (schedule: ScheduleSummary) => {
    const pause = schedule.state === 'ACTIVE';
    setBusy(schedule.databaseId);
    setError(null);
    try {
      await setSchedulePaused(schedule, pause);
      toast(t(pause ? 'supervisor.schedules.paused' : 'supervisor.schedules.resumed', { title: schedule.title }));
      reload();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <PageHeader
        title={t('supervisor.schedules.title')}
        subtitle={t('supervisor.schedules.subtitle')}
        actions={
          <>
            <LinkButton variant="primary" href="/app/schedules/new">
              {t('supervisor.schedules.new')}
            </LinkButton>
            <button type="button" class="btn btn-secondary" onClick={reload}>
              {t('supervisor.refresh')}
            </button>
          </>
        }
      />
      {error && <Notice tone="danger">{error}</Notice>}
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <ErrorNotice error={state.error} />}
      {state.status === 'done' &&
        (state.value.length === 0 ? (
          <EmptyState title={t('supervisor.schedules.empty')}>{t('supervisor.schedules.emptyHint')}</EmptyState>
        ) : (
          <ul class="schedule-list">
            {state.value.map((schedule) => (
              <li key={schedule.databaseId}>
                <Card heading={<a href={`/app/schedules/${schedule.databaseId}`}>{schedule.title}</a>} headingLevel={2}>
                  <ScheduleFacts schedule={schedule} />
                  <div class="form-actions">
                    <Button busy={busy === schedule.databaseId} onClick={() => void toggle(schedule)}>
                      {t(schedule.state === 'ACTIVE' ? 'supervisor.schedules.pause' : 'supervisor.schedules.resume')}
                    </Button>
                  </div>
                </Card>
              </li>
            ))}
          </ul>
        ))}
    </>
  );
}
