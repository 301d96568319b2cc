import { useMemo, useState } from 'preact/hooks';
import { ApiError } from '../../api/client';
import { useT, useI18n } from '../../i18n';
import { Card, EmptyState, ErrorNotice, Loading, LinkButton, Notice, PageHeader, Tabs, TextField, useAsync } from '../../ui';
import { storedJobs, userKey } from '../../offline';
import { useSession } from '../../shell/session-context';
import { PriorityBadge, StateBadge } from './common';
import { loadJobs, sortJobs, type JobSummary } from './job-list';
import { refusalText } from '../../rules/qualification';

function matches(job: JobSummary, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  return [job.title, job.template.title, job.asset?.name, job.asset?.serialNumber, String(job.databaseId)].some((s) =>
    s?.toLowerCase().includes(needle),
  );
}

/** My jobs and the team's: priority, due date, asset; search; offline, the jobs kept on this device. */
export default function JobsPage({ query }: { query?: Record<string, string> }) {
  const t = useT();
  const { formatDate } = useI18n();
  const { user } = useSession().session;
  const [tab, setTab] = useState<'mine' | 'team'>('mine');
  const [q, setQ] = useState(query?.q ?? '');
  const assetId = query?.asset;
  const [state] = useAsync(async () => {
    const filter = { ...(tab === 'mine' && { assigneeId: `User:${user.id}` }), ...(assetId && { assetId }) };
    try {
      return { jobs: await loadJobs(Object.keys(filter).length ? filter : null), offline: false };
    } catch (error) {
      if (!(error instanceof ApiError && error.offline)) throw error;
      const kept = sortJobs(await storedJobs(userKey(user)));
      return { jobs: kept.filter((j) => !assetId || j.asset?.id === assetId), offline: true };
    }
  }, [tab, assetId, user.id]);
  const shown = useMemo(() => (state.status === 'done' ? state.value.jobs.filter((j) => matches(j, q)) : []), [state, q]);
  const assetName = state.status === 'done' ? state.value.jobs.find((j) => j.asset?.id === assetId)?.asset?.name : undefined;

  return (
    <>
      <PageHeader
        title={assetId && assetName ? t('operator.jobs.forAsset', { name: assetName }) : t('operator.jobs.title')}
        actions={<LinkButton href="/app/scan">{t('operator.jobs.scan')}</LinkButton>}
      />
      {assetId && <a href="/app/jobs">{t('operator.jobs.clearAsset')}</a>}
      <Tabs
        label={t('operator.jobs.title')}
        tabs={[
          { id: 'mine', label: t('operator.jobs.mine') },
          { id: 'team', label: t('operator.jobs.team') },
        ]}
        selected={tab}
        onSelect={(id: string) => setTab(id as 'mine' | 'team')}
      >
        <TextField type="search" label={t('operator.jobs.search')} value={q} onValue={setQ} />
        {state.status === 'loading' && <Loading />}
        {state.status === 'error' && <ErrorNotice error={state.error} />}
        {state.status === 'done' && (
          <>
            {state.value.offline && <Notice tone="warning">{t('operator.jobs.offlineList')}</Notice>}
            {shown.length === 0 ? (
              <EmptyState title={q ? t('operator.jobs.emptySearch', { q }) : t('operator.jobs.empty')} />
            ) : (
              <ul class="job-list" aria-label={tab === 'mine' ? t('operator.jobs.mine') : t('operator.jobs.team')}>
                {shown.map((job) => (
                  <li key={job.id}>
                    <Card class="job-card">
                      <h2 class="job-card-title">
                        <a href={`/app/jobs/${job.databaseId}`}>{job.title}</a>
                      </h2>
                      <p class="job-card-meta">
                        <PriorityBadge priority={job.priority} /> <StateBadge state={job.state} />
                      </p>
                      <p class="job-card-meta">
                        {job.asset ? t('operator.jobs.asset', { name: job.asset.name }) : job.template.title}
                        {' · '}
                        {job.dueAt ? t('operator.jobs.due', { date: formatDate(job.dueAt, true) }) : t('operator.jobs.noDue')}
                      </p>
                      {job.viewerQualification && !job.viewerQualification.qualified && (
                        <p class="job-card-refusal">
                          <strong>{t('rules.qualification.notQualified')}:</strong> {refusalText(t, formatDate, job.viewerQualification)}
                        </p>
                      )}
                    </Card>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </Tabs>
    </>
  );
}
