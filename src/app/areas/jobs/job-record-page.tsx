import { useState } from 'preact/hooks';
import { ApiError } from '../../api/client';
import { useI18n, type Translate } from '../../i18n';
import { stepsOfJob, type FieldDef, type FileInfo, type StepDef, type StepRecordData } from '../../offline';
import { SignoffPanel } from '../../rules/signoffs';
import { useSession } from '../../shell/session-context';
import { Badge, Card, EmptyState, ErrorNotice, LinkButton, Loading, Notice, PageHeader, toast, useAsync, type Tone } from '../../ui';
import { OverrideCard } from '../qualifications/override-card';
import { requiredSkillsText } from '../../rules/qualification';
import { personName, Photo, PriorityBadge, StateBadge, valueText } from '../operator/common';
import { DEVIATION_TONE } from '../review/exceptions';
import { StepOutline } from '../operator/step-outline';
import { stepProgress, stepState, type ProgressStep } from '../../rules/progress';
import { RecordBundle } from './record-bundle';
import { loadJobRecord, type HandOffStatus, type JobRecord, type RecordDeviation, type RecordFault, type RecordHandOff } from './record';
import { deviationText } from '../../deviation-text';

/**
 * /app/jobs/:id/record: a job's record, read-only, for everyone who may read
 * the job — supervisors from the board and deviations, reviewers before they
 * sign REVIEWED. Every step of the version the job ran with its values
 * (against the limits), comment, photos, sign-offs, faults and deviations, its
 * hand-offs from one operator to another, the
 * time each record was captured on the device and received by the server,
 * and the job's history. It reads the server only (no device copy): what the
 * server confirmed is what the page shows.
 */
export default function JobRecordPage({ id }: { id: string }) {
  const { t } = useI18n();
  const [state, reload] = useAsync(() => loadJobRecord(id), [id]);
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'error' || !state.value) {
    const refused = state.status === 'error' && state.error instanceof ApiError && [401, 403].includes(state.error.status);
    const missing =
      state.status === 'done' || (state.error instanceof ApiError && ['NOT_FOUND', 'VALIDATION_FAILED'].includes(state.error.code));
    return (
      <>
        <PageHeader title={t('jobs.record.title')} />
        {refused || missing ? (
          <EmptyState
            title={t(refused ? 'jobs.record.notAllowed' : 'jobs.record.notFound')}
            action={<LinkButton href="/app/">{t('shell.nav.home')}</LinkButton>}
          />
        ) : (
          <ErrorNotice error={state.status === 'error' ? state.error : null} />
        )}
      </>
    );
  }
  return <Record job={state.value} id={id} reload={reload} />;
}

function Record({ job, id, reload }: { job: JobRecord; id: string; reload: () => void }) {
  const { t, formatDate } = useI18n();
  const steps = stepsOfJob(job);
  const jobFaults = job.faultList.nodes.filter((f) => !f.stepId || !steps.some((s) => s.stepId === f.stepId));
  const jobDeviations = job.deviations.filter((d) => !d.stepId || !steps.some((s) => s.stepId === d.stepId));
  // what the server holds, counted as every page counts (rules/progress.ts)
  const counted: ProgressStep[] = steps.map((step) => ({
    stepId: step.stepId,
    applies: job.steps?.find((s) => s.stepId === step.stepId)?.applies ?? true,
    record: job.records.some((r) => r.stepId === step.stepId) ? { pending: false } : undefined,
    signoff: step.signoff,
  }));
  const [current, setCurrent] = useState<string | null>(null);
  // a jump within the page: its section unfolds, the step comes into view and takes the focus
  const jump = (stepId: string) => (event: MouseEvent) => {
    event.preventDefault();
    const card = document.getElementById(`step-${stepId}`);
    const section = card?.closest('details');
    if (section) section.open = true;
    card?.scrollIntoView({ block: 'start' });
    card?.focus({ preventScroll: true });
    setCurrent(stepId);
  };
  const sections = job.version.content.sections.map((section) => ({
    title: section.title,
    steps: section.steps.map((step) => {
      const index = steps.findIndex((s) => s.stepId === step.stepId);
      return {
        stepId: step.stepId,
        number: index + 1,
        title: step.title,
        state: stepState(counted[index], job.signoffs),
        href: `#step-${step.stepId}`,
        current: current === step.stepId,
        onFollow: jump(step.stepId),
      };
    }),
  }));
  return (
    <div class="job-record">
      <PageHeader
        title={job.title}
        subtitle={
          <>
            <StateBadge state={job.state} /> <PriorityBadge priority={job.priority} />
          </>
        }
      />
      <Card heading={t('jobs.record.details')}>
        <dl class="job-details">
          <Detail label={t('jobs.record.template')} value={job.template.title} />
          <Detail
            label={t('jobs.record.version')}
            value={
              job.versionInfo.publishedAt
                ? t('jobs.record.versionPublished', { number: job.version.number, date: formatDate(job.versionInfo.publishedAt) })
                : t('jobs.record.versionNumber', { number: job.version.number })
            }
          />
          {job.asset && (
            <Detail
              label={t('jobs.record.asset')}
              value={job.asset.serialNumber ? `${job.asset.name} (${job.asset.serialNumber})` : job.asset.name}
            />
          )}
          <Detail label={t('jobs.record.due')} value={job.dueAt ? formatDate(job.dueAt, true) : t('jobs.record.noDue')} />
          <Detail
            label={t('jobs.record.assignees')}
            value={job.assignees.length ? job.assignees.map(personName).join(', ') : t('jobs.record.nobody')}
          />
          {(job.version.content.qualifications ?? []).length > 0 && (
            <Detail
              label={t('rules.qualification.requiredLabel')}
              value={requiredSkillsText(t, job.version.content.qualifications ?? [])}
            />
          )}
          {job.coworkers.length > 0 && <Detail label={t('jobs.record.coworkers')} value={job.coworkers.map(personName).join(', ')} />}
          {job.cancelReason && <Detail label={t('jobs.record.cancelReason')} value={job.cancelReason} />}
        </dl>
      </Card>
      {job.review && (
        <Notice tone="success">
          {t('jobs.record.reviewed', { name: job.review.signerName, date: formatDate(job.review.signedAt, true) })}
          {job.review.comment && ` · ${job.review.comment}`}
        </Notice>
      )}
      <RecordBundle jobId={id} state={job.state} />
      <h2 class="section-heading">{t('jobs.record.steps', { n: steps.length })}</h2>
      <div class="outline-layout">
        <StepOutline sections={sections} progress={stepProgress(counted, job.signoffs)} />
        <div>
          {job.version.content.sections.map((section) => (
            <details key={section.sectionId} class="record-section" open>
              <summary>{section.title}</summary>
              {section.steps.map((s) => {
                const index = steps.findIndex((st) => st.stepId === s.stepId);
                return (
                  <StepCard
                    key={s.stepId}
                    job={job}
                    step={steps[index]}
                    number={index + 1}
                    record={job.records.find((r) => r.stepId === s.stepId)}
                    faults={job.faultList.nodes.filter((f) => f.stepId === s.stepId)}
                    deviations={job.deviations.filter((d) => d.stepId === s.stepId)}
                  />
                );
              })}
            </details>
          ))}
        </div>
      </div>
      <Card heading={t('jobs.record.faults', { n: job.faultList.totalCount })}>
        {jobFaults.length === 0 ? (
          <p class="hint">{t(job.faultList.totalCount ? 'jobs.record.noJobFaults' : 'jobs.record.noFaults')}</p>
        ) : (
          <FaultList faults={jobFaults} />
        )}
        {job.faultList.totalCount > job.faultList.nodes.length && (
          <p class="hint">{t('jobs.record.moreFaults', { n: job.faultList.nodes.length })}</p>
        )}
      </Card>
      <Card heading={t('jobs.record.deviations', { n: job.deviations.length })}>
        {jobDeviations.length === 0 ? (
          <p class="hint">{t(job.deviations.length ? 'jobs.record.deviationsOnSteps' : 'jobs.record.noDeviations')}</p>
        ) : (
          <DeviationList deviations={jobDeviations} />
        )}
      </Card>
      <OverrideCard
        jobId={job.databaseId}
        overrides={job.qualificationOverrides}
        open={['OPEN', 'IN_PROGRESS', 'PAUSED'].includes(job.state)}
        onOverridden={() => {
          toast(t('qualifications.override.done'));
          reload();
        }}
      />
      {job.handOffs && (
        <Card
          heading={t('jobs.record.handOffs', { n: job.handOffs.totalCount })}
          aria-label={t('jobs.record.handOffs', { n: job.handOffs.totalCount })}
        >
          {job.handOffs.nodes.length === 0 ? (
            <p class="hint">{t('jobs.record.noHandOffs')}</p>
          ) : (
            <HandOffList handOffs={job.handOffs.nodes} />
          )}
          {job.handOffs.totalCount > job.handOffs.nodes.length && (
            <p class="hint">{t('jobs.record.moreHandOffs', { n: job.handOffs.nodes.length })}</p>
          )}
        </Card>
      )}
      <History job={job} />
    </div>
  );
}

function Detail({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

function StepCard({
  job,
  step,
  number,
  record,
  faults,
  deviations,
}: {
  job: JobRecord;
  step: StepDef;
  number: number;
  record: StepRecordData | undefined;
  faults: RecordFault[];
  deviations: RecordDeviation[];
}) {
  const { t, format } = useI18n();
  const { user } = useSession().session;
  const applies = job.steps?.find((s) => s.stepId === step.stepId);
  const heading = t('jobs.record.step', { n: number, title: step.title });
  return (
    <Card heading={heading} aria-label={heading} class="record-step" id={`step-${step.stepId}`} tabIndex={-1}>
      {applies && !applies.applies && <Notice>{t('jobs.record.notApplying', { reason: applies.reason ?? '' })}</Notice>}
      {record ? (
        <>
          <p class="record-meta">
            {record.status !== 'DONE' && (
              <>
                <Badge tone={record.status === 'FAILED' ? 'danger' : 'warning'}>{t(`jobs.record.status.${record.status}`)}</Badge>{' '}
              </>
            )}
            {t('jobs.record.recordedBy', { name: personName(record.recordedBy) })}
            {record.revision && record.revision > 1 && ` · ${t('jobs.record.revision', { n: record.revision })}`}
          </p>
          <dl class="job-details record-times">
            <Detail label={t('jobs.record.capturedAt')} value={format.exactTime(record.capturedAt ?? record.recordedAt)} />
            <Detail label={t('jobs.record.receivedAt')} value={format.exactTime(record.receivedAt ?? record.recordedAt)} />
          </dl>
          {step.fields.length > 0 && (
            <dl class="record-values">
              {step.fields.map((field) => (
                <FieldValue key={field.key} field={field} value={record.values.find((v) => v.key === field.key)} />
              ))}
            </dl>
          )}
          {record.reason && <p>{t('jobs.record.reason', { reason: record.reason })}</p>}
          {record.comment && (
            <p class="record-comment">
              <strong>{t('jobs.record.comment')}</strong> {record.comment}
            </p>
          )}
        </>
      ) : (
        <p class="hint">{t('jobs.record.notRecorded')}</p>
      )}
      {step.signoff && <SignoffPanel job={job} step={step} user={user} blocked={null} offer={[]} onSigned={() => undefined} />}
      {faults.length > 0 && (
        <>
          <h3 class="record-subheading">{t('jobs.record.stepFaults')}</h3>
          <FaultList faults={faults} />
        </>
      )}
      {deviations.length > 0 && (
        <>
          <h3 class="record-subheading">{t('jobs.record.stepDeviations')}</h3>
          <DeviationList deviations={deviations} />
        </>
      )}
    </Card>
  );
}

function FieldValue({ field, value }: { field: FieldDef; value: StepRecordData['values'][number] | undefined }) {
  const { t, format } = useI18n();
  const limits = format.range(field.min, field.max, field.unit);
  const files: FileInfo[] = value?.files ?? [];
  const text = value?.error ? t('rules.calculated.error', { error: value.error }) : valueText(t, format, field, value?.value);
  return (
    <div class={value?.outOfLimits ? 'record-value out-of-limits' : 'record-value'}>
      <dt>{field.label || field.key}</dt>
      <dd>
        {files.length === 0 || (field.type !== 'PHOTO' && field.type !== 'SIGNATURE') ? (
          <span class="record-value-text">{text}</span>
        ) : (
          <ul class="photo-list">
            {files.map((file) => (
              <li key={file.databaseId}>
                <a href={file.url} target="_blank" rel="noopener">
                  <Photo value={file.databaseId} alt={t('jobs.record.photo', { field: field.label || field.key, name: file.name })} />
                </a>
              </li>
            ))}
          </ul>
        )}
        {value?.outOfLimits && (
          <>
            {' '}
            <Badge tone="danger">{t('jobs.record.outOfLimits')}</Badge>
          </>
        )}
        {limits && <span class="hint"> {t('jobs.record.limits', { limits })}</span>}
      </dd>
    </div>
  );
}

const SEVERITY_TONE: Record<RecordFault['severity'], Tone> = { LOW: 'neutral', MEDIUM: 'warning', HIGH: 'danger', CRITICAL: 'danger' };

function FaultList({ faults }: { faults: RecordFault[] }) {
  const { t, formatDate } = useI18n();
  return (
    <ul class="deviation-list">
      {faults.map((fault) => (
        <li key={fault.id}>
          <Badge tone={SEVERITY_TONE[fault.severity]}>{t(`operator.fault.severity.${fault.severity}`)}</Badge> {fault.description}
          <div class="hint">
            {t('jobs.record.faultRaised', { name: personName(fault.raisedBy), date: formatDate(fault.capturedAt, true) })}
            {fault.state === 'CLOSED' &&
              ` · ${t('jobs.record.faultClosed', {
                name: fault.closedBy ? personName(fault.closedBy) : '',
                date: formatDate(fault.closedAt, true),
              })}`}
            {fault.closeNote && ` · ${fault.closeNote}`}
          </div>
          {fault.photoFiles.length > 0 && (
            <ul class="photo-list">
              {fault.photoFiles.map((file) => (
                <li key={file.databaseId}>
                  <a href={file.url} target="_blank" rel="noopener">
                    <Photo value={file.databaseId} alt={t('jobs.record.faultPhoto', { name: file.name })} />
                  </a>
                </li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ul>
  );
}

function DeviationList({ deviations }: { deviations: RecordDeviation[] }) {
  const { t, formatDate, format } = useI18n();
  return (
    <ul class="deviation-list">
      {deviations.map((d) => (
        <li key={d.id}>
          <Badge tone={DEVIATION_TONE[d.kind]}>{t(`review.exceptions.kind.${d.kind}`)}</Badge> {deviationText(t, format, d)}
          <div class="hint">
            {d.acknowledged
              ? t('jobs.record.acknowledged', {
                  name: d.acknowledgedByName ?? '',
                  date: formatDate(d.acknowledgedAt, true),
                  comment: d.comment ?? '',
                })
              : t('jobs.record.notAcknowledged')}
          </div>
        </li>
      ))}
    </ul>
  );
}

const HAND_OFF_TONE: Record<HandOffStatus, Tone> = { PENDING: 'info', ACCEPTED: 'success', DECLINED: 'warning', CANCELLED: 'neutral' };

/** A hand-off's people by name; an account that is gone is "unknown". */
function handOffNames(h: RecordHandOff, t: Translate) {
  const name = (p: RecordHandOff['from']) => (p ? personName(p) : t('jobs.record.unknownPerson'));
  return { from: name(h.from), to: name(h.to) };
}

function HandOffList({ handOffs }: { handOffs: RecordHandOff[] }) {
  const { t, formatDate } = useI18n();
  return (
    <ul class="deviation-list">
      {handOffs.map((h) => (
        <li key={h.id}>
          <Badge tone={HAND_OFF_TONE[h.status]}>{t(`jobs.record.handOffStatus.${h.status}`)}</Badge>{' '}
          {t('jobs.record.handOff', handOffNames(h, t))}
          <div class="hint">
            {t('jobs.record.handedOffAt', { date: formatDate(h.createdAt, true) })}
            {h.decidedAt && ` · ${t(`jobs.record.handOffDecided.${h.status}`, { date: formatDate(h.decidedAt, true) })}`}
          </div>
          {h.note && (
            <p class="record-comment">
              <strong>{t('jobs.record.handOffNote')}</strong> {h.note}
            </p>
          )}
        </li>
      ))}
    </ul>
  );
}

interface HistoryEntry {
  at: string;
  text: string;
}

/** The job's history from its record: created, started, each step's last recording and sign-off, faults, hand-offs, completion, review. */
function historyOf(job: JobRecord, t: Translate): HistoryEntry[] {
  const title = (stepId: string | null) => stepsOfJob(job).find((s) => s.stepId === stepId)?.title ?? '';
  const entries: HistoryEntry[] = [
    { at: job.createdAt, text: t('jobs.history.created', { name: job.createdBy ? personName(job.createdBy) : t('jobs.history.system') }) },
  ];
  if (job.startedAt) entries.push({ at: job.startedAt, text: t('jobs.history.started') });
  for (const r of job.records)
    entries.push({
      at: r.capturedAt ?? r.recordedAt,
      text: t('jobs.history.recorded', { step: title(r.stepId), name: personName(r.recordedBy) }),
    });
  for (const s of job.signoffs ?? [])
    entries.push({
      at: s.signedAt,
      text: t('jobs.history.signed', { step: title(s.stepId), name: s.signerName, meaning: t(`rules.meaning.${s.meaning}`) }),
    });
  for (const f of job.faultList.nodes)
    entries.push({ at: f.capturedAt, text: t('jobs.history.fault', { description: f.description, name: personName(f.raisedBy) }) });
  for (const h of job.handOffs?.nodes ?? []) {
    const names = handOffNames(h, t);
    entries.push({ at: h.createdAt, text: t('jobs.history.handedOff', names) });
    if (h.decidedAt) entries.push({ at: h.decidedAt, text: t(`jobs.history.handOff.${h.status}`, names) });
  }
  if (job.completedAt) entries.push({ at: job.completedAt, text: t('jobs.history.completed') });
  if (job.review) entries.push({ at: job.review.signedAt, text: t('jobs.history.reviewed', { name: job.review.signerName }) });
  return entries.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

function History({ job }: { job: JobRecord }) {
  const { t, format } = useI18n();
  return (
    <Card heading={t('jobs.history.title')}>
      <ol class="record-history">
        {historyOf(job, t).map((entry, i) => (
          <li key={i}>
            <time dateTime={entry.at}>{format.exactTime(entry.at)}</time> {entry.text}
          </li>
        ))}
      </ol>
      <p class="hint">{t('jobs.history.note')}</p>
    </Card>
  );
}
