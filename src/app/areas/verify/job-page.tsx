import { useEffect, useState } from 'preact/hooks';
import { globalId, graphql, requestLanguage } from '../../api/client';
import { useI18n } from '../../i18n';
import { jobDocument, stepsOfJob, useSyncState, type JobData } from '../../offline';
import { SignoffPanel } from '../../rules/signoffs';
import { useSession } from '../../shell/session-context';
import { Card, ErrorNotice, Loading, Notice, PageHeader, toast } from '../../ui';
import { personName, valueText } from '../operator/common';

/**
 * /app/verify/:id: a job's steps that ask for sign-off, each with what was
 * recorded (values, limits, comment, by whom) and its signatures, for the
 * verifier to check and sign VERIFIED in their own session. Online only: the
 * page reads the job from the server, and signing needs the server.
 */
export default function VerifyJobPage({ id }: { id: string }) {
  const { t, formatDate, format } = useI18n();
  const { user } = useSession().session;
  const sync = useSyncState();
  const [job, setJob] = useState<JobData | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    void (async () => {
      try {
        const data = await graphql<{ job: JobData | null }>(
          `query AppVerifyJob($id: ID!, $language: String) { job(id: $id) { ${await jobDocument()} } }`,
          {
            id: globalId('Job', id),
            language: requestLanguage(),
          },
        );
        if (data.job) setJob(data.job);
        else setError(new Error(t('rules.verify.notFound')));
      } catch (caught) {
        setError(caught);
      }
    })();
  }, [id]);
  if (error) return <ErrorNotice error={error} />;
  if (!job) return <Loading />;
  const steps = stepsOfJob(job).filter((s) => s.signoff);
  return (
    <>
      <PageHeader
        title={job.title}
        subtitle={t('rules.verify.jobSubtitle', { template: job.template.title, state: t(`operator.state.${job.state}`) })}
      />
      {!sync.online && <Notice tone="warning">{t('rules.signoff.offline')}</Notice>}
      {steps.length === 0 && <Notice>{t('rules.verify.noSignoffs')}</Notice>}
      {steps.map((step) => {
        const record = job.records.find((r) => r.stepId === step.stepId);
        const applies = job.steps?.find((s) => s.stepId === step.stepId)?.applies ?? true;
        return (
          <Card key={step.stepId} heading={step.title} class="verify-step">
            {!applies && <Notice>{t('rules.run.notApplying')}</Notice>}
            {record ? (
              <>
                <p class="record-note">
                  {t('rules.verify.recordedBy', { name: personName(record.recordedBy), date: formatDate(record.recordedAt, true) })}
                </p>
                <dl class="job-details">
                  {step.fields.map((field) => {
                    const value = record.values.find((v) => v.key === field.key);
                    return (
                      <div key={field.key} class={value?.outOfLimits ? 'out-of-limits' : undefined}>
                        <dt>{field.label || field.key}</dt>
                        <dd>
                          {value?.error ? t('rules.calculated.error', { error: value.error }) : valueText(t, format, field, value?.value)}
                          {value?.outOfLimits && ` · ${t('rules.verify.outOfLimits')}`}
                        </dd>
                      </div>
                    );
                  })}
                  {record.comment && (
                    <div>
                      <dt>{t('operator.run.comment')}</dt>
                      <dd>{record.comment}</dd>
                    </div>
                  )}
                </dl>
              </>
            ) : (
              <p>{t('operator.review.notRecorded')}</p>
            )}
            <SignoffPanel
              job={job}
              step={step}
              user={user}
              blocked={
                !sync.online
                  ? t('rules.signoff.offline')
                  : !record
                    ? t('rules.signoff.recordFirst')
                    : !applies
                      ? t('rules.run.notApplying')
                      : null
              }
              offer={['VERIFIED']}
              onSigned={(next) => {
                setJob(next);
                toast(t('rules.signoff.done'));
              }}
            />
          </Card>
        );
      })}
    </>
  );
}
