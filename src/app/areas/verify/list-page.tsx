import { graphql } from '../../api/client';
import { useI18n } from '../../i18n';
import { useSession } from '../../shell/session-context';
import { Card, EmptyState, ErrorNotice, LinkButton, Loading, PageHeader, useAsync } from '../../ui';
import { stepsWaitingFor, TO_VERIFY, type WaitingJob } from './queries';

/** /app/verify: the running jobs with steps waiting for my verification, oldest due first. */
export default function VerifyListPage() {
  const { t, formatDate } = useI18n();
  const { user } = useSession().session;
  const [state] = useAsync(() => graphql<{ inProgress: { nodes: WaitingJob[] }; paused: { nodes: WaitingJob[] } }>(TO_VERIFY), [user.id]);
  const header = <PageHeader title={t('rules.verify.title')} subtitle={t('rules.verify.intro')} />;
  if (state.status === 'loading')
    return (
      <>
        {header}
        <Loading />
      </>
    );
  if (state.status === 'error')
    return (
      <>
        {header}
        <ErrorNotice error={state.error} />
      </>
    );
  const waiting = [...state.value.inProgress.nodes, ...state.value.paused.nodes]
    .map((job) => ({ job, steps: stepsWaitingFor(job, user) }))
    .filter((w) => w.steps.length > 0)
    .sort((a, b) => (a.job.dueAt ?? '9999').localeCompare(b.job.dueAt ?? '9999'));
  return (
    <>
      {header}
      {waiting.length === 0 ? (
        <EmptyState title={t('rules.verify.none')} />
      ) : (
        <ul class="card-list verify-list">
          {waiting.map(({ job, steps }) => (
            <li key={job.id}>
              <Card heading={job.title}>
                <p>
                  {job.template.title}
                  {job.asset && ` · ${job.asset.name}`}
                  {job.dueAt && ` · ${t('operator.jobs.due', { date: formatDate(job.dueAt) })}`}
                </p>
                <p>{t('rules.verify.steps', { n: steps.length, titles: steps.map((s) => s.title).join(', ') })}</p>
                <LinkButton href={`/app/verify/${job.databaseId}`} variant="primary">
                  {t('rules.verify.openJob', { title: job.title })}
                </LinkButton>
              </Card>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
