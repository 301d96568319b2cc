import { useState } from 'preact/hooks';
import { globalId, graphql } from '../../api/client';
import { can } from '../../api/session';
import { useI18n } from '../../i18n';
import { useSession } from '../../shell/session-context';
import { Button, Card, Dialog, Notice, Select, TextField, useAsync, useErrorText } from '../../ui';
import { loadMatrix, personName, type Override } from './api';

/**
 * A job's qualification overrides on its record page (docs/qualifications.md,
 * "Overrides"): who was let work on it lacking what, why, by whom and when —
 * for every reader of the job. Who may override (PERMISSIONS
 * .overrideQualification) lets someone work on the open job with a reason; the
 * server refuses it for a person who lacks nothing, and records it as one of
 * the job's deviations (kind OVERRIDE) for the reviewer.
 */
export function OverrideCard({
  jobId,
  overrides,
  open,
  onOverridden,
}: {
  jobId: number;
  overrides: Override[];
  /** the job still takes work (an override of a closed job lets nobody do anything) */
  open: boolean;
  onOverridden: () => void;
}) {
  const { t, formatDate } = useI18n();
  const { user } = useSession().session;
  const [dialog, setDialog] = useState(false);
  const mayOverride = open && can.overrideQualification(user);
  if (overrides.length === 0 && !mayOverride) return null;
  return (
    <Card
      heading={t('qualifications.override.heading', { n: overrides.length })}
      aria-label={t('qualifications.override.heading', { n: overrides.length })}
    >
      {overrides.length === 0 ? (
        <p class="hint">{t('qualifications.override.none')}</p>
      ) : (
        <ul class="override-list">
          {overrides.map((o, i) => (
            <li key={i} class="override-entry">
              <strong>{o.user ? personName(o.user) : t('qualifications.overrides.gone')}</strong>
              {(o.lacking.skills ?? []).length > 0 && (
                <>
                  {' · '}
                  {t('qualifications.override.lacked', {
                    skills: (o.lacking.skills ?? [])
                      .map((s) => t('qualifications.override.skill', { skill: s.skill, level: s.requiredLevel }))
                      .join(', '),
                  })}
                </>
              )}
              <br />
              {t('qualifications.overrides.reason', { reason: o.reason })}
              <br />
              <span class="hint">
                {t('qualifications.overrides.by', { name: o.overriddenByName, date: formatDate(o.createdAt, true) })}
              </span>
            </li>
          ))}
        </ul>
      )}
      {mayOverride && <Button onClick={() => setDialog(true)}>{t('qualifications.override.open')}</Button>}
      {dialog && (
        <OverrideDialog
          jobId={jobId}
          onClose={() => setDialog(false)}
          onDone={() => {
            setDialog(false);
            onOverridden();
          }}
        />
      )}
    </Card>
  );
}

function OverrideDialog({ jobId, onClose, onDone }: { jobId: number; onClose: () => void; onDone: () => void }) {
  const { t } = useI18n();
  const errorText = useErrorText();
  // the people of the client: the matrix's rows (whoever may override may read the matrix)
  const [people] = useAsync(loadMatrix);
  const [userId, setUserId] = useState('');
  const [reason, setReason] = useState('');
  const [problems, setProblems] = useState<{ user?: string; reason?: string }>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const send = async (event: Event) => {
    event.preventDefault();
    const found = {
      ...(!userId && { user: t('qualifications.override.userRequired') }),
      ...(!reason.trim() && { reason: t('qualifications.override.reasonRequired') }),
    };
    setProblems(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    setError(null);
    try {
      await graphql(
        `
          mutation OverrideQualification($input: OverrideQualificationInput!) {
            overrideQualification(input: $input) {
              override {
                reason
              }
            }
          }
        `,
        { input: { userId: globalId('User', userId), jobId: globalId('Job', jobId), reason: reason.trim() } },
      );
      onDone();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const options =
    people.status === 'done'
      ? people.value.rows.map((r) => ({ value: String(r.user.databaseId), label: `${personName(r.user)} (${r.user.email})` }))
      : [];
  return (
    <Dialog
      open
      title={t('qualifications.override.title')}
      onClose={onClose}
      actions={
        <>
          <Button onClick={onClose} disabled={busy}>
            {t('qualifications.sign.cancel')}
          </Button>
          <Button type="submit" form="override-form" variant="primary" busy={busy}>
            {t('qualifications.override.submit')}
          </Button>
        </>
      }
    >
      <form id="override-form" onSubmit={(e) => void send(e)} noValidate>
        <p>{t('qualifications.override.explain')}</p>
        {people.status === 'error' && <Notice tone="danger">{errorText(people.error)}</Notice>}
        <Select
          label={t('qualifications.override.person')}
          value={userId}
          onValue={setUserId}
          placeholder={t('shell.choose')}
          options={options}
          required
          error={problems.user}
        />
        <TextField
          label={t('qualifications.override.reason')}
          hint={t('qualifications.override.reasonHint')}
          value={reason}
          onValue={setReason}
          multiline
          rows={3}
          maxLength={2000}
          required
          error={problems.reason}
        />
        {error !== null && <Notice tone="danger">{errorText(error)}</Notice>}
      </form>
    </Dialog>
  );
}
