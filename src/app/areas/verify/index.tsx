import '../../rules/rules.css';
import { lazy } from 'preact-iso';
import { graphql } from '../../api/client';
import { useI18n } from '../../i18n';
import { useSession } from '../../shell/session-context';
import type { Area } from '../../shell/area';
import { Card, LinkButton, useAsync } from '../../ui';
import { stepsWaitingFor, TO_VERIFY, type WaitingJob } from './queries';

/** The home card: how many steps wait for my verification. */
function VerifyHome() {
  const { t } = useI18n();
  const { user } = useSession().session;
  const [state] = useAsync(() => graphql<{ inProgress: { nodes: WaitingJob[] }; paused: { nodes: WaitingJob[] } }>(TO_VERIFY), [user.id]);
  const count =
    state.status === 'done'
      ? [...state.value.inProgress.nodes, ...state.value.paused.nodes].reduce((n, job) => n + stepsWaitingFor(job, user).length, 0)
      : null;
  return (
    <Card heading={t('rules.verify.home')}>
      {count !== null && <p>{count > 0 ? t('rules.verify.homeCount', { n: count }) : t('rules.verify.none')}</p>}
      <LinkButton href="/app/verify" variant={count ? 'primary' : 'secondary'}>
        {t('rules.verify.open')}
      </LinkButton>
    </Card>
  );
}

/**
 * Step verification: the steps of running jobs that wait for a
 * second person's signature (VERIFIED), and a job's page to sign them in the
 * verifier's own session. A template may name any role as verifiers, so the
 * area is there for every user of the app (the user administrator's role alone
 * uses none of it); the list shows only what waits for the user's roles.
 */
export const area: Area = {
  id: 'verify',
  visibleTo: (user) => user.roles.some((role) => role !== 'user_admin'),
  nav: [{ href: '/app/verify', label: 'rules.nav.verify', icon: 'review' }],
  routes: [
    { path: '/app/verify', component: lazy(() => import('./list-page')), title: 'rules.verify.title' },
    { path: '/app/verify/:id', component: lazy(() => import('./job-page')), title: 'rules.verify.jobTitle' },
  ],
  Home: VerifyHome,
};
