import { useState } from 'preact/hooks';
import { ApiError } from '../../api/client';
import { can } from '../../api/session';
import { useI18n } from '../../i18n';
import { deviationText } from '../../deviation-text';
import { useSession } from '../../shell/session-context';
import {
  Badge,
  Button,
  Card,
  EmptyState,
  ESignatureDialog,
  ErrorNotice,
  Loading,
  PageHeader,
  TextField,
  toast,
  useAsync,
  useErrorText,
} from '../../ui';
import { acknowledge, DEVIATION_TONE, loadExceptions, reviewJob, type Deviation, type JobToReview } from './exceptions';
import { personName, type Person } from './queries';
import { jobRecordPath } from '../jobs/paths';

/**
 * /app/exceptions: review by exception (docs/execution-rules.md). Completed
 * jobs wait here for their REVIEWED e-signature, each with the deviations the
 * server recorded; a reviewer acknowledges each deviation with a comment, then
 * signs the job. Below, the deviations of jobs still running (or cancelled)
 * that are not acknowledged yet. Who may act is the server's to decide; the
 * page offers the actions to reviewers only.
 */
export default function ExceptionsPage() {
  const { t } = useI18n();
  const { session } = useSession();
  const mayReview = can.reviewJobs(session.user);
  const [state, reload] = useAsync(loadExceptions, []);
  const [signing, setSigning] = useState<JobToReview | null>(null);
  return (
    <div class="exceptions">
      <PageHeader title={t('review.exceptions.title')} subtitle={t('review.exceptions.subtitle')} />
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <ErrorNotice error={state.error} />}
      {state.status === 'done' && (
        <>
          <section aria-labelledby="jobs-to-review">
            <h2 id="jobs-to-review" class="section-heading">
              {t('review.exceptions.jobs', { n: state.value.jobs.nodes.length })}
            </h2>
            {state.value.jobs.nodes.length === 0 ? (
              <EmptyState title={t('review.exceptions.noJobs')} />
            ) : (
              state.value.jobs.nodes
                .slice()
                .reverse()
                .map((job) => <JobCard key={job.id} job={job} mayReview={mayReview} onChanged={reload} onReview={() => setSigning(job)} />)
            )}
          </section>
          <OtherDeviations
            deviations={state.value.deviations.nodes.filter((d) => d.job.state !== 'COMPLETED')}
            mayReview={mayReview}
            onChanged={reload}
          />
          <ReviewDialog
            job={signing}
            signer={state.value.me}
            onClose={() => setSigning(null)}
            onSigned={() => {
              toast(t('review.exceptions.reviewed', { title: signing?.title ?? '' }));
              setSigning(null);
              reload();
            }}
          />
        </>
      )}
    </div>
  );
}

function JobCard({
  job,
  mayReview,
  onChanged,
  onReview,
}: {
  job: JobToReview;
  mayReview: boolean;
  onChanged: () => void;
  onReview: () => void;
}) {
  const { t, formatDate } = useI18n();
  const open = job.deviations.filter((d) => !d.acknowledged).length;
  const heading = t('review.exceptions.job', { title: job.title, id: job.databaseId });
  // the server's own rule (separation of duties): said before any comment or password is asked
  const block = job.viewerReviewBlock;
  const tookPart =
    block?.reason === 'TOOK_PART'
      ? t(`review.exceptions.tookPart.${block.part ?? 'RECORDED'}`, { n: block.stepNumber ?? '?', step: block.stepTitle ?? '' })
      : null;
  const openText = open > 0 ? t('review.exceptions.acknowledgeFirst', { n: open }) : null;
  return (
    <Card heading={heading} headingLevel={3} aria-label={heading} class="exception-job">
      <p>
        <a href={jobRecordPath(job.databaseId)}>{t('jobs.record.open', { title: job.title })}</a>
      </p>
      {tookPart && (
        <p class="notice notice-warning exception-blocked" id={`why-${job.databaseId}`}>
          {tookPart}
        </p>
      )}
      <p class="hint">
        {job.completedAt && t('review.exceptions.completed', { date: formatDate(job.completedAt, true) })}{' '}
        {job.deviations.length === 0
          ? t('review.exceptions.noDeviations')
          : t('review.exceptions.counts', { n: job.deviations.length, open })}
      </p>
      {job.deviations.length > 0 && (
        <ul class="deviation-list">
          {job.deviations.map((d) => (
            <DeviationItem key={d.id} deviation={d} mayReview={mayReview} onChanged={onChanged} />
          ))}
        </ul>
      )}
      {mayReview && (
        <div class="exception-actions">
          <Button
            variant="primary"
            onClick={onReview}
            disabled={tookPart !== null || openText !== null}
            aria-describedby={tookPart ? `why-${job.databaseId}` : openText ? `open-${job.databaseId}` : undefined}
          >
            {t('review.exceptions.review')}
          </Button>
          {openText && !tookPart && (
            <span class="hint" id={`open-${job.databaseId}`}>
              {openText}
            </span>
          )}
        </div>
      )}
    </Card>
  );
}

function DeviationItem({
  deviation: d,
  mayReview,
  onChanged,
  job,
}: {
  deviation: Deviation;
  mayReview: boolean;
  onChanged: () => void;
  job?: { title: string; databaseId: number };
}) {
  const { t, formatDate, format } = useI18n();
  const errorText = useErrorText();
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const what = deviationText(t, format, d);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (comment.trim() === '') {
      setError(t('review.exceptions.commentRequired'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await acknowledge(d.id, comment);
      setComment('');
      onChanged();
    } catch (caught) {
      setError(caught instanceof ApiError && caught.fields.length > 0 ? caught.fields[0].message : errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class="deviation">
      <Badge tone={DEVIATION_TONE[d.kind]}>{t(`review.exceptions.kind.${d.kind}`)}</Badge>{' '}
      {job && (
        <>
          <strong>
            <a href={jobRecordPath(job.databaseId)}>{t('review.exceptions.job', { title: job.title, id: job.databaseId })}</a>
          </strong>
          {' · '}
        </>
      )}
      {d.stepTitle && <span>{d.stepTitle}</span>}
      {what && <div>{what}</div>}
      <div class="hint">
        {t('review.exceptions.raised', {
          name: personName(d.raisedBy) || t('review.exceptions.server'),
          date: formatDate(d.raisedAt, true),
        })}
      </div>
      {d.acknowledged ? (
        <div class="acknowledged">
          <Badge tone="success">{t('review.exceptions.acknowledged')}</Badge> {d.comment}
          <div class="hint">
            {t('review.exceptions.acknowledgedBy', {
              name: d.acknowledgedByName ?? '',
              date: d.acknowledgedAt ? formatDate(d.acknowledgedAt, true) : '',
            })}
          </div>
        </div>
      ) : (
        mayReview && (
          <form class="acknowledge-form" onSubmit={(event) => void submit(event)} noValidate>
            <TextField
              label={t('review.exceptions.comment')}
              value={comment}
              onValue={setComment}
              multiline
              rows={2}
              required
              maxLength={5000}
              error={error}
            />
            <Button type="submit" busy={busy}>
              {t('review.exceptions.acknowledge')}
            </Button>
          </form>
        )
      )}
    </li>
  );
}

function OtherDeviations({
  deviations,
  mayReview,
  onChanged,
}: {
  deviations: (Deviation & { job: { title: string; databaseId: number } })[];
  mayReview: boolean;
  onChanged: () => void;
}) {
  const { t } = useI18n();
  const heading = t('review.exceptions.other', { n: deviations.length });
  return (
    <Card heading={heading} aria-label={heading}>
      {deviations.length === 0 ? (
        <p class="hint">{t('review.exceptions.noOther')}</p>
      ) : (
        <ul class="deviation-list">
          {deviations.map((d) => (
            <DeviationItem key={d.id} deviation={d} job={d.job} mayReview={mayReview} onChanged={onChanged} />
          ))}
        </ul>
      )}
    </Card>
  );
}

function ReviewDialog({
  job,
  signer,
  onClose,
  onSigned,
}: {
  job: JobToReview | null;
  signer: Person;
  onClose: () => void;
  onSigned: () => void;
}) {
  const { t } = useI18n();
  const [comment, setComment] = useState('');
  const meaning = t('review.meaning.REVIEWED');
  return (
    <ESignatureDialog
      open={job !== null}
      formId={`review-job-${job?.databaseId ?? 0}`}
      title={t('review.exceptions.signTitle')}
      submitLabel={t('review.exceptions.signSubmit')}
      texts="review.sign"
      codeHint={t('review.sign.codeHint')}
      subject={
        job
          ? [
              { label: t('review.sign.document'), value: t('review.exceptions.job', { title: job.title, id: job.databaseId }) },
              { label: t('review.exceptions.deviations'), value: t('review.exceptions.allAcknowledged', { n: job.deviations.length }) },
            ]
          : []
      }
      signer={{ name: personName(signer), email: signer.email }}
      meaning={meaning}
      statement={t('review.exceptions.statement', { name: personName(signer), meaning })}
      sign={(credentials) => reviewJob(job!.id, credentials, comment)}
      onClose={onClose}
      onSigned={() => {
        setComment('');
        onSigned();
      }}
    >
      <TextField label={t('review.exceptions.reviewComment')} value={comment} onValue={setComment} multiline rows={2} maxLength={5000} />
    </ESignatureDialog>
  );
}
