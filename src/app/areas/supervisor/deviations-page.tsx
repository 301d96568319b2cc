import { useMemo, useState } from 'preact/hooks';
import { useI18n } from '../../i18n';
import { can } from '../../api/session';
import { useSession } from '../../shell/session-context';
import { Badge, Card, EmptyState, ErrorNotice, LinkButton, Loading, Notice, PageHeader, Select, useAsync, type Tone } from '../../ui';
import { deviations, type Deviations } from './api';
import { JobCard } from './job-card';
import { jobRecordPath } from '../jobs/paths';

const SEVERITY_TONE: Record<Deviations['openFaults'][number]['severity'], Tone> = {
  CRITICAL: 'danger',
  HIGH: 'danger',
  MEDIUM: 'warning',
  LOW: 'neutral',
};
const PERIODS = [1, 7, 30, 90];

/** /app/deviations: what went wrong lately — values out of limits, failed and skipped steps, changes lost with a server restore, open faults, overdue jobs. */
export default function DeviationsPage() {
  const { t, formatDate, format } = useI18n();
  const { session } = useSession();
  const [days, setDays] = useState(7);
  const [state] = useAsync(() => deviations(days), [days]);
  const now = useMemo(() => Date.now(), [state]);
  return (
    <>
      <PageHeader
        title={t('supervisor.deviations.title')}
        subtitle={t('supervisor.deviations.subtitle')}
        actions={
          <Select
            label={t('supervisor.deviations.period')}
            value={String(days)}
            onValue={(value) => setDays(Number(value))}
            options={PERIODS.map((n) => ({
              value: String(n),
              label: t(n === 1 ? 'supervisor.deviations.lastDay' : 'supervisor.deviations.lastDays', { n }),
            }))}
          />
        }
      />
      {can.review(session.user) && (
        <p class="hint">
          {t('supervisor.deviations.reviewHint')} <a href="/app/exceptions">{t('supervisor.deviations.reviewLink')}</a>
        </p>
      )}
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <ErrorNotice error={state.error} />}
      {state.status === 'done' && (
        <div class="deviations">
          <Card heading={t('supervisor.deviations.outOfLimits', { n: state.value.outOfLimits.length })}>
            {state.value.outOfLimits.length === 0 ? (
              <p class="hint">{t('supervisor.deviations.noneOutOfLimits')}</p>
            ) : (
              <div class="table-wrap" tabIndex={0} role="region" aria-label={t('supervisor.deviations.outOfLimitsTable')}>
                <table class="data">
                  <thead>
                    <tr>
                      <th scope="col">{t('supervisor.deviations.job')}</th>
                      <th scope="col">{t('supervisor.deviations.step')}</th>
                      <th scope="col">{t('supervisor.deviations.value')}</th>
                      <th scope="col">{t('supervisor.deviations.limits')}</th>
                      <th scope="col">{t('supervisor.deviations.recorded')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {state.value.outOfLimits.map((row, i) => (
                      <tr key={i}>
                        <td>
                          <a href={jobRecordPath(row.job.id)}>{row.job.title}</a>
                          {row.asset && <div class="hint">{row.asset.name}</div>}
                        </td>
                        <td>
                          {row.stepTitle}
                          <div class="hint">{row.fieldLabel}</div>
                        </td>
                        <td>
                          <strong>{row.value === null ? '' : format.quantity(row.value, row.unit)}</strong>
                        </td>
                        <td>{format.range(row.min, row.max, row.unit)}</td>
                        <td>
                          {formatDate(row.recordedAt, true)}
                          <div class="hint">{row.recordedBy.name}</div>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Card>
          <Card heading={t('supervisor.deviations.stepProblems', { n: state.value.stepProblems.length })}>
            {state.value.stepProblems.length === 0 ? (
              <p class="hint">{t('supervisor.deviations.noneStepProblems')}</p>
            ) : (
              <ul class="deviation-list">
                {state.value.stepProblems.map((row, i) => (
                  <li key={i}>
                    <Badge tone={row.status === 'FAILED' ? 'danger' : 'warning'}>{t(`supervisor.stepStatus.${row.status}`)}</Badge>{' '}
                    <a href={jobRecordPath(row.job.id)}>{row.job.title}</a> · {row.stepTitle}
                    {(row.reason || row.comment) && <div class="hint">{row.reason ?? row.comment}</div>}
                    <div class="hint">
                      {t('supervisor.deviations.by', { name: row.recordedBy.name, date: formatDate(row.recordedAt, true) })}
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </Card>
          {state.value.recordsTruncated && <Notice tone="warning">{t('supervisor.deviations.truncated')}</Notice>}
          <Card heading={t('supervisor.deviations.unapplied', { n: state.value.unappliedChanges.length })}>
            {state.value.unappliedChanges.length === 0 ? (
              <p class="hint">{t('supervisor.deviations.noneUnapplied')}</p>
            ) : (
              <>
                <p class="hint">{t('supervisor.deviations.unappliedHint')}</p>
                <ul class="deviation-list">
                  {state.value.unappliedChanges.map((row) => (
                    <li key={row.id}>
                      <Badge tone="danger">{t('review.exceptions.kind.UNAPPLIED_CHANGE')}</Badge>{' '}
                      <a href={jobRecordPath(row.job.id)}>{row.job.title}</a>
                      {row.asset && ` · ${row.asset.name}`}
                      <div>{row.detail}</div>
                      <div class="hint">
                        {t('supervisor.deviations.by', { name: row.raisedBy.name, date: formatDate(row.raisedAt, true) })}
                      </div>
                    </li>
                  ))}
                </ul>
                {state.value.unappliedChangesTruncated && <Notice tone="warning">{t('supervisor.deviations.unappliedTruncated')}</Notice>}
              </>
            )}
          </Card>
          <Card heading={t('supervisor.deviations.openFaults', { n: state.value.openFaults.length })}>
            {state.value.openFaults.length === 0 ? (
              <p class="hint">{t('supervisor.deviations.noneFaults')}</p>
            ) : (
              <ul class="deviation-list">
                {state.value.openFaults.map((fault) => (
                  <li key={fault.id}>
                    <Badge tone={SEVERITY_TONE[fault.severity]}>{t(`supervisor.severity.${fault.severity}`)}</Badge> {fault.description}
                    <div class="hint">
                      {fault.job && (
                        <>
                          <a href={jobRecordPath(fault.job.id)}>{fault.job.title}</a>
                          {' · '}
                        </>
                      )}
                      {fault.asset && `${fault.asset.name} · `}
                      {t('supervisor.deviations.by', { name: fault.raisedBy.name, date: formatDate(fault.raisedAt, true) })}
                    </div>
                    <LinkButton
                      href={`/app/faults/${fault.id}/follow-up`}
                      aria-label={t('supervisor.followUp.forFault', { description: fault.description })}
                    >
                      {t('supervisor.followUp.action')}
                    </LinkButton>
                  </li>
                ))}
              </ul>
            )}
          </Card>
          <Card heading={t('supervisor.deviations.overdue', { n: state.value.overdueJobs.length })}>
            {state.value.overdueJobs.length === 0 ? (
              <p class="hint">{t('supervisor.deviations.noneOverdue')}</p>
            ) : (
              <ul class="job-list">
                {state.value.overdueJobs.map((job) => (
                  <JobCard key={job.id} job={job} now={now} />
                ))}
              </ul>
            )}
          </Card>
          {state.value.outOfLimits.length +
            state.value.stepProblems.length +
            state.value.unappliedChanges.length +
            state.value.openFaults.length +
            state.value.overdueJobs.length ===
            0 && <EmptyState title={t('supervisor.deviations.allGood')} />}
        </div>
      )}
    </>
  );
}
