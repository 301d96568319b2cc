import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useT } from '../../i18n';
import { Button, Card, Dialog, ErrorNotice, Loading, Notice, PageHeader, Select, TextField, toast } from '../../ui';
import {
  enqueueFault,
  enqueuePhoto,
  enqueueRecord,
  enqueueTransition,
  isEmptyValue,
  outOfLimits,
  stepsOfJob,
  useSyncState,
  userKey,
  type FieldDef,
  type LocalJobView,
  type QueuedValue,
  type Severity,
  type StepDef,
  type UserKey,
} from '../../offline';
import { useSession } from '../../shell/session-context';
import { Markdown } from '../../ui/Markdown';
import { ConflictPanel } from './conflicts';
import { PhotoInput, PhotoList, StepField, type DraftPhoto, type DraftValue } from './step-fields';
import { personName, rangeText, StateBadge, valueText } from './common';
import { useLocalJob } from './hooks';

/** A step's record as the operator sees it: queued on the device (newest) or the server's. */
interface SeenRecord {
  status: 'DONE' | 'SKIPPED' | 'FAILED';
  values: { key: string; value: unknown; outOfLimits: boolean }[];
  comment: string | null;
  reason: string | null;
  pending: boolean;
  recordedBy?: string;
}

function seenRecord(view: LocalJobView, step: StepDef): SeenRecord | undefined {
  const pending = view.pendingRecords.get(step.stepId);
  if (pending) {
    return {
      status: pending.status,
      values: pending.values.map((v) => {
        const field = step.fields.find((f) => f.key === v.key);
        return { key: v.key, value: v.value, outOfLimits: field ? outOfLimits(field, v.value) : false };
      }),
      comment: pending.comment,
      reason: pending.reason,
      pending: true,
    };
  }
  const record = view.job.records.find((r) => r.stepId === step.stepId);
  if (!record) return undefined;
  return {
    status: record.status,
    values: record.values.map((v) => ({ key: v.key, value: v.value, outOfLimits: v.outOfLimits })),
    comment: record.comment,
    reason: record.reason,
    pending: false,
    recordedBy: personName(record.recordedBy),
  };
}

/** The required fields still empty (as the server checks on completion): every step not skipped. */
function missingRequired(view: LocalJobView): { step: StepDef; index: number; field: FieldDef }[] {
  return stepsOfJob(view.job).flatMap((step, index) => {
    const record = seenRecord(view, step);
    if (record?.status === 'SKIPPED') return [];
    return step.fields.filter((f) => f.required && isEmptyValue(record?.values.find((v) => v.key === f.key)?.value)).map((field) => ({ step, index, field }));
  });
}

function initialDraft(step: StepDef, record: SeenRecord | undefined): Record<string, DraftValue> {
  const draft: Record<string, DraftValue> = {};
  for (const field of step.fields) {
    const value = record?.values.find((v) => v.key === field.key)?.value;
    if (field.type === 'PHOTO') draft[field.key] = Array.isArray(value) ? (value as DraftPhoto[]) : value == null ? [] : [value as DraftPhoto];
    else if (field.type === 'PASS_FAIL') draft[field.key] = value === true || value === 'PASS' ? 'PASS' : value === false || value === 'FAIL' ? 'FAIL' : '';
    else draft[field.key] = value == null ? '' : String(value);
  }
  return draft;
}

const parseNumber = (text: string) => Number(text.trim().replace(',', '.'));

export default function RunPage({ id, query }: { id: string; query?: Record<string, string> }) {
  const t = useT();
  const { user } = useSession().session;
  const key = userKey(user);
  const state = useLocalJob(key, `Job:${id}`);
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'error') return <ErrorNotice error={state.error} />;
  if (state.status === 'missing') {
    return (
      <>
        <PageHeader title={t('operator.run.title')} />
        <Notice tone="warning">{t('operator.job.notOnDevice')}</Notice>
      </>
    );
  }
  return <Runner user={key} view={state.view} databaseId={id} stepParam={query?.step} />;
}

function Runner({ user, view, databaseId, stepParam }: { user: UserKey; view: LocalJobView; databaseId: string; stepParam?: string }) {
  const t = useT();
  const { route } = useLocation();
  const sync = useSyncState();
  const steps = stepsOfJob(view.job);
  const firstOpen = Math.max(0, steps.findIndex((s) => !seenRecord(view, s)));
  const requested = stepParam === 'review' ? steps.length : Number(stepParam) - 1;
  const index = Number.isInteger(requested) && requested >= 0 && requested <= steps.length ? requested : steps.every((s) => seenRecord(view, s)) ? steps.length : firstOpen;
  const go = (next: number) => route(`/app/jobs/${databaseId}/run?step=${next >= steps.length ? 'review' : next + 1}`);
  const [faultOpen, setFaultOpen] = useState(false);
  const closed = view.state === 'COMPLETED' || view.state === 'CANCELLED' || view.state === 'REVIEWED';
  const step = steps[index];

  const pause = async () => {
    await enqueueTransition(user, view.job.id, 'pause');
    toast(t('operator.run.paused'));
    route('/app/jobs');
  };

  return (
    <>
      <PageHeader
        title={view.job.title}
        subtitle={
          <>
            {step ? t('operator.run.stepOf', { n: index + 1, total: steps.length }) : t('operator.review.title')} <StateBadge state={view.state} />
          </>
        }
        actions={
          !closed && (
            <>
              <Button variant="danger" onClick={() => setFaultOpen(true)}>
                {t('operator.run.fault')}
              </Button>
              {view.state === 'IN_PROGRESS' && <Button onClick={() => void pause()}>{t('operator.run.pause')}</Button>}
            </>
          )
        }
      />
      {!sync.online && sync.waiting > 0 && <Notice tone="warning">{t('operator.run.offline', { n: sync.waiting })}</Notice>}
      <ConflictPanel user={user} job={view.job} items={view.items} />
      {closed ? (
        <>
          <Notice tone="info">{t('operator.run.closed', { state: t(`operator.state.${view.state}`) })}</Notice>
          <Review user={user} view={view} onGoTo={go} databaseId={databaseId} online={sync.online} readOnly />
        </>
      ) : step ? (
        <StepForm
          key={step.stepId}
          user={user}
          view={view}
          step={step}
          last={index === steps.length - 1}
          onBack={index > 0 ? () => go(index - 1) : undefined}
          onSaved={() => go(index + 1)}
          online={sync.online}
        />
      ) : (
        <Review user={user} view={view} onGoTo={go} databaseId={databaseId} online={sync.online} />
      )}
      <FaultDialog open={faultOpen} onClose={() => setFaultOpen(false)} user={user} jobId={view.job.id} stepId={step?.stepId ?? null} />
    </>
  );
}

function StepMedia({ step }: { step: StepDef }) {
  const t = useT();
  const [broken, setBroken] = useState<Set<number>>(new Set());
  if (step.mediaFiles.length === 0) return null;
  return (
    <div class="step-media" role="group" aria-label={t('operator.run.media')}>
      {step.mediaFiles.map((file) =>
        broken.has(file.databaseId) ? (
          <p key={file.databaseId}>{t('operator.run.mediaUnavailable', { name: file.name })}</p>
        ) : file.contentType.startsWith('image/') ? (
          <img key={file.databaseId} src={file.url} alt={file.name} onError={() => setBroken(new Set([...broken, file.databaseId]))} />
        ) : file.contentType.startsWith('video/') ? (
          <video key={file.databaseId} src={file.url} controls aria-label={file.name} />
        ) : (
          <a key={file.databaseId} href={file.url}>
            {file.name}
          </a>
        ),
      )}
    </div>
  );
}

function StepForm({
  user,
  view,
  step,
  last,
  onBack,
  onSaved,
  online,
}: {
  user: UserKey;
  view: LocalJobView;
  step: StepDef;
  last: boolean;
  onBack?: () => void;
  onSaved(): void;
  online: boolean;
}) {
  const t = useT();
  const record = seenRecord(view, step);
  const [draft, setDraft] = useState(() => initialDraft(step, record));
  const [comment, setComment] = useState(record?.comment ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [skipOpen, setSkipOpen] = useState(false);
  const [reason, setReason] = useState('');

  const set = (field: FieldDef, value: DraftValue) => {
    setDraft({ ...draft, [field.key]: value });
    // instant feedback: a required value given, or a number typed that is not one
    const next = { ...errors };
    delete next[field.key];
    if ((field.type === 'NUMBER' || field.type === 'SENSOR') && typeof value === 'string' && value.trim() && !Number.isFinite(parseNumber(value))) next[field.key] = t('operator.run.notANumber');
    setErrors(next);
  };

  /** What stops the step from being saved: required values still empty, numbers that are not numbers. */
  const problems = (): Record<string, string> => {
    const found: Record<string, string> = {};
    for (const field of step.fields) {
      const value = draft[field.key]!;
      if (field.type === 'SIGNATURE') continue;
      const empty = Array.isArray(value) ? value.length === 0 : !value.trim();
      if (empty && field.required && field.type !== 'SENSOR') found[field.key] = t('operator.run.requiredMissing');
      if (!empty && (field.type === 'NUMBER' || field.type === 'SENSOR') && !Number.isFinite(parseNumber(value as string))) found[field.key] = t('operator.run.notANumber');
    }
    return found;
  };

  /** The values to queue; photos just taken go into the queue now, ahead of the record that refers to them. */
  const values = async (): Promise<QueuedValue[]> => {
    const out: QueuedValue[] = [];
    for (const field of step.fields) {
      const value = draft[field.key]!;
      if (field.type === 'SIGNATURE') {
        const kept = record?.values.find((v) => v.key === field.key);
        if (kept && !isEmptyValue(kept.value)) out.push({ key: field.key, value: kept.value });
      } else if (Array.isArray(value)) {
        if (value.length === 0) continue;
        const stored = [];
        for (const photo of value) stored.push(photo instanceof Blob ? await enqueuePhoto(user, view.job.id, photo, photoName(photo)) : photo);
        out.push({ key: field.key, value: stored });
      } else if (value.trim()) {
        out.push({ key: field.key, value: field.type === 'NUMBER' || field.type === 'SENSOR' ? parseNumber(value) : value.trim() });
      }
    }
    return out;
  };

  const save = async (event: Event) => {
    event.preventDefault();
    const found = problems();
    setErrors(found);
    if (Object.keys(found).length > 0) {
      // the first field in error gets the focus, its message read with it
      queueMicrotask(() => document.querySelector<HTMLElement>('.step-form .field-invalid input, .step-form .field-invalid textarea')?.focus());
      return;
    }
    setBusy(true);
    try {
      const failed = step.fields.some((f) => f.type === 'PASS_FAIL' && draft[f.key] === 'FAIL');
      await enqueueRecord(user, view.job, { stepId: step.stepId, status: failed ? 'FAILED' : 'DONE', values: await values(), comment });
      toast(online ? t('operator.run.saved') : t('operator.run.savedOffline'));
      onSaved();
    } finally {
      setBusy(false);
    }
  };

  const skip = async () => {
    if (!reason.trim()) return;
    await enqueueRecord(user, view.job, { stepId: step.stepId, status: 'SKIPPED', values: [], reason });
    setSkipOpen(false);
    toast(online ? t('operator.run.saved') : t('operator.run.savedOffline'));
    onSaved();
  };

  return (
    <form class="step-form" onSubmit={(e) => void save(e)} noValidate>
      <Card heading={step.title} class="step">
        {step.body && <Markdown text={step.body} />}
        <StepMedia step={step} />
        {record && (
          <p class="record-note">
            {record.pending ? t('operator.run.pendingSync') : record.recordedBy ? t('operator.run.recordedBy', { name: record.recordedBy }) : ''}
          </p>
        )}
        {step.fields.map((field) => (
          <StepField key={field.key} field={field} value={draft[field.key]!} error={errors[field.key]} onValue={(v) => set(field, v)} />
        ))}
        <TextField label={t('operator.run.comment')} value={comment} onValue={setComment} multiline rows={2} />
      </Card>
      <div class="step-actions">
        {onBack && (
          <Button size="large" onClick={onBack}>
            {t('operator.run.previous')}
          </Button>
        )}
        <Button size="large" variant="ghost" onClick={() => setSkipOpen(true)}>
          {t('operator.run.skip')}
        </Button>
        <Button size="large" variant="primary" type="submit" busy={busy}>
          {last ? t('operator.run.saveLast') : t('operator.run.next')}
        </Button>
      </div>
      <Dialog
        open={skipOpen}
        title={t('operator.run.skip')}
        onClose={() => setSkipOpen(false)}
        actions={
          <Button variant="primary" disabled={!reason.trim()} onClick={() => void skip()}>
            {t('operator.run.skipConfirm')}
          </Button>
        }
      >
        <TextField label={t('operator.run.skipReason')} value={reason} onValue={setReason} multiline rows={3} required />
      </Dialog>
    </form>
  );
}

function photoName(photo: Blob): string {
  const named = (photo as File).name;
  if (named) return named;
  return `photo-${new Date().toISOString().replace(/[:.]/g, '-')}.${photo.type === 'image/png' ? 'png' : 'jpg'}`;
}

function Review({ user, view, onGoTo, databaseId, online, readOnly = false }: { user: UserKey; view: LocalJobView; onGoTo(index: number): void; databaseId: string; online: boolean; readOnly?: boolean }) {
  const t = useT();
  const { route } = useLocation();
  const [busy, setBusy] = useState(false);
  const steps = stepsOfJob(view.job);
  const missing = useMemo(() => missingRequired(view), [view]);
  const outside = steps.flatMap((step, index) => {
    const record = seenRecord(view, step);
    return (record?.values ?? [])
      .filter((v) => v.outOfLimits)
      .map((v) => ({ step, index, field: step.fields.find((f) => f.key === v.key), value: v.value }));
  });
  const complete = async () => {
    setBusy(true);
    try {
      await enqueueTransition(user, view.job.id, 'complete');
      toast(online ? t('operator.review.completed') : t('operator.review.completedOffline'));
      route(`/app/jobs/${databaseId}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <p>{t('operator.review.intro')}</p>
      <Card heading={t('operator.review.outOfLimits')} class="review-limits">
        {outside.length === 0 ? (
          <p>{t('operator.review.noneOutOfLimits')}</p>
        ) : (
          <ul>
            {outside.map(({ step, index, field, value }) => (
              <li key={`${step.stepId}-${field?.key}`} class="out-of-limits">
                <strong>{t('operator.review.step', { n: index + 1, title: step.title })}</strong>: {field?.label} {valueText(t, field, value)}
                {field && rangeText(field) && ` (${rangeText(field)})`}{' '}
                {!readOnly && (
                  <button type="button" class="btn btn-ghost" onClick={() => onGoTo(index)}>
                    {t('operator.review.goTo', { n: index + 1 })}
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </Card>
      {missing.length > 0 && (
        <Card heading={t('operator.review.missing')} class="review-missing">
          <ul>
            {missing.map(({ step, index, field }) => (
              <li key={`${step.stepId}-${field.key}`}>
                {t('operator.review.step', { n: index + 1, title: step.title })}: {field.label}{' '}
                <button type="button" class="btn btn-ghost" onClick={() => onGoTo(index)}>
                  {t('operator.review.goTo', { n: index + 1 })}
                </button>
              </li>
            ))}
          </ul>
        </Card>
      )}
      <ol class="review-steps">
        {steps.map((step, index) => {
          const record = seenRecord(view, step);
          return (
            <li key={step.stepId}>
              <span class="review-step-title">{step.title}</span>:{' '}
              {!record
                ? t('operator.review.notRecorded')
                : record.status === 'SKIPPED'
                  ? t('operator.review.skipped', { reason: record.reason ?? '' })
                  : record.values.map((v) => valueText(t, step.fields.find((f) => f.key === v.key), v.value)).join(', ')}
              {record?.pending && <span class="pending-mark"> · {t('operator.run.pendingSync')}</span>}
            </li>
          );
        })}
      </ol>
      {!readOnly && (
        <div class="step-actions">
          <Button size="large" onClick={() => onGoTo(steps.length - 1)}>
            {t('operator.review.back')}
          </Button>
          <Button size="large" variant="primary" busy={busy} disabled={missing.length > 0} onClick={() => void complete()}>
            {t('operator.review.complete')}
          </Button>
        </div>
      )}
    </>
  );
}

const SEVERITIES: Severity[] = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];

export function FaultDialog({ open, onClose, user, jobId, stepId }: { open: boolean; onClose(): void; user: UserKey; jobId: string; stepId: string | null }) {
  const t = useT();
  const sync = useSyncState();
  const [description, setDescription] = useState('');
  const [severity, setSeverity] = useState<Severity>('MEDIUM');
  const [photos, setPhotos] = useState<Blob[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async () => {
    if (!description.trim()) return setError(t('operator.fault.descriptionMissing'));
    setBusy(true);
    try {
      const refs = [];
      for (const photo of photos) refs.push(await enqueuePhoto(user, jobId, photo, photoName(photo)));
      await enqueueFault(user, jobId, { stepId, description, severity, photos: refs });
      toast(sync.online ? t('operator.fault.raised') : t('operator.run.savedOffline'));
      setDescription('');
      setPhotos([]);
      setError(null);
      onClose();
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      title={t('operator.fault.title')}
      onClose={onClose}
      actions={
        <Button variant="danger" busy={busy} onClick={() => void send()}>
          {t('operator.fault.send')}
        </Button>
      }
    >
      <TextField label={t('operator.fault.description')} value={description} onValue={setDescription} multiline rows={3} required error={error} />
      <Select
        label={t('operator.fault.severity')}
        value={severity}
        onValue={(v) => setSeverity(v as Severity)}
        options={SEVERITIES.map((s) => ({ value: s, label: t(`operator.fault.severity.${s}`) }))}
      />
      <PhotoList photos={photos} label={t('operator.fault.photo')} onRemove={(i) => setPhotos(photos.filter((_, j) => j !== i))} />
      <PhotoInput label={t('operator.fault.photo')} onPhoto={(blob) => setPhotos([...photos, blob])} />
    </Dialog>
  );
}

