import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { ApiError } from '../../api/client';
import { useI18n } from '../../i18n';
import {
  Button,
  Card,
  Checkbox,
  ErrorNotice,
  Loading,
  Notice,
  NumberField,
  PageHeader,
  Select,
  TextField,
  toast,
  useAsync,
  useErrorText,
} from '../../ui';
import {
  assets,
  assignableUsers,
  classesAndTeams,
  createSchedule,
  scheduleDetails,
  schedulePreview,
  updateSchedule,
  type MissedOccurrences,
  type Priority,
  type ScheduleDetails,
} from './api';
import { fieldErrorsOf, PrioritySelect, TemplatePicker } from './job-form';
import { choiceOf, defaultChoice, problemsOf, ruleOf, type RecurrenceChoice } from './recurrence';
import { RecurrenceFields } from './recurrence-fields';

/** Tomorrow as YYYY-MM-DD on this device: a new schedule's first day. */
function tomorrow(): string {
  const day = new Date(Date.now() + 86_400_000);
  return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
}

/**
 * /app/schedules/new and /app/schedules/:id/edit: a schedule of recurring jobs — what (template, pinned version or
 * the one published at each occurrence, title), for what (an asset, every asset of a class), who (people or a team),
 * when (the recurrence builder, the due offset, what happens to missed occurrences) — with the server's preview of
 * the next occurrences before saving. The server checks and saves (createSchedule, updateSchedule).
 */
export default function ScheduleFormPage() {
  const { params } = useRoute();
  const id = params.id ? Number(params.id) : null;
  const [existing] = useAsync(() => (id ? scheduleDetails(id) : Promise.resolve(null)), [id]);
  const { t } = useI18n();
  const title = t(id ? 'supervisor.scheduleForm.editTitle' : 'supervisor.scheduleForm.newTitle');
  return (
    <>
      <PageHeader title={title} subtitle={t('supervisor.scheduleForm.subtitle')} />
      {existing.status === 'loading' && <Loading />}
      {existing.status === 'error' && <ErrorNotice error={existing.error} />}
      {existing.status === 'done' &&
        (id && !existing.value ? (
          <Notice tone="warning">{t('supervisor.schedule.notFound')}</Notice>
        ) : (
          <ScheduleForm schedule={existing.value} label={title} />
        ))}
    </>
  );
}

type Preview =
  { status: 'idle' | 'loading' } | { status: 'done'; timeZone: string; occurrences: string[] } | { status: 'error'; error: unknown };

function ScheduleForm({ schedule, label }: { schedule: ScheduleDetails | null; label: string }) {
  const { t, formatDate } = useI18n();
  const errorText = useErrorText();
  const { route } = useLocation();
  const [people] = useAsync(assignableUsers);
  const [assetList] = useAsync(assets);
  const [catalogue] = useAsync(classesAndTeams);

  const [templateId, setTemplateId] = useState(schedule ? String(schedule.template.databaseId) : '');
  const [published, setPublished] = useState(schedule?.template.publishedVersion ?? null);
  const [version, setVersion] = useState(schedule?.pinnedVersion ? String(schedule.pinnedVersion.databaseId) : 'latest');
  const [title, setTitle] = useState(schedule?.title ?? '');
  const [titleTouched, setTitleTouched] = useState(Boolean(schedule));
  const [target, setTarget] = useState(
    schedule?.asset ? `asset:${schedule.asset.databaseId}` : schedule?.assetClass ? `class:${schedule.assetClass.databaseId}` : '',
  );
  const [teamId, setTeamId] = useState(schedule?.team ? String(schedule.team.databaseId) : '');
  const [assignees, setAssignees] = useState<number[]>(schedule?.assignees.map((a) => a.databaseId) ?? []);
  const [priority, setPriority] = useState<Priority>(schedule?.priority ?? 'MEDIUM');
  const [dueHours, setDueHours] = useState(schedule?.dueOffsetMinutes != null ? String(schedule.dueOffsetMinutes / 60) : '');
  const [missed, setMissed] = useState<MissedOccurrences>(schedule?.missedOccurrences ?? 'CREATE');
  const [choice, setChoice] = useState<RecurrenceChoice>(
    schedule ? choiceOf(schedule.recurrence, schedule.startsAt) : defaultChoice(tomorrow()),
  );
  const [preview, setPreview] = useState<Preview>({ status: 'idle' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  const choiceProblems = problemsOf(choice);
  const rule = ruleOf(choice);
  // the server's preview, a moment after the rule last changed; its refusal is shown at the rule's fields
  useEffect(() => {
    if (choiceProblems.length > 0) {
      setPreview({ status: 'idle' });
      return undefined;
    }
    setPreview({ status: 'loading' });
    let current = true;
    const timer = setTimeout(() => {
      schedulePreview(rule.recurrence, rule.startsAt).then(
        (answer) => current && setPreview({ status: 'done', ...answer }),
        (failure: unknown) => current && setPreview({ status: 'error', error: failure }),
      );
    }, 400);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [rule.recurrence, rule.startsAt, choiceProblems.length]);

  const previewFields = preview.status === 'error' ? (fieldErrorsOf(preview.error) ?? {}) : {};
  const due = dueHours.trim() === '' ? null : Number(dueHours.replace(',', '.'));
  const ruleErrors = {
    ...Object.fromEntries(choiceProblems.map((p) => [p, t(`supervisor.recurrence.problem.${p}`)])),
    ...(previewFields.recurrence && { recurrence: previewFields.recurrence }),
    ...(previewFields.startsAt && { startsAt: previewFields.startsAt }),
    ...(fieldErrors.recurrence && { recurrence: fieldErrors.recurrence }),
    ...(fieldErrors.startsAt && { startsAt: fieldErrors.startsAt }),
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const problems: Record<string, string> = {};
    if (!templateId) problems.templateId = t('supervisor.newJob.templateRequired');
    if (!title.trim()) problems.title = t('supervisor.newJob.titleRequired');
    if (due !== null && !(Number.isFinite(due) && due >= 0 && due <= 366 * 24))
      problems.dueOffsetMinutes = t('supervisor.scheduleForm.dueInvalid');
    setFieldErrors(problems);
    if (Object.keys(problems).length > 0 || choiceProblems.length > 0) {
      setError(t('supervisor.newJob.fix'));
      return;
    }
    const [kind, targetId] = target.split(':');
    const input = {
      title: title.trim(),
      templateId: Number(templateId),
      versionId: version === 'latest' ? null : Number(version),
      assetId: kind === 'asset' ? Number(targetId) : null,
      assetClassId: kind === 'class' ? Number(targetId) : null,
      assigneeIds: teamId ? [] : assignees,
      teamId: teamId ? Number(teamId) : null,
      priority,
      dueOffsetMinutes: due === null ? null : Math.round(due * 60),
      ...rule,
      missedOccurrences: missed,
    };
    setBusy(true);
    setError(null);
    try {
      const databaseId = schedule ? (await updateSchedule(schedule, input), schedule.databaseId) : (await createSchedule(input)).databaseId;
      toast(t(schedule ? 'supervisor.scheduleForm.saved' : 'supervisor.scheduleForm.created', { title: input.title }));
      route(`/app/schedules/${databaseId}`);
    } catch (failure) {
      setFieldErrors(fieldErrorsOf(failure) ?? {});
      setError(failure instanceof ApiError && failure.code === 'CONFLICT' ? t('supervisor.scheduleForm.conflict') : errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  const versionOptions = [
    { value: 'latest', label: t('supervisor.scheduleForm.latestVersion') },
    ...(published
      ? [{ value: String(published.databaseId), label: t('supervisor.scheduleForm.pinVersion', { version: published.number }) }]
      : []),
    ...(schedule?.pinnedVersion && schedule.pinnedVersion.databaseId !== published?.databaseId
      ? [
          {
            value: String(schedule.pinnedVersion.databaseId),
            label: t('supervisor.scheduleForm.keepPin', { version: schedule.pinnedVersion.number }),
          },
        ]
      : []),
  ];

  return (
    <>
      {error && <Notice tone="danger">{error}</Notice>}
      <form class="form-grid" onSubmit={(event) => void submit(event)} noValidate aria-label={label}>
        <Card heading={t('supervisor.newJob.what')}>
          <TemplatePicker
            value={templateId}
            onValue={(id, template) => {
              setTemplateId(id);
              setPublished(template?.publishedVersion ?? null);
              setVersion('latest');
              if (template && !titleTouched) setTitle(template.title);
            }}
            error={fieldErrors.templateId}
          />
          <Select
            label={t('supervisor.scheduleForm.version')}
            value={version}
            onValue={setVersion}
            options={versionOptions}
            hint={t('supervisor.scheduleForm.versionHint')}
            error={fieldErrors.versionId}
          />
          <TextField
            label={t('supervisor.scheduleForm.jobTitle')}
            value={title}
            onValue={(value) => {
              setTitle(value);
              setTitleTouched(true);
            }}
            required
            maxLength={200}
            error={fieldErrors.title}
          />
          {(assetList.status === 'error' || catalogue.status === 'error') && (
            <ErrorNotice error={assetList.status === 'error' ? assetList.error : (catalogue as { error: unknown }).error} />
          )}
          {assetList.status === 'done' && catalogue.status === 'done' && (
            <Select
              label={t('supervisor.scheduleForm.for')}
              value={target}
              onValue={setTarget}
              placeholder={t('supervisor.newJob.noAsset')}
              hint={t('supervisor.scheduleForm.forHint')}
              error={fieldErrors.assetId ?? fieldErrors.assetClassId}
              options={[
                ...assetList.value.map((asset) => ({
                  value: `asset:${asset.databaseId}`,
                  label: asset.serialNumber ? `${asset.name} (${asset.serialNumber})` : asset.name,
                })),
                ...catalogue.value.assetClasses.map((assetClass) => ({
                  value: `class:${assetClass.id}`,
                  label: t('supervisor.schedules.everyAsset', { assetClass: assetClass.name }),
                })),
              ]}
            />
          )}
        </Card>
        <Card heading={t('supervisor.scheduleForm.when')}>
          <RecurrenceFields choice={choice} onChoice={setChoice} errors={ruleErrors} />
          <section class="schedule-preview" aria-labelledby="schedule-preview-heading" aria-live="polite">
            <h3 id="schedule-preview-heading">{t('supervisor.scheduleForm.preview')}</h3>
            {preview.status === 'idle' && <p class="hint">{t('supervisor.scheduleForm.previewIdle')}</p>}
            {preview.status === 'loading' && <Loading />}
            {preview.status === 'error' &&
              (Object.keys(previewFields).length > 0 ? (
                <p class="hint">{t('supervisor.scheduleForm.previewRefused')}</p>
              ) : (
                <p class="error">{errorText(preview.error)}</p>
              ))}
            {preview.status === 'done' && (
              <>
                {preview.occurrences.length === 0 ? (
                  <p>{t('supervisor.schedules.none')}</p>
                ) : (
                  <ol class="occurrence-preview">
                    {preview.occurrences.map((at) => (
                      <li key={at}>
                        <time dateTime={at}>{formatDate(at, true)}</time>
                      </li>
                    ))}
                  </ol>
                )}
                <p class="hint">{t('supervisor.scheduleForm.zone', { zone: preview.timeZone })}</p>
              </>
            )}
          </section>
          <PrioritySelect value={priority} onValue={setPriority} />
          <NumberField
            label={t('supervisor.scheduleForm.due')}
            value={dueHours}
            onValue={setDueHours}
            unit={t('supervisor.scheduleForm.hours')}
            min={0}
            hint={t('supervisor.scheduleForm.dueHint')}
            error={fieldErrors.dueOffsetMinutes}
          />
          <Select
            label={t('supervisor.scheduleForm.missed')}
            value={missed}
            onValue={(value) => setMissed(value as MissedOccurrences)}
            options={(['CREATE', 'SKIP'] as const).map((m) => ({ value: m, label: t(`supervisor.scheduleForm.missed.${m}`) }))}
            hint={t('supervisor.scheduleForm.missedHint')}
          />
        </Card>
        <Card heading={t('supervisor.newJob.who')}>
          {catalogue.status === 'done' && (
            <Select
              label={t('supervisor.scheduleForm.team')}
              value={teamId}
              onValue={setTeamId}
              placeholder={t('supervisor.scheduleForm.noTeam')}
              hint={t('supervisor.scheduleForm.teamHint')}
              error={fieldErrors.teamId}
              options={catalogue.value.teams.map((team) => ({ value: String(team.id), label: team.name }))}
            />
          )}
          {!teamId && people.status === 'loading' && <Loading />}
          {!teamId && people.status === 'error' && <ErrorNotice error={people.error} />}
          {!teamId && people.status === 'done' && (
            <fieldset class="assignees">
              <legend>{t('supervisor.newJob.assignees')}</legend>
              <p class="hint">{t('supervisor.scheduleForm.assigneesHint')}</p>
              {people.value.users.map((user) => (
                <Checkbox
                  key={user.id}
                  label={user.title ? `${user.name} · ${user.title}` : user.name}
                  checked={assignees.includes(user.id)}
                  onChecked={(checked) =>
                    setAssignees((current) => (checked ? [...current, user.id] : current.filter((a) => a !== user.id)))
                  }
                />
              ))}
              {fieldErrors.assigneeIds && <p class="error">{fieldErrors.assigneeIds}</p>}
            </fieldset>
          )}
        </Card>
        <div class="form-actions">
          <Button type="submit" variant="primary" size="large" busy={busy}>
            {t(schedule ? 'supervisor.scheduleForm.save' : 'supervisor.scheduleForm.create')}
          </Button>
          <a class="btn btn-ghost" href={schedule ? `/app/schedules/${schedule.databaseId}` : '/app/schedules'}>
            {t('supervisor.cancel')}
          </a>
        </div>
      </form>
    </>
  );
}
