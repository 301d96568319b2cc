import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useI18n, useT, type Translate } from '../../i18n';
import type { Formats } from '../../format';
import { Badge, Button, Card, Dialog, ErrorNotice, Loading, Notice, PageHeader, Select, TextField, toast } from '../../ui';
import { QualificationNotice } from '../../rules/qualification-notice';
import {
  enqueueFault,
  enqueuePhoto,
  enqueueRecord,
  enqueueTransition,
  isEmptyValue,
  keepServerJob,
  localJobView,
  outOfLimits,
  refreshJob,
  useSyncState,
  userKey,
  type FieldDef,
  type LocalJobView,
  type QueuedValue,
  type StepDef,
  type UserKey,
} from '../../offline';
import { useSession } from '../../shell/session-context';
import { Markdown } from '../../ui/markdown';
import { calculate, calculationInputs } from '../../rules/local';
import { meaningsOf, missingSignoffs, SignoffPanel, validSignature } from '../../rules/signoffs';
import type { StepState } from '../../rules/progress';
import { ConflictPanel } from './conflicts';
import { CalculatedField, PhotoInput, PhotoList, StepField, type DraftPhoto, type DraftValue } from './step-fields';
import { JobStateBadges, personName, rangeText, valueText } from './common';
import { useLocalJob } from './hooks';
import { plainText } from '../../ui/plain-text';
import { jobProgress, jobRules, missingComments, missingRequired, stepStates, type SeenRecord, type StepRule } from './job-rules';
import { STATE_TONE, StepOutline, type OutlineSection } from './step-outline';
import { NotApplicableButton, NotApplyingNotice } from './step-rules';
import { FAULT_SEVERITIES, type FaultSeverity } from '../../../domain/vocabulary';

/** the notice saying why an unqualified user cannot record: what the disabled buttons name as their description */
const QUALIFICATION_NOTICE = 'qualification-refusal';

function initialDraft(step: StepDef, record: SeenRecord | undefined, format: Formats): Record<string, DraftValue> {
  const draft: Record<string, DraftValue> = {};
  for (const field of step.fields) {
    const value = record?.values.find((v) => v.key === field.key)?.value;
    if (field.type === 'PHOTO')
      draft[field.key] = Array.isArray(value) ? (value as DraftPhoto[]) : value == null ? [] : [value as DraftPhoto];
    else if (field.type === 'PASS_FAIL')
      draft[field.key] = value === true || value === 'PASS' ? 'PASS' : value === false || value === 'FAIL' ? 'FAIL' : '';
    // a number as the user types it in their language (2,5), so it reads back the same
    else draft[field.key] = value == null ? '' : typeof value === 'number' ? format.numberInput(value) : plainText(value);
  }
  return draft;
}

/** Completion refusals the device judges itself from what it holds (its queued records and transitions included). */
const LOCALLY_CHECKED = new Set(['REQUIRED_FIELDS_MISSING', 'COMMENT_REQUIRED', 'SIGNOFF_MISSING', 'INVALID_TRANSITION']);

const isClosed = (state: LocalJobView['state']) => state === 'COMPLETED' || state === 'CANCELLED' || state === 'REVIEWED';

/** What a queued change is when the operator saves it: on this device. "Saved." comes with the server's answer. */
const savedLocally = (t: Translate, online: boolean) => (online ? t('operator.run.savedLocal') : t('operator.run.savedOffline'));

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
  const rules = useMemo(() => jobRules(view), [view]);
  const steps = rules.map((r) => r.step);
  // the first step still to do: one that applies and has no record
  const open = rules.findIndex((r) => r.applies && !r.record);
  const requested = stepParam === 'review' ? steps.length : Number(stepParam) - 1;
  const index = Number.isInteger(requested) && requested >= 0 && requested <= steps.length ? requested : open < 0 ? steps.length : open;
  const go = (next: number) => route(`/app/jobs/${databaseId}/run?step=${next >= steps.length ? 'review' : next + 1}`);
  // on to the next step that applies, judged with the record just saved (it may open or close steps after it)
  const afterSave = async (saved: number) => {
    const fresh = await localJobView(user, view.job.id);
    go(nextApplying(fresh ? jobRules(fresh) : rules, saved));
  };
  const [faultOpen, setFaultOpen] = useState(false);
  // closed for recording once the server closed it, or once its completion is queued (until the server answers)
  const closed = isClosed(view.queuedState);
  const step = steps[index];
  // the server's verdict when the job was fetched: an unqualified user records nothing the server would refuse
  const refused = !closed && view.job.viewerQualification?.qualified === false;
  const states = useMemo(() => stepStates(view, rules), [view, rules]);
  const progress = useMemo(() => jobProgress(view, rules), [view, rules]);
  const href = (i: number) => `/app/jobs/${databaseId}/run?step=${i >= steps.length ? 'review' : i + 1}`;
  const sections: OutlineSection[] = view.job.version.content.sections.map((section) => ({
    title: section.title,
    steps: section.steps.map((s) => {
      const i = steps.findIndex((st) => st.stepId === s.stepId);
      return { stepId: s.stepId, number: i + 1, title: s.title, state: states[i], href: href(i), current: i === index };
    }),
  }));
  // the step just opened starts in view (a long step scrolled down, "Save and next", a jump from the outline)
  const main = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (main.current && main.current.getBoundingClientRect().top < 0) main.current.scrollIntoView({ block: 'start' });
  }, [index]);

  const pause = async () => {
    await enqueueTransition(user, view.job.id, 'pause');
    toast(savedLocally(t, sync.online));
    route('/app/jobs');
  };

  return (
    <>
      <PageHeader
        title={view.job.title}
        subtitle={
          <>
            {step ? t('operator.run.stepNumber', { n: index + 1 }) : t('operator.review.title')} ·{' '}
            <span class="run-progress">{t('operator.progress', { done: progress.done, total: progress.total })}</span>{' '}
            <JobStateBadges view={view} />
          </>
        }
        actions={
          !closed && (
            <>
              <Button variant="danger" onClick={() => setFaultOpen(true)}>
                {t('operator.run.fault')}
              </Button>
              {view.queuedState === 'IN_PROGRESS' && <Button onClick={() => void pause()}>{t('operator.run.pause')}</Button>}
            </>
          )
        }
      />
      {!sync.online && sync.waiting > 0 && <Notice tone="warning">{t('operator.run.offline', { n: sync.waiting })}</Notice>}
      <ConflictPanel user={user} job={view.job} items={view.items} />
      {!closed && <QualificationNotice check={view.job.viewerQualification} id={QUALIFICATION_NOTICE} />}
      <div class="outline-layout">
        <StepOutline sections={sections} progress={progress} review={{ href: href(steps.length), current: !step }} />
        <div class="run-main" ref={main}>
          {closed ? (
            <>
              {isClosed(view.state) ? (
                <Notice tone="info">{t('operator.run.closed', { state: t(`operator.state.${view.state}`) })}</Notice>
              ) : (
                <Notice tone="warning">{t('operator.run.completionWaiting')}</Notice>
              )}
              <Review
                user={user}
                view={view}
                rules={rules}
                states={states}
                onGoTo={go}
                databaseId={databaseId}
                online={sync.online}
                readOnly
              />
            </>
          ) : step && !rules[index].applies ? (
            <NotApplyingStep
              rule={rules[index]}
              view={view}
              last={index === steps.length - 1}
              onBack={index > 0 ? () => go(index - 1) : undefined}
              onNext={() => go(nextApplying(rules, index))}
            />
          ) : step ? (
            <StepForm
              key={step.stepId}
              user={user}
              view={view}
              rules={rules}
              step={step}
              last={index === steps.length - 1}
              onBack={index > 0 ? () => go(index - 1) : undefined}
              onSaved={() => void afterSave(index)}
              online={sync.online}
              refused={refused}
            />
          ) : (
            <Review user={user} view={view} rules={rules} states={states} onGoTo={go} databaseId={databaseId} online={sync.online} />
          )}
        </div>
      </div>
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

/** The step after `index` that applies (past the last: the review): a step a condition skips is passed over. */
function nextApplying(rules: readonly StepRule[], index: number): number {
  const next = rules.findIndex((r, i) => i > index && r.applies);
  return next < 0 ? rules.length : next;
}

/** A step that does not apply now: why, and on; its record, if it had one, kept and marked. Nothing to record. */
function NotApplyingStep({
  rule,
  view,
  last,
  onBack,
  onNext,
}: {
  rule: StepRule;
  view: LocalJobView;
  last: boolean;
  onBack?: () => void;
  onNext: () => void;
}) {
  const { t, format } = useI18n();
  return (
    <div class="step-form step-not-applying" data-step={rule.step.stepId}>
      <Card heading={rule.step.title} class="step">
        <NotApplyingNotice rule={rule} doc={view.job.version.content} />
        {rule.record && (
          <p class="record-note">
            {t('rules.run.recordKept', {
              values:
                rule.record.values
                  .map((v) =>
                    valueText(
                      t,
                      format,
                      rule.step.fields.find((f) => f.key === v.key),
                      v.value,
                    ),
                  )
                  .join(', ') || t('operator.conflict.empty'),
            })}
          </p>
        )}
      </Card>
      <div class="step-actions">
        {onBack && (
          <Button size="large" onClick={onBack}>
            {t('operator.run.previous')}
          </Button>
        )}
        <Button size="large" variant="primary" onClick={onNext}>
          {last ? t('rules.run.toReview') : t('rules.run.nextStep')}
        </Button>
      </div>
    </div>
  );
}

function StepForm({
  user,
  view,
  rules,
  step,
  last,
  onBack,
  onSaved,
  online,
  refused,
}: {
  user: UserKey;
  view: LocalJobView;
  rules: readonly StepRule[];
  step: StepDef;
  last: boolean;
  onBack?: () => void;
  onSaved: () => void;
  online: boolean;
  /** the user may not work on the job (the server's qualification verdict): recording is disabled, the notice says why */
  refused: boolean;
}) {
  const { t, format, readNumber } = useI18n();
  // a typed number in the user's language ("2,5" is 2.5 in German): NaN when it is none, the problem says why
  const parseNumber = (text: string) => {
    const read = readNumber(text);
    return 'value' in read ? read.value : NaN;
  };
  const numberProblem = (text: string) => {
    const read = readNumber(text);
    return 'error' in read ? read.error : null;
  };
  const { user: me } = useSession().session;
  const record = rules.find((r) => r.step.stepId === step.stepId)?.record;
  const [draft, setDraft] = useState(() => initialDraft(step, record, format));
  const [comment, setComment] = useState(record?.comment ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [skipOpen, setSkipOpen] = useState(false);
  const [reason, setReason] = useState('');
  // saved, and the step asks for a sign-off: the page stays here and asks for it instead of moving on
  const [asking, setAsking] = useState(false);

  const set = (field: FieldDef, value: DraftValue) => {
    setDraft({ ...draft, [field.key]: value });
    setAsking(false); // changed after saving: it is saved (and signed) again
    // instant feedback: a required value given, or a number typed that is not one
    const next = { ...errors };
    delete next[field.key];
    if ((field.type === 'NUMBER' || field.type === 'SENSOR') && typeof value === 'string' && value.trim() && numberProblem(value))
      next[field.key] = numberProblem(value)!;
    setErrors(next);
  };

  /** What stops the step from being saved: required values still empty, numbers that are not numbers. */
  const problems = (): Record<string, string> => {
    const found: Record<string, string> = {};
    for (const field of step.fields) {
      const value = draft[field.key];
      if (field.type === 'SIGNATURE' || field.type === 'CALCULATED') continue;
      const empty = Array.isArray(value) ? value.length === 0 : !value.trim();
      if (empty && field.required && field.type !== 'SENSOR') found[field.key] = t('operator.run.requiredMissing');
      if (!empty && (field.type === 'NUMBER' || field.type === 'SENSOR') && numberProblem(value as string))
        found[field.key] = numberProblem(value as string)!;
    }
    // the server refuses to complete a job whose FAILED or out-of-limits step has no comment: asked for here, at the step
    if (deviates && !comment.trim()) found.comment = t('operator.run.commentNeeded');
    return found;
  };

  /** The values to queue; photos just taken go into the queue now, ahead of the record that refers to them. */
  const values = async (): Promise<QueuedValue[]> => {
    const out: QueuedValue[] = [];
    for (const field of step.fields) {
      const value = draft[field.key];
      // the server computes CALCULATED values from their expression: a client never sends one
      if (field.type === 'CALCULATED') continue;
      if (field.type === 'SIGNATURE') {
        const kept = record?.values.find((v) => v.key === field.key);
        if (kept && !isEmptyValue(kept.value)) out.push({ key: field.key, value: kept.value });
      } else if (Array.isArray(value)) {
        if (value.length === 0) continue;
        const stored = [];
        for (const photo of value)
          stored.push(photo instanceof Blob ? await enqueuePhoto(user, view.job.id, photo, photoName(photo)) : photo);
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
      queueMicrotask(() =>
        document.querySelector<HTMLElement>('.step-form .field-invalid input, .step-form .field-invalid textarea')?.focus(),
      );
      return;
    }
    setBusy(true);
    try {
      const failed = step.fields.some((f) => f.type === 'PASS_FAIL' && draft[f.key] === 'FAIL');
      await enqueueRecord(user, view.job, { stepId: step.stepId, status: failed ? 'FAILED' : 'DONE', values: await values(), comment });
      toast(savedLocally(t, online));
      // recording a step again voids its signatures: a step that asks for a sign-off is signed after every save
      if (meaningsOf(step.signoff).length > 0) setAsking(true);
      else onSaved();
    } finally {
      setBusy(false);
    }
  };

  const skip = async () => {
    if (!reason.trim()) return;
    await enqueueRecord(user, view.job, { stepId: step.stepId, status: 'SKIPPED', values: [], reason });
    setSkipOpen(false);
    toast(savedLocally(t, online));
    onSaved();
  };

  // CALCULATED values live, from what is typed now and the earlier steps' records (what the server will compute)
  const calculated = calculate(
    view.job.version.content,
    step,
    new Map(
      step.fields
        .filter((f) => f.type === 'NUMBER' || f.type === 'SENSOR')
        .map((f) => [
          f.key,
          typeof draft[f.key] === 'string' && (draft[f.key] as string).trim() ? parseNumber(draft[f.key] as string) : undefined,
        ]),
    ),
    (stepId, key) => rules.find((r) => r.step.stepId === stepId && r.applies)?.record?.values.find((v) => v.key === key)?.value,
  );
  const stored = (key: string) => record?.values.find((v) => v.key === key);
  // a value outside its limits or a failed check: what needs a comment
  const deviates =
    step.fields.some((field) =>
      field.type === 'PASS_FAIL'
        ? draft[field.key] === 'FAIL'
        : (field.type === 'NUMBER' || field.type === 'SENSOR') &&
          typeof draft[field.key] === 'string' &&
          (draft[field.key] as string).trim() !== '' &&
          outOfLimits(field, parseNumber(draft[field.key] as string)),
    ) || [...calculated.values()].some((c) => 'outOfLimits' in c && c.outOfLimits);

  const unsigned = meaningsOf(step.signoff).filter((m) => !validSignature(view.job.signoffs, step.stepId, m));
  const signBlocked = !online
    ? t('rules.signoff.offline')
    : !record
      ? t('rules.signoff.recordFirst')
      : record.pending
        ? t('rules.signoff.pendingRecord')
        : null;

  return (
    <form class="step-form" onSubmit={(e) => void save(e)} noValidate>
      <Card heading={step.title} class="step">
        {step.body && <Markdown text={step.body} />}
        <StepMedia step={step} />
        {record && (
          <p class="record-note">
            {record.pending
              ? t('operator.run.pendingSync')
              : record.recordedBy
                ? t('operator.run.recordedBy', { name: personName(record.recordedBy) })
                : ''}
          </p>
        )}
        {step.fields.map((field) =>
          field.type === 'CALCULATED' ? (
            <CalculatedField
              key={field.key}
              field={field}
              inputs={calculationInputs(view.job.version.content, step, field)}
              computed={calculated.get(field.key)}
              stored={record && !record.pending ? stored(field.key) : undefined}
            />
          ) : (
            <StepField key={field.key} field={field} value={draft[field.key]} error={errors[field.key]} onValue={(v) => set(field, v)} />
          ),
        )}
        <TextField
          label={t('operator.run.comment')}
          value={comment}
          onValue={(text) => {
            setComment(text);
            setAsking(false);
            if (errors.comment && text.trim()) setErrors(({ comment: _, ...rest }) => rest);
          }}
          multiline
          rows={2}
          required={deviates}
          hint={deviates ? t('operator.run.commentHint') : undefined}
          error={errors.comment}
        />
        {asking && (
          <Notice tone="warning">
            <span class="signoff-still-needed" role="status">
              {unsigned.length > 0
                ? t('operator.run.signoffNeeded', { meanings: unsigned.map((m) => t(`operator.run.signoffNeed.${m}`)).join(', ') })
                : t('operator.run.signoffGiven')}{' '}
              {unsigned.length > 0 && signBlocked ? t('operator.run.signoffWhenSent') : ''}
            </span>
          </Notice>
        )}
        {step.signoff && (
          <SignoffPanel
            job={view.job}
            step={step}
            user={me}
            blocked={signBlocked}
            offer={['PERFORMED', 'VERIFIED']}
            ask={asking ? 'PERFORMED' : null}
            onSigned={(job) => {
              void keepServerJob(user, job);
              toast(t('rules.signoff.done'));
            }}
          />
        )}
      </Card>
      <div class="step-actions">
        {onBack && (
          <Button size="large" onClick={onBack}>
            {t('operator.run.previous')}
          </Button>
        )}
        <Button
          size="large"
          variant="ghost"
          onClick={() => setSkipOpen(true)}
          disabled={refused}
          aria-describedby={refused ? QUALIFICATION_NOTICE : undefined}
        >
          {t('operator.run.skip')}
        </Button>
        {step.allowNotApplicable && !refused && (
          <NotApplicableButton user={user} job={view.job} step={step} online={online} onMarked={onSaved} />
        )}
        {asking ? (
          <Button size="large" variant="primary" onClick={onSaved}>
            {unsigned.length > 0
              ? last
                ? t('operator.run.reviewSignLater')
                : t('operator.run.nextSignLater')
              : last
                ? t('rules.run.toReview')
                : t('rules.run.nextStep')}
          </Button>
        ) : (
          <Button
            size="large"
            variant="primary"
            type="submit"
            busy={busy}
            disabled={refused}
            aria-describedby={refused ? QUALIFICATION_NOTICE : undefined}
          >
            {last ? t('operator.run.saveLast') : t('operator.run.next')}
          </Button>
        )}
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

/** From an item of the review's lists to its step (the item names the step, the button its number). */
function GoToStep({ index, onGoTo }: { index: number; onGoTo: (index: number) => void }) {
  const t = useT();
  return (
    <button type="button" class="btn btn-ghost" onClick={() => onGoTo(index)}>
      {t('operator.review.goTo', { n: index + 1 })}
    </button>
  );
}

function Review({
  user,
  view,
  rules,
  states,
  onGoTo,
  databaseId,
  online,
  readOnly = false,
}: {
  user: UserKey;
  view: LocalJobView;
  rules: readonly StepRule[];
  states: readonly StepState[];
  onGoTo: (index: number) => void;
  databaseId: string;
  online: boolean;
  readOnly?: boolean;
}) {
  const { t, errorText, format } = useI18n();
  const { route } = useLocation();
  const [busy, setBusy] = useState(false);
  const steps = rules.map((r) => r.step);
  // the sign-offs someone may have given on another device meanwhile: the server's word, read once when the review opens
  useEffect(() => {
    if (online && !readOnly) void refreshJob(user, view.job.id);
  }, [online]);
  const missing = useMemo(() => missingRequired(rules), [rules]);
  const uncommented = useMemo(() => missingComments(rules), [rules]);
  // what only the server can judge (the operator's qualification, their right to complete, the job's state), as it
  // said when the job was last read; the rest the device checks itself, queued records included
  const refusals = (view.job.completionBlockers ?? []).filter((b) => !LOCALLY_CHECKED.has(b.code));
  const unsigned = missingSignoffs(view.job, steps, (stepId) => rules.find((r) => r.step.stepId === stepId)?.applies ?? true);
  const blocked = missing.length > 0 || unsigned.length > 0 || uncommented.length > 0 || refusals.length > 0;
  const outside = rules.flatMap(({ step, index, record, applies }) => {
    if (!applies) return [];
    return (record?.values ?? [])
      .filter((v) => v.outOfLimits)
      .map((v) => ({ step, index, field: step.fields.find((f) => f.key === v.key), value: v.value }));
  });
  const complete = async () => {
    setBusy(true);
    try {
      await enqueueTransition(user, view.job.id, 'complete');
      // "Job completed." only when the server confirms it (useSettledToasts); until then it waits on the device
      toast(online ? t('operator.review.completionSending') : t('operator.review.completedOffline'));
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
                <strong>{t('operator.review.step', { n: index + 1, title: step.title })}</strong>: {field?.label}{' '}
                {valueText(t, format, field, value)}
                {field && rangeText(format, field) && ` (${rangeText(format, field)})`}{' '}
                {!readOnly && <GoToStep index={index} onGoTo={onGoTo} />}
              </li>
            ))}
          </ul>
        )}
      </Card>
      {unsigned.length > 0 && (
        <Card heading={t('rules.review.unsigned')} class="review-unsigned">
          <ul>
            {unsigned.map(({ stepId, meaning }) => {
              const index = steps.findIndex((s) => s.stepId === stepId);
              return (
                <li key={`${stepId}-${meaning}`}>
                  {t('operator.review.step', { n: index + 1, title: steps[index].title })}: {t(`rules.signoff.missing.${meaning}`)}{' '}
                  {!readOnly && <GoToStep index={index} onGoTo={onGoTo} />}
                </li>
              );
            })}
          </ul>
        </Card>
      )}
      {uncommented.length > 0 && (
        <Card heading={t('operator.review.uncommented')} class="review-uncommented">
          <ul>
            {uncommented.map(({ step, index, record }) => (
              <li key={step.stepId}>
                {t('operator.review.step', { n: index + 1, title: step.title })}:{' '}
                {t(record?.status === 'FAILED' ? 'operator.review.failedNoComment' : 'operator.review.outOfLimitsNoComment')}{' '}
                {!readOnly && <GoToStep index={index} onGoTo={onGoTo} />}
              </li>
            ))}
          </ul>
        </Card>
      )}
      {!readOnly && refusals.length > 0 && (
        <Card heading={t('operator.review.serverRefuses')} class="review-refusals">
          <ul>
            {refusals.map((b) => (
              <li key={`${b.code}-${b.stepId ?? ''}`} data-code={b.code}>
                {errorText(b)}
              </li>
            ))}
          </ul>
        </Card>
      )}
      {missing.length > 0 && (
        <Card heading={t('operator.review.missing')} class="review-missing">
          <ul>
            {missing.map(({ step, index, field }) => (
              <li key={`${step.stepId}-${field.key}`}>
                {t('operator.review.step', { n: index + 1, title: step.title })}: {field.label} <GoToStep index={index} onGoTo={onGoTo} />
              </li>
            ))}
          </ul>
        </Card>
      )}
      <h2 class="review-steps-heading">{t('operator.review.steps')}</h2>
      {view.job.version.content.sections.map((section) => (
        <details key={section.sectionId} class="review-section" open>
          <summary>{section.title}</summary>
          <ol class="review-steps">
            {section.steps.map((s) => {
              const rule = rules.find((r) => r.step.stepId === s.stepId)!;
              return (
                <ReviewStep
                  key={s.stepId}
                  rule={rule}
                  state={states[rule.index]}
                  view={view}
                  missing={[
                    ...missing.filter((m) => m.index === rule.index).map((m) => m.field.label),
                    ...(uncommented.includes(rule) ? [t('operator.review.commentMissing')] : []),
                    ...unsigned.filter((u) => u.stepId === s.stepId).map((u) => t(`operator.run.signoffNeed.${u.meaning}`)),
                  ]}
                  onGoTo={readOnly ? undefined : onGoTo}
                />
              );
            })}
          </ol>
        </details>
      ))}
      {!readOnly && blocked && (
        <p class="complete-blocked" id="complete-blocked">
          {t('operator.review.blocked')}
        </p>
      )}
      {!readOnly && (
        <div class="step-actions">
          <Button size="large" onClick={() => onGoTo(steps.length - 1)}>
            {t('operator.review.back')}
          </Button>
          <Button
            size="large"
            variant="primary"
            busy={busy}
            disabled={blocked}
            aria-describedby={blocked ? 'complete-blocked' : undefined}
            onClick={() => void complete()}
          >
            {t('operator.review.complete')}
          </Button>
        </div>
      )}
    </>
  );
}

/** Stored photos of a record's value (file ids, or photos still on the device) as a list. */
const photosOf = (value: unknown): DraftPhoto[] =>
  value == null
    ? []
    : ((Array.isArray(value) ? value : [value]) as DraftPhoto[]).filter((p) => typeof p === 'number' || typeof p === 'object');

/**
 * One step in the review before completion, as it will be recorded: its state, every value (photos as
 * thumbnails), the comment or the reason it was skipped, its sign-offs, and what is still missing.
 */
function ReviewStep({
  rule,
  state,
  view,
  missing,
  onGoTo,
}: {
  rule: StepRule;
  state: StepState;
  view: LocalJobView;
  missing: string[];
  onGoTo?: (index: number) => void;
}) {
  const { t, format } = useI18n();
  const { step, record, applies, index } = rule;
  const signed = meaningsOf(step.signoff).map((meaning) => ({
    meaning,
    signature: validSignature(view.job.signoffs, step.stepId, meaning),
  }));
  return (
    <li class={applies ? 'review-step' : 'review-step not-applying'} data-step={step.stepId} data-state={state}>
      <p class="review-step-head">
        <span class="review-step-title">{t('operator.review.step', { n: index + 1, title: step.title })}</span>{' '}
        <Badge tone={STATE_TONE[state]}>{t(`operator.outline.state.${state}`)}</Badge>
        {record?.pending && view.pendingRecords.get(step.stepId)?.state !== 'pending' && (
          <span class="pending-mark"> · {t('operator.queue.state.conflict')}</span>
        )}
        {!applies && record && <span class="not-applying-mark"> · {t('rules.review.noLongerApplies')}</span>}
      </p>
      {!applies && !record ? null : !record ? (
        <p class="hint">{t('operator.review.notRecorded')}</p>
      ) : record.status === 'SKIPPED' ? (
        <p>{t('operator.review.skipped', { reason: record.reason ?? '' })}</p>
      ) : (
        <dl class="review-values">
          {step.fields
            .filter((f) => f.type !== 'SIGNATURE')
            .map((field) => {
              const value = record.values.find((v) => v.key === field.key);
              return (
                <div key={field.key} class={value?.outOfLimits ? 'review-value value-out-of-limits' : 'review-value'}>
                  <dt>{field.label}</dt>
                  <dd>
                    {field.type === 'PHOTO' && photosOf(value?.value).length > 0 ? (
                      <PhotoList photos={photosOf(value?.value)} label={field.label} />
                    ) : value?.error ? (
                      t('rules.calculated.error', { error: value.error })
                    ) : (
                      valueText(t, format, field, value?.value)
                    )}
                    {value?.outOfLimits &&
                      field &&
                      rangeText(format, field) &&
                      ` (${t('operator.run.limits', { range: rangeText(format, field) })})`}
                  </dd>
                </div>
              );
            })}
        </dl>
      )}
      {record?.comment && (
        <p class="review-comment">
          <strong>{t('operator.run.comment')}:</strong> {record.comment}
        </p>
      )}
      {applies && signed.length > 0 && (
        <ul class="review-signoffs">
          {signed.map(({ meaning, signature }) => (
            <li key={meaning}>
              {t(`rules.signoff.role.${meaning}`)}{' '}
              {signature ? signature.signerName : <Badge tone="warning">{t('rules.signoff.waiting')}</Badge>}
            </li>
          ))}
        </ul>
      )}
      {missing.length > 0 && <p class="review-step-missing">{t('operator.review.stillMissing', { list: missing.join(', ') })}</p>}
      {onGoTo && (missing.length > 0 || state !== 'done') && applies && <GoToStep index={index} onGoTo={onGoTo} />}
    </li>
  );
}

export function FaultDialog({
  open,
  onClose,
  user,
  jobId,
  stepId,
}: {
  open: boolean;
  onClose: () => void;
  user: UserKey;
  jobId: string;
  stepId: string | null;
}) {
  const t = useT();
  const sync = useSyncState();
  const [description, setDescription] = useState('');
  const [severity, setSeverity] = useState<FaultSeverity>('MEDIUM');
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
      toast(savedLocally(t, sync.online));
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
      <TextField
        label={t('operator.fault.description')}
        value={description}
        onValue={setDescription}
        multiline
        rows={3}
        required
        error={error}
      />
      <Select
        label={t('operator.fault.severity')}
        value={severity}
        onValue={(v) => setSeverity(v as FaultSeverity)}
        options={FAULT_SEVERITIES.map((s) => ({ value: s, label: t(`operator.fault.severity.${s}`) }))}
      />
      <PhotoList photos={photos} label={t('operator.fault.photo')} onRemove={(i) => setPhotos(photos.filter((_, j) => j !== i))} />
      <PhotoInput label={t('operator.fault.photo')} onPhoto={(blob) => setPhotos([...photos, blob])} />
    </Dialog>
  );
}
