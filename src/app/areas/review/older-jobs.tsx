import { graphql } from '../../api/client';
import { useI18n } from '../../i18n';
import { Badge, Card, ErrorNotice, Loading, useAsync } from '../../ui';
import { OLDER_JOBS, personName, type OlderJob } from './queries';
import { jobRecordPath } from '../jobs/paths';

/**
 * The jobs still running (open, in progress, paused) on older versions of
 * the template: they keep their version for ever, so publishing a new one
 * does not change what those operators read — a publisher sees whom that
 * concerns. `round` reloads the list after a publish.
 */
export function OlderJobs({ versionId, round }: { versionId: string; round: number }) {
  const { t, formatDate } = useI18n();
  const [state] = useAsync(
    () =>
      graphql<{ templateVersion: { openJobsOnOlderVersions: { totalCount: number; nodes: OlderJob[] } } }>(OLDER_JOBS, { id: versionId }),
    [versionId, round],
  );
  return (
    <Card heading={t('review.jobs.title')} aria-label={t('review.jobs.title')} class="review-older-jobs">
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <ErrorNotice error={state.error} />}
      {state.status === 'done' &&
        (() => {
          const { totalCount, nodes } = state.value.templateVersion.openJobsOnOlderVersions;
          if (totalCount === 0) return <p>{t('review.jobs.none')}</p>;
          return (
            <>
              <p>{t('review.jobs.count', { n: totalCount })}</p>
              <ul class="review-list">
                {nodes.map((job) => (
                  <li key={job.id} class="review-item">
                    <a class="review-item-link" href={jobRecordPath(job.databaseId)}>
                      {job.title}
                    </a>
                    <div class="review-item-meta">
                      <Badge tone={job.state === 'PAUSED' ? 'warning' : 'info'}>{t(`review.jobState.${job.state}`)}</Badge>
                      <span>{t('review.jobs.onVersion', { number: job.version.number })}</span>
                      {job.dueAt && <span>{t('review.jobs.due', { date: formatDate(job.dueAt) })}</span>}
                      {job.assignees.length > 0 && (
                        <span>{t('review.jobs.assignees', { names: job.assignees.map(personName).join(', ') })}</span>
                      )}
                    </div>
                  </li>
                ))}
              </ul>
            </>
          );
        })()}
    </Card>
  );
}
