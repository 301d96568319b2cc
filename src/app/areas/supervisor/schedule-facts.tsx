import { useI18n } from '../../i18n';
import { Badge } from '../../ui';
import type { ScheduleSummary } from './api';
import { recurrenceText } from './recurrence-fields';

const personName = (user: { firstName: string; lastName: string; email: string }) =>
  [user.firstName, user.lastName].filter(Boolean).join(' ') || user.email;

/** What a schedule makes, how it recurs (in words) and its next occurrences: its card in the list and its page. */
export function ScheduleFacts({ schedule }: { schedule: ScheduleSummary }) {
  const i18n = useI18n();
  const { t, formatDate } = i18n;
  return (
    <>
      <p>
        <Badge tone={schedule.state === 'ACTIVE' ? 'success' : 'warning'}>{t(`supervisor.schedules.state.${schedule.state}`)}</Badge>{' '}
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
          {recurrenceText(i18n, schedule.recurrence, schedule.startsAt)} ·{' '}
          {t('supervisor.schedules.from', { start: formatDate(schedule.startsAt), zone: schedule.timeZone })}
        </dd>
        {(schedule.asset || schedule.assetClass) && (
          <>
            <dt>{t('supervisor.schedules.for')}</dt>
            <dd>
              {schedule.asset ? schedule.asset.name : t('supervisor.schedules.everyAsset', { assetClass: schedule.assetClass!.name })}
            </dd>
          </>
        )}
        <dt>{t('supervisor.schedules.who')}</dt>
        <dd>
          {schedule.team
            ? t('supervisor.schedules.team', { team: schedule.team.name })
            : schedule.assignees.length > 0
              ? schedule.assignees.map(personName).join(', ')
              : t('supervisor.schedules.everyOperator')}
        </dd>
        <dt>{t('supervisor.schedules.next')}</dt>
        <dd>
          {schedule.nextOccurrences.length > 0
            ? schedule.nextOccurrences.map((at) => formatDate(at, true)).join(' · ')
            : t(schedule.state === 'PAUSED' ? 'supervisor.schedules.nonePaused' : 'supervisor.schedules.none')}
        </dd>
      </dl>
    </>
  );
}
