import { useState } from 'preact/hooks';
import { useI18n } from '../../i18n';
import { Button, Card, Checkbox, ErrorNotice, Loading, Notice, PageHeader, Select, TextField, useAsync } from '../../ui';
import { assets, assigneeQualifications, assignableUsers, createJob, type Priority } from './api';
import { lackTexts, type QualificationCheck } from '../../rules/qualification';
import { PrioritySelect, TemplatePicker, useJobSubmit } from './job-form';

/**
 * /app/jobs/new: a job from a published template — its title, the asset,
 * the priority, the due date and the people who run it — created with
 * GraphQL's createJob (the server checks the template is published, the
 * assignees may run jobs, the caller may create them).
 */
export default function NewJobPage() {
  const { t, formatDate } = useI18n();
  const [people] = useAsync(assignableUsers);
  const [assetList] = useAsync(assets);

  const [templateId, setTemplateId] = useState('');
  const [title, setTitle] = useState('');
  const [titleTouched, setTitleTouched] = useState(false);
  const [assetId, setAssetId] = useState('');
  const [priority, setPriority] = useState<Priority>('MEDIUM');
  const [due, setDue] = useState('');
  const [assignees, setAssignees] = useState<number[]>([]);
  const { busy, error, fieldErrors, send } = useJobSubmit();
  // who of the people listed could be given a job of the chosen template: the server's check, asked before creating
  const [checks] = useAsync(
    () =>
      templateId && people.status === 'done'
        ? assigneeQualifications(
            Number(templateId),
            people.value.users.map((u) => u.id),
          )
        : Promise.resolve(new Map<number, QualificationCheck>()),
    [templateId, people.status],
  );
  const checkOf = (userId: number) => (checks.status === 'done' ? checks.value.get(userId) : undefined);
  const lacks = (check: QualificationCheck | undefined) =>
    check && !check.qualified ? lackTexts(t, formatDate, check, 'theirs').join('; ') : '';
  const unqualifiedChosen =
    people.status === 'done' ? people.value.users.filter((u) => assignees.includes(u.id) && lacks(checkOf(u.id))) : [];

  const submit = (event: Event) => {
    event.preventDefault();
    const problems: Record<string, string> = {};
    if (!templateId) problems.template = t('supervisor.newJob.templateRequired');
    if (!title.trim()) problems.title = t('supervisor.newJob.titleRequired');
    return send(problems, async () => {
      const job = await createJob({
        templateId: Number(templateId),
        title: title.trim(),
        assetId: assetId ? Number(assetId) : null,
        priority,
        dueAt: due ? new Date(due).toISOString() : null,
        assigneeIds: assignees,
      });
      return t('supervisor.newJob.created', { id: job.databaseId });
    });
  };

  return (
    <>
      <PageHeader title={t('supervisor.newJob.title')} subtitle={t('supervisor.newJob.subtitle')} />
      {error && <Notice tone="danger">{error}</Notice>}
      <form class="form-grid" onSubmit={(event) => void submit(event)} noValidate aria-label={t('supervisor.newJob.title')}>
        <Card heading={t('supervisor.newJob.what')}>
          <TemplatePicker
            value={templateId}
            onValue={(id, template) => {
              setTemplateId(id);
              // the job's title follows the template until the supervisor writes their own
              if (template && !titleTouched) setTitle(template.title);
            }}
            error={fieldErrors.template ?? fieldErrors.templateId}
          />
          <TextField
            label={t('supervisor.newJob.jobTitle')}
            value={title}
            onValue={(value) => {
              setTitle(value);
              setTitleTouched(true);
            }}
            required
            maxLength={500}
            error={fieldErrors.title}
          />
          {assetList.status === 'done' && (
            <Select
              label={t('supervisor.newJob.asset')}
              value={assetId}
              onValue={setAssetId}
              placeholder={t('supervisor.newJob.noAsset')}
              error={fieldErrors.assetId}
              options={assetList.value.map((asset) => ({
                value: String(asset.databaseId),
                label: asset.serialNumber ? `${asset.name} (${asset.serialNumber})` : asset.name,
              }))}
            />
          )}
          {assetList.status === 'error' && <ErrorNotice error={assetList.error} />}
        </Card>
        <Card heading={t('supervisor.newJob.when')}>
          <PrioritySelect value={priority} onValue={setPriority} />
          <TextField
            label={t('supervisor.newJob.due')}
            type="datetime-local"
            value={due}
            onValue={setDue}
            hint={t('supervisor.newJob.dueHint')}
            error={fieldErrors.dueAt}
          />
        </Card>
        <Card heading={t('supervisor.newJob.who')}>
          {people.status === 'loading' && <Loading />}
          {people.status === 'error' && <ErrorNotice error={people.error} />}
          {people.status === 'done' && (
            <fieldset class="assignees">
              <legend>{t('supervisor.newJob.assignees')}</legend>
              {people.value.users.length === 0 && <p class="hint">{t('supervisor.newJob.nobody')}</p>}
              {people.value.users.map((user) => {
                const lacking = lacks(checkOf(user.id));
                return (
                  <Checkbox
                    key={user.id}
                    class={lacking ? 'assignee-unqualified' : undefined}
                    label={user.title ? `${user.name} · ${user.title}` : user.name}
                    hint={lacking ? t('supervisor.newJob.lacks', { reasons: lacking }) : undefined}
                    checked={assignees.includes(user.id)}
                    onChecked={(checked) =>
                      setAssignees((current) => (checked ? [...current, user.id] : current.filter((id) => id !== user.id)))
                    }
                  />
                );
              })}
              {unqualifiedChosen.map((user) => (
                <p key={user.id} class="error" role="alert">
                  {t('supervisor.newJob.lacksChosen', { name: user.name, reasons: lacks(checkOf(user.id)) })}
                </p>
              ))}
              {checks.status === 'error' && <ErrorNotice error={checks.error} />}
              {fieldErrors.assigneeIds && <p class="error">{fieldErrors.assigneeIds}</p>}
            </fieldset>
          )}
        </Card>
        <div class="form-actions">
          <Button type="submit" variant="primary" size="large" busy={busy}>
            {t('supervisor.newJob.submit')}
          </Button>
          <a class="btn btn-ghost" href="/app/board">
            {t('supervisor.cancel')}
          </a>
        </div>
      </form>
    </>
  );
}
