import { useI18n } from '../../i18n';
import { Badge, type Tone } from '../../ui';
import type { BoardJob, Priority } from './api';
import { jobRecordPath } from '../jobs/paths';

const PRIORITY_TONE: Record<Priority, Tone> = { HIGH: 'danger', MEDIUM: 'warning', LOW: 'neutral' };

/** A job on the board: title, asset, priority, due date (overdue said in words, not only in colour), assignees. */
export function JobCard({ job, now }: { job: BoardJob; now: number }) {
  const { t, formatDate } = useI18n();
  const overdue = job.dueAt !== null && Date.parse(job.dueAt) < now;
  return (
    <li class="job-card">
      <p class="job-title">
        <a href={jobRecordPath(job.id)}>{job.title}</a>
      </p>
      <p class="job-meta">
        <Badge tone={PRIORITY_TONE[job.priority]}>{t(`supervisor.priority.${job.priority}`)}</Badge>
        {job.dueAt ? (
          overdue ? (
            <Badge tone="danger">{t('supervisor.job.overdue', { date: formatDate(job.dueAt, true) })}</Badge>
          ) : (
            <span>{t('supervisor.job.due', { date: formatDate(job.dueAt, true) })}</span>
          )
        ) : (
          <span>{t('supervisor.job.noDue')}</span>
        )}
      </p>
      {job.asset && <p class="job-asset">{t('supervisor.job.asset', { asset: job.asset.name })}</p>}
      <p class="job-assignees">
        {job.assignees.length
          ? t('supervisor.job.assignees', { names: job.assignees.map((a) => a.name).join(', ') })
          : t('supervisor.job.unassigned')}
      </p>
    </li>
  );
}
