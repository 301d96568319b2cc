import './operator.css';
import '../../rules/rules.css';
import { lazy } from 'preact-iso';
import { can } from '../../api/session';
import { useT } from '../../i18n';
import { Card, LinkButton, useAsync } from '../../ui';
import { useSession } from '../../shell/session-context';
import type { Area } from '../../shell/area';
import { loadJobs } from './job-list';

/** What waits for an operator: the open jobs assigned to them. */
function OperatorHome() {
  const t = useT();
  const { user } = useSession().session;
  const [state] = useAsync(() => loadJobs({ assigneeId: `User:${user.id}` }), [user.id]);
  const count = state.status === 'done' ? state.value.length : null;
  return (
    <Card heading={t('operator.home.title')}>
      {count !== null && <p>{count > 0 ? t('operator.home.waiting', { n: count }) : t('operator.home.none')}</p>}
      <LinkButton variant="primary" href="/app/jobs">
        {t('operator.home.open')}
      </LinkButton>
    </Card>
  );
}

export const area: Area = {
  id: 'operator',
  visibleTo: can.runJobs,
  nav: [
    { href: '/app/jobs', label: 'operator.nav.jobs', icon: 'jobs' },
    { href: '/app/scan', label: 'operator.nav.scan', icon: 'scan' },
  ],
  routes: [
    { path: '/app/jobs', component: lazy(() => import('./jobs-page')), title: 'operator.jobs.title' },
    { path: '/app/jobs/:id', component: lazy(() => import('./job-page')), title: 'operator.jobs.title' },
    { path: '/app/jobs/:id/run', component: lazy(() => import('./run-page')), title: 'operator.run.title' },
    { path: '/app/scan', component: lazy(() => import('./scan-page')), title: 'operator.scan.title' },
  ],
  Home: OperatorHome,
};
