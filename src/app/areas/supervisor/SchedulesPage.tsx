import { useState } from 'preact/hooks';
import { useI18n } from '../../i18n';
import { Badge, Button, Card, EmptyState, ErrorNotice, Loading, Notice, PageHeader, toast, useAsync, useErrorText } from '../../ui';
import { schedules, setSchedulePaused, type ScheduleSummary } from './api';

const personName = (user: { firstName: string; lastName: string; email: string }) =>
  [user.firstName, user.lastName].filter(Boolean).join(' ') || user.email;

/**
 * /app/schedules: the client's schedules of recurring jobs — what each makes (template, asset or class, who),
 * how it recurs (the RRULE, in the client's time zone) and its next occurrences — with pause and resume.
 * Creating and editing schedules is GraphQL's (docs/recurring-and-follow-up-jobs.md).
 */
export default function SchedulesPage() {
  const { t, formatDate } = useI18n();
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
          <button type="button" class="btn btn-secondary" onClick={reload}>
            {t('supervisor.refresh')}
          </button>
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
                <Card heading={schedule.title} headingLevel={2}>
                  <p>
                    <Badge tone={schedule.state === 'ACTIVE' ? 'success' : 'warning'}>
                      {t(`supervisor.schedules.state.${schedule.state}`)}
                    </Badge>{' '}
                    {t(`supervisor.priority.${schedule.priority}`)}
                  </p>
                  <dl class="schedule-facts">
                    <dt>{t('supervisor.schedules.template')}</dt>
                    <dd>
                      {schedule.template.title}
                      {schedule.pinnedVersion
                        ? ` · ${t('supervisor.schedules.pinned', { version: schedule.pinnedVersion.number })}`
                        : ` · ${t('supervisor.schedules.latest')}`}
                    </dd>
                    <dt>{t('supervisor.schedules.recurrence')}</dt>
                    <dd>
                      <code>{schedule.recurrence}</code> ·{' '}
                      {t('supervisor.schedules.from', { start: schedule.startsAt.replace('T', ' '), zone: schedule.timeZone })}
                    </dd>
                    {(schedule.asset || schedule.assetClass) && (
                      <>
                        <dt>{t('supervisor.schedules.for')}</dt>
                        <dd>
                          {schedule.asset
                            ? schedule.asset.name
                            : t('supervisor.schedules.everyAsset', { assetClass: schedule.assetClass!.name })}
                        </dd>
                      </>
                    )}
                    <dt>{t('supervisor.schedules.who')}</dt>
                    <dd>
                      {schedule.team
                        ? t('supervisor.schedules.team', { team: schedule.team.name })
                        : schedule.assignees.length > 0
                          ? schedule.assignees.map(personName).join(', ')
                          : t('supervisor.job.unassigned')}
                    </dd>
                    <dt>{t('supervisor.schedules.next')}</dt>
                    <dd>
                      {schedule.nextOccurrences.length > 0
                        ? schedule.nextOccurrences.map((at) => formatDate(at, true)).join(' · ')
                        : t(schedule.state === 'PAUSED' ? 'supervisor.schedules.nonePaused' : 'supervisor.schedules.none')}
                    </dd>
                  </dl>
                  <div class="form-actions">
                    <Button busy={busy === schedule.databaseId} onClick={() => void toggle(schedule)}>
                      {t(schedule.state === 'ACTIVE' ? 'supervisor.schedules.pause' : 'supervisor.schedules.resume', {
                        title: schedule.title,
                      })}
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
