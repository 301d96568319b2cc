import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiError } from '../../api/client';
import { useI18n } from '../../i18n';
import { ErrorNotice, Loading, Select, TextField, toast, useAsync, useErrorText } from '../../ui';
import { publishedTemplates, type Priority, type PublishedTemplate } from './api';

/**
 * The fields a new job and a follow-up job share (NewJobPage, FollowUpPage):
 * the published template, found by a search, the priority and the submit.
 */

export interface TemplatePickerProps {
  /** the chosen template's database id, '' for none */
  value: string;
  /** with the template itself when it is in the list shown */
  onValue: (templateId: string, template: PublishedTemplate | undefined) => void;
  error?: string;
}

/** A search over the published templates and the list of those found. */
export function TemplatePicker({ value, onValue, error }: TemplatePickerProps) {
  const { t } = useI18n();
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [templates] = useAsync(() => publishedTemplates(query), [query]);

  // search as the supervisor types, not on every key
  useEffect(() => {
    const timer = setTimeout(() => setQuery(search), 300);
    return () => clearTimeout(timer);
  }, [search]);

  return (
    <>
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
          value={value}
          onValue={(id) =>
            onValue(
              id,
              templates.value.find((tpl) => String(tpl.databaseId) === id),
            )
          }
          required
          placeholder={templates.value.length ? t('shell.choose') : t('supervisor.newJob.noTemplates')}
          error={error}
          options={templates.value.map((tpl) => ({
            value: String(tpl.databaseId),
            label: t('supervisor.newJob.templateOption', { title: tpl.title, version: tpl.publishedVersion!.number }),
          }))}
        />
      )}
    </>
  );
}

/** The job's priority. */
export function PrioritySelect({ value, onValue }: { value: Priority; onValue: (priority: Priority) => void }) {
  const { t } = useI18n();
  return (
    <Select
      label={t('supervisor.newJob.priority')}
      value={value}
      onValue={(priority) => onValue(priority as Priority)}
      options={(['HIGH', 'MEDIUM', 'LOW'] as const).map((p) => ({ value: p, label: t(`supervisor.priority.${p}`) }))}
    />
  );
}

/** A refusal's field problems by input field (the template, the title, ...); none for other failures. */
export function fieldErrorsOf(failure: unknown): Record<string, string> | null {
  if (!(failure instanceof ApiError) || !failure.fields.length) return null;
  return Object.fromEntries(failure.fields.map((f) => [f.path.replace(/^(input|body)\./, ''), f.message]));
}

/**
 * A job form's submit: problems found on the page stop it (each at its field,
 * with a summary); otherwise create runs — busy meanwhile — and the text it
 * resolves to is toasted on the way to the board; a refusal is shown, at its
 * fields where it names them.
 */
export function useJobSubmit() {
  const { t } = useI18n();
  const errorText = useErrorText();
  const { route } = useLocation();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  const send = async (problems: Record<string, string>, create: () => Promise<string>) => {
    setFieldErrors(problems);
    if (Object.keys(problems).length) {
      setError(t('supervisor.newJob.fix'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      toast(await create());
      route('/app/board');
    } catch (failure) {
      const refused = fieldErrorsOf(failure);
      if (refused) setFieldErrors(refused);
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, fieldErrors, send };
}
