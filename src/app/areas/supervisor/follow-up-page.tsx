import { useState } from 'preact/hooks';
import { useI18n } from '../../i18n';
import { Button, Card, Checkbox, Notice, PageHeader, TextField } from '../../ui';
import { createFollowUpJob, type Priority } from './api';
import { PrioritySelect, TemplatePicker, useJobSubmit } from './job-form';

/**
 * /app/faults/:id/follow-up: a job following up an open fault (from Deviations), from a published template,
 * optionally closing the fault when completed — GraphQL's createFollowUpJob links the two both ways.
 */
export default function FollowUpPage({ id }: { id: string }) {
  const { t } = useI18n();
  const faultId = Number(id);
  const [templateId, setTemplateId] = useState('');
  const [title, setTitle] = useState('');
  const [priority, setPriority] = useState<Priority>('HIGH');
  const [closesFault, setClosesFault] = useState(true);
  const { busy, error, fieldErrors, send } = useJobSubmit();

  const submit = (event: Event) => {
    event.preventDefault();
    return send(templateId ? {} : { template: t('supervisor.newJob.templateRequired') }, async () => {
      const job = await createFollowUpJob({ faultId, templateId: Number(templateId), title: title.trim() || null, priority, closesFault });
      return t('supervisor.followUp.created', { id: job.databaseId });
    });
  };

  return (
    <>
      <PageHeader title={t('supervisor.followUp.title')} subtitle={t('supervisor.followUp.subtitle', { id: faultId })} />
      {error && <Notice tone="danger">{error}</Notice>}
      <form class="form-grid" onSubmit={(event) => void submit(event)} noValidate aria-label={t('supervisor.followUp.title')}>
        <Card heading={t('supervisor.newJob.what')}>
          <TemplatePicker value={templateId} onValue={setTemplateId} error={fieldErrors.template ?? fieldErrors.templateId} />
          <TextField
            label={t('supervisor.newJob.jobTitle')}
            value={title}
            onValue={setTitle}
            maxLength={200}
            hint={t('supervisor.followUp.titleHint')}
            error={fieldErrors.title}
          />
          <PrioritySelect value={priority} onValue={setPriority} />
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
