import { useState } from 'preact/hooks';
import { api, globalId } from '../../api/client';
import { useI18n, useT } from '../../i18n';
import { Button, Card, Dialog, ErrorNotice, LinkButton, Loading, Notice, PageHeader, Select, TextField, toast, useAsync } from '../../ui';
import { newIdempotencyKey, useSyncState, userKey, type LocalJobView } from '../../offline';
import { jobProgress, jobRules } from './job-rules';
import { useSession } from '../../shell/session-context';
import { ConflictPanel } from './conflicts';
import { JobStateBadges, PriorityBadge, personName } from './common';
import { QueueStates } from './queue-states';
import { useLocalJob } from './hooks';
import { FaultDialog } from './run-page';
import { refusalText, requiredSkillsText } from '../../rules/qualification';
import { QualificationNotice } from '../../rules/qualification-notice';

interface HandOff {
  id: number;
  jobId: number;
  fromUserId: number;
  toUserId: number;
  status: string;
  note: string;
}

/** A job at a glance: what it is, how far it is, its faults, hand-offs waiting for me; run or continue it. */
export default function JobPage({ id }: { id: string }) {
  const t = useT();
  const { user } = useSession().session;
  const key = userKey(user);
  const state = useLocalJob(key, globalId('Job', id));
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'error') return <ErrorNotice error={state.error} />;
  if (state.status === 'missing') {
    return (
      <>
        <PageHeader title={t('operator.jobs.title')} />
        <Notice tone="warning">{t('operator.job.notOnDevice')}</Notice>
      </>
    );
  }
  return <JobOverview view={state.view} source={state.source} databaseId={id} userId={user.id} />;
}

function JobOverview({
  view,
  source,
  databaseId,
  userId,
}: {
  view: LocalJobView;
  source: 'server' | 'device';
  databaseId: string;
  userId: number;
}) {
  const t = useT();
  const { formatDate } = useI18n();
  const { user } = useSession().session;
  const sync = useSyncState();
  const [faultOpen, setFaultOpen] = useState(false);
  const [handOffOpen, setHandOffOpen] = useState(false);
  const job = view.job;
  // how far the job is: rules/progress.ts, the same count as the run page's
  const progress = jobProgress(view, jobRules(view));
  const progressText = t('operator.progress', { done: progress.done, total: progress.total });
  const closed = ['COMPLETED', 'CANCELLED', 'REVIEWED'].includes(view.queuedState);
  // the server's verdict: an unqualified user is told why before starting, and Start is disabled with that reason
  const refused = !closed && job.viewerQualification && !job.viewerQualification.qualified;
  const runLabel = closed
    ? t('operator.job.view')
    : progress.total - progress.open > 0
      ? t('operator.job.continue')
      : t('operator.job.run');
  return (
    <>
      <PageHeader
        title={job.title}
        subtitle={
          <>
            <PriorityBadge priority={job.priority} /> <JobStateBadges view={view} />
          </>
        }
        actions={
          refused ? (
            <Button
              variant="primary"
              size="large"
              disabled
              aria-describedby="qualification-refusal"
              title={refusalText(t, formatDate, job.viewerQualification)}
            >
              {runLabel}
            </Button>
          ) : (
            <LinkButton variant="primary" size="large" href={`/app/jobs/${databaseId}/run${closed ? '?step=review' : ''}`}>
              {runLabel}
            </LinkButton>
          )
        }
      />
      {!closed && <QualificationNotice check={job.viewerQualification} id="qualification-refusal" />}
      {source === 'device' ? (
        <Notice tone="warning">{t('operator.job.fromDevice')}</Notice>
      ) : (
        <p class="offline-ready">{t('operator.job.offlineReady')}</p>
      )}
      <ConflictPanel user={userKey(user)} job={job} items={view.items} />
      <Card>
        <dl class="job-details">
          <div>
            <dt>{t('operator.job.template')}</dt>
            <dd>{job.template.title}</dd>
          </div>
          {job.asset && (
            <div>
              <dt>{t('operator.job.asset')}</dt>
              <dd>
                {job.asset.name}
                {job.asset.serialNumber && ` (${job.asset.serialNumber})`}
              </dd>
            </div>
          )}
          <div>
            <dt>{t('operator.job.due')}</dt>
            <dd>{job.dueAt ? formatDate(job.dueAt, true) : t('operator.jobs.noDue')}</dd>
          </div>
          {(job.version.content.qualifications ?? []).length > 0 && (
            <div>
              <dt>{t('rules.qualification.requiredLabel')}</dt>
              <dd>{requiredSkillsText(t, job.version.content.qualifications ?? [])}</dd>
            </div>
          )}
          {job.assignees.length > 0 && (
            <div>
              <dt>{t('operator.job.assignees')}</dt>
              <dd>{job.assignees.map(personName).join(', ')}</dd>
            </div>
          )}
        </dl>
        <p>
          <progress max={progress.total} value={progress.done} aria-label={progressText} /> <span class="job-progress">{progressText}</span>
          {progress.waiting > 0 && <span class="pending-mark"> · {t('operator.job.progressWaiting', { n: progress.waiting })}</span>}
          {progress.unsigned > 0 && <span class="pending-mark"> · {t('operator.job.progressUnsigned', { n: progress.unsigned })}</span>}
        </p>
        {/* the read-only record (every value, photo, sign-off and the history): read from the server, so online only */}
        {sync.online && (
          <p>
            <a href={`/app/jobs/${job.databaseId}/record`}>{t('operator.job.openRecord')}</a>
          </p>
        )}
      </Card>
      <QueueStates user={userKey(user)} view={view} />
      {sync.online && !closed && <ReceivedHandOffs jobId={job.databaseId} userId={userId} />}
      {!closed && (
        <Card heading={t('operator.job.handOff')}>
          {sync.online ? (
            <Button onClick={() => setHandOffOpen(true)}>{t('operator.job.handOffTitle')}</Button>
          ) : (
            <p>{t('operator.job.onlineOnly')}</p>
          )}
        </Card>
      )}
      <HandOffDialog open={handOffOpen} onClose={() => setHandOffOpen(false)} jobId={job.databaseId} />
      <Card heading={t('operator.job.faults')}>
        {job.faults.nodes.length === 0 && view.pendingFaults.length === 0 ? (
          <p>{t('operator.job.noFaults')}</p>
        ) : (
          <ul class="fault-list">
            {job.faults.nodes.map((f) => (
              <li key={f.id}>
                <strong>{t(`operator.fault.severity.${f.severity}`)}</strong>: {f.description} · {formatDate(f.raisedAt, true)}
              </li>
            ))}
            {view.pendingFaults.map((f) => (
              <li key={f.id}>
                <strong>{t(`operator.fault.severity.${f.severity}`)}</strong>: {f.description} · {t('operator.job.faultPending')}
              </li>
            ))}
          </ul>
        )}
        {!closed && (
          <Button variant="danger" onClick={() => setFaultOpen(true)}>
            {t('operator.run.fault')}
          </Button>
        )}
      </Card>
      <FaultDialog open={faultOpen} onClose={() => setFaultOpen(false)} user={userKey(user)} jobId={job.id} stepId={null} />
    </>
  );
}

/** Hand-offs of this job waiting for me: accept (the job becomes mine) or decline. Online only: it involves a colleague. */
function ReceivedHandOffs({ jobId, userId }: { jobId: number; userId: number }) {
  const t = useT();
  const [state, reload] = useAsync(
    () => api<{ items: HandOff[] }>('GET', '/api/client/workingTogether/handOffStatuses?limit=100'),
    [jobId],
  );
  const [busy, setBusy] = useState(false);
  if (state.status !== 'done') return null;
  const mine = state.value.items.filter((h) => h.jobId === jobId && h.toUserId === userId && h.status === 'PENDING');
  if (mine.length === 0) return null;
  const decide = async (handOff: HandOff, action: 'ACCEPT' | 'DECLINE') => {
    setBusy(true);
    try {
      await api(
        'POST',
        '/api/client/workingTogether',
        { action, jobId, handOffId: handOff.id },
        { headers: { 'idempotency-key': newIdempotencyKey() } },
      );
      toast(action === 'ACCEPT' ? t('operator.job.accepted') : t('operator.job.declined'));
      reload();
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card heading={t('operator.job.handOffsReceived')}>
      {mine.map((h) => (
        <div key={h.id} class="hand-off">
          {h.note && <p>{h.note}</p>}
          <div class="actions">
            <Button variant="primary" busy={busy} onClick={() => void decide(h, 'ACCEPT')}>
              {t('operator.job.accept')}
            </Button>
            <Button busy={busy} onClick={() => void decide(h, 'DECLINE')}>
              {t('operator.job.decline')}
            </Button>
          </div>
        </div>
      ))}
    </Card>
  );
}

interface Colleague {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
}

/** Hand the job to a colleague (they accept or decline it on their device). Online only. */
function HandOffDialog({ open, onClose, jobId }: { open: boolean; onClose: () => void; jobId: number }) {
  const t = useT();
  const [colleagues] = useAsync(
    () => (open ? api<{ items: Colleague[] }>('GET', '/api/client/workingTogether/colleagues') : Promise.resolve({ items: [] })),
    [open],
  );
  const [to, setTo] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const list = colleagues.status === 'done' ? colleagues.value.items : [];
  const send = async () => {
    const colleague = list.find((c) => String(c.id) === to);
    if (!colleague) return;
    setBusy(true);
    setError(null);
    try {
      await api(
        'POST',
        '/api/client/workingTogether',
        { action: 'HAND_OFF', jobId, toUserId: colleague.id, ...(note.trim() && { note: note.trim() }) },
        { headers: { 'idempotency-key': newIdempotencyKey() } },
      );
      toast(t('operator.job.handOffSent', { name: personName(colleague) }));
      onClose();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      title={t('operator.job.handOffTitle')}
      onClose={onClose}
      actions={
        <Button variant="primary" busy={busy} disabled={!to} onClick={() => void send()}>
          {t('operator.job.handOffSend')}
        </Button>
      }
    >
      {error !== null && <ErrorNotice error={error} />}
      <Select
        label={t('operator.job.handOffTo')}
        value={to}
        onValue={setTo}
        placeholder="—"
        options={list.map((c) => ({ value: String(c.id), label: personName(c) }))}
        required
      />
      <TextField label={t('operator.job.handOffNote')} value={note} onValue={setNote} multiline rows={2} />
    </Dialog>
  );
}
