import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiError } from '../../api/client';
import { useI18n } from '../../i18n';
import {
  Button,
  Card,
  Checkbox,
  ErrorNotice,
  Loading,
  Notice,
  PageHeader,
  Select,
  TextField,
  toast,
  useAsync,
  useErrorText,
} from '../../ui';
import { createFollowUpJob, publishedTemplates, type Priority } from './api';

/**
 * /app/faults/:id/follow-up: a job following up an open fault (from Deviations), from a published template,
 * optionally closing the fault when completed — GraphQL's createFollowUpJob links the two both ways.
 */
export default function FollowUpPage({ id }: { id: string }) {
  const { t } = useI18n();
  const errorText = useErrorText();
  const { route } = useLocation();
  const faultId = Number(id);
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [templates] = useAsync(() => publishedTemplates(query), [query]);
  const [templateId, setTemplateId] = useState('');
  const [title, setTitle] = useState('');
  const [priority, setPriority] = useState<Priority>('HIGH');
  const [closesFault, setClosesFault] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  useEffect(() => {
    const timer = setTimeout(() => setQuery(search), 300);
    return () => clearTimeout(timer);
  }, [search]);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!templateId) {
      setFieldErrors({ template: t('supervisor.newJob.templateRequired') });
      setError(t('supervisor.newJob.fix'));
      return;
    }
    setBusy(true);
    setError(null);
    setFieldErrors({});
    try {
      const job = await createFollowUpJob({ faultId, templateId: Number(templateId), title: title.trim() || null, priority, closesFault });
      toast(t('supervisor.followUp.created', { id: job.databaseId }));
      route('/app/board');
    } catch (failure) {
      if (failure instanceof ApiError && failure.fields.length) {
        setFieldErrors(Object.fromEntries(failure.fields.map((f) => [f.path.replace(/^(input|body)\./, ''), f.message])));
      }
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title={t('supervisor.followUp.title')} subtitle={t('supervisor.followUp.subtitle', { id: faultId })} />
      {error && <Notice tone="danger">{error}</Notice>}
      <form class="form-grid" onSubmit={(event) => void submit(event)} noValidate aria-label={t('supervisor.followUp.title')}>
        <Card heading={t('supervisor.newJob.what')}>
          <TextField
            label={t('supervisor.newJob.search')}
            type="search"
            value={search}
            onValue={setSearch}
            hint={t('supervisor.newJob.searchHint')}
          />
          {templates.status === 'loading' && <Loading />}
          {templates.status === 'error' && <ErrorNotice error={templates.error} />}
          {templates.status === 'done' && (
            <Select
              label={t('supervisor.newJob.template')}
              value={templateId}
              onValue={setTemplateId}
              required
              placeholder={templates.value.length ? t('shell.choose') : t('supervisor.newJob.noTemplates')}
              error={fieldErrors.template ?? fieldErrors.templateId}
              options={templates.value.map((tpl) => ({
                value: String(tpl.databaseId),
                label: t('supervisor.newJob.templateOption', { title: tpl.title, version: tpl.publishedVersion!.number }),
              }))}
            />
          )}
          <TextField
            label={t('supervisor.newJob.jobTitle')}
            value={title}
            onValue={setTitle}
            maxLength={200}
            hint={t('supervisor.followUp.titleHint')}
            error={fieldErrors.title}
          />
          <Select
            label={t('supervisor.newJob.priority')}
            value={priority}
            onValue={(value) => setPriority(value as Priority)}
            options={(['HIGH', 'MEDIUM', 'LOW'] as const).map((p) => ({ value: p, label: t(`supervisor.priority.${p}`) }))}
          />
          <Checkbox label={t('supervisor.followUp.closesFault')} checked={closesFault} onChecked={setClosesFault} />
        </Card>
        <div class="form-actions">
          <Button type="submit" variant="primary" size="large" busy={busy}>
            {t('supervisor.followUp.submit')}
          </Button>
          <a class="btn btn-ghost" href="/app/deviations">
            {t('supervisor.cancel')}
          </a>
        </div>
      </form>
    </>
  );
}
