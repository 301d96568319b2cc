import { useMemo } from 'preact/hooks';
import { useI18n } from '../../i18n';
import { EmptyState, ErrorNotice, LinkButton, Loading, Notice, PageHeader, useAsync, Icon } from '../../ui';
import { jobBoard, type JobState } from './api';
import { JobCard } from './job-card';

const COLUMNS: JobState[] = ['OPEN', 'IN_PROGRESS', 'PAUSED'];

/** /app/board: the open jobs by state, each column the earliest due first (the server's order). */
export default function BoardPage() {
  const { t } = useI18n();
  const [state, reload] = useAsync(jobBoard);
  const now = useMemo(() => Date.now(), [state]);
  return (
    <>
      <PageHeader
        title={t('supervisor.board.title')}
        subtitle={t('supervisor.board.subtitle')}
        actions={
          <>
            <button type="button" class="btn btn-secondary" onClick={reload}>
              {t('supervisor.refresh')}
            </button>
            <LinkButton href="/app/jobs/new" variant="primary">
              <Icon name="plus" />
              {t('supervisor.nav.newJob')}
            </LinkButton>
          </>
        }
      />
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <ErrorNotice error={state.error} />}
      {state.status === 'done' &&
        (state.value.jobs.length === 0 ? (
          <EmptyState
            title={t('supervisor.board.empty')}
            action={<LinkButton href="/app/jobs/new">{t('supervisor.nav.newJob')}</LinkButton>}
          />
        ) : (
          <>
            {state.value.truncated && <Notice tone="warning">{t('supervisor.board.truncated')}</Notice>}
            <div class="board">
              {COLUMNS.map((column) => {
                const jobs = state.value.jobs.filter((job) => job.state === column);
                const headingId = `board-${column}`;
                return (
                  <section key={column} class="board-column" aria-labelledby={headingId}>
                    <h2 id={headingId}>
                      {t(`supervisor.state.${column}`)} <span class="count">({jobs.length})</span>
                    </h2>
                    {jobs.length === 0 ? (
                      <p class="hint">{t('supervisor.board.columnEmpty')}</p>
                    ) : (
                      <ul class="job-list">
                        {jobs.map((job) => (
                          <JobCard key={job.id} job={job} now={now} />
                        ))}
                      </ul>
                    )}
                  </section>
                );
              })}
            </div>
          </>
        ))}
    </>
  );
}
