import { useI18n } from '../../i18n';
import { Card, ErrorNotice, Icon, Loading, useAsync } from '../../ui';
import { jobBoard } from './api';

/** The supervisor's card on the home page: how many jobs are open and how many overdue, and the way to the pages. */
export function SupervisorHome() {
  const { t } = useI18n();
  const [state] = useAsync(jobBoard);
  const now = Date.now();
  return (
    <Card heading={t('shell.area.supervisor')}>
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <ErrorNotice error={state.error} />}
      {state.status === 'done' && (
        <p>
          {t('supervisor.home.summary', {
            open: state.value.jobs.length,
            overdue: state.value.jobs.filter((job) => job.dueAt !== null && Date.parse(job.dueAt) < now).length,
          })}
        </p>
      )}
      <ul class="link-list">
        <li>
          <a href="/app/board">
            <Icon name="board" />
            {t('supervisor.nav.board')}
          </a>
        </li>
        <li>
          <a href="/app/jobs/new">
            <Icon name="plus" />
            {t('supervisor.nav.newJob')}
          </a>
        </li>
        <li>
          <a href="/app/deviations">
            <Icon name="deviations" />
            {t('supervisor.nav.deviations')}
          </a>
        </li>
      </ul>
    </Card>
  );
}
