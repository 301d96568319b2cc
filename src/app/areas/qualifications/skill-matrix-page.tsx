import { useMemo, useState } from 'preact/hooks';
import { can } from '../../api/session';
import { useI18n } from '../../i18n';
import {
  Button,
  Card,
  Checkbox,
  Dialog,
  EmptyState,
  ErrorNotice,
  ESignatureDialog,
  Loading,
  Notice,
  PageHeader,
  Select,
  TextField,
  toast,
  useAsync,
  useErrorText,
} from '../../ui';
import { useSession } from '../../shell/session-context';
import { jobRecordPath } from '../jobs/paths';
import { createSkill, grantSkill, loadMatrix, personName, recentOverrides, revokeSkill, type Grant, type Person, type Skill } from './api';

/** a grant expiring within this many days is "expiring soon" (the server's expiry notice is sent as many days ahead) */
const SOON_DAYS = 30;
const DAY = 86_400_000;
/** the overrides listed: the last 30 days */
const OVERRIDE_DAYS = 30;

type Standing = 'held' | 'soon' | 'expired';

function standingOf(grant: Grant, now: number): Standing {
  if (grant.expired) return 'expired';
  if (grant.expiresAt && Date.parse(grant.expiresAt) - now < SOON_DAYS * DAY) return 'soon';
  return 'held';
}

interface Target {
  user: Person;
  skill: Skill;
  grant: Grant | undefined;
}

/**
 * /app/skills: users × skills — the level each holds and until when, expiring
 * soon and expired marked; filters by person, skill and expiry. Who may grant
 * (PERMISSIONS.grantSkills) grants, changes or revokes a skill in a
 * cell, granting with their e-signature as the trainer; their own row they
 * cannot touch (separation of duties), and the page says so up front. Who may
 * create skills does it here; the overrides of the last 30 days follow.
 */
export default function SkillMatrixPage() {
  const { t, formatDate } = useI18n();
  const { user } = useSession().session;
  const mayGrant = can.grantSkills(user);
  const [matrix, reload] = useAsync(loadMatrix);
  const [overrides] = useAsync(() => recentOverrides(OVERRIDE_DAYS));
  const [search, setSearch] = useState('');
  const [skillFilter, setSkillFilter] = useState('');
  const [onlyExpiring, setOnlyExpiring] = useState(false);
  const [granting, setGranting] = useState<Target | null>(null);
  const [revoking, setRevoking] = useState<Target | null>(null);
  const [creating, setCreating] = useState(false);
  const now = Date.now();

  const shown = useMemo(() => {
    if (matrix.status !== 'done') return { skills: [], rows: [] };
    const needle = search.trim().toLowerCase();
    const skills = matrix.value.skills.filter((s) => !skillFilter || s.id === skillFilter);
    const rows = matrix.value.rows.filter((row) => {
      const grants = row.skills.filter((g) => skills.some((s) => s.id === g.skill.id));
      if (onlyExpiring && !grants.some((g) => standingOf(g, now) !== 'held')) return false;
      if (!needle) return true;
      return (
        personName(row.user).toLowerCase().includes(needle) ||
        row.user.email.toLowerCase().includes(needle) ||
        grants.some((g) =>
          matrix.value.skills
            .find((s) => s.id === g.skill.id)
            ?.name.toLowerCase()
            .includes(needle),
        )
      );
    });
    return { skills, rows };
  }, [matrix, search, skillFilter, onlyExpiring]);

  const cell = (row: { user: Person; skills: Grant[] }, skill: Skill) => {
    const grant = row.skills.find((g) => g.skill.id === skill.id);
    const standing = grant ? standingOf(grant, now) : null;
    const own = row.user.databaseId === user.id;
    const target = { user: row.user, skill, grant };
    const who = { skill: skill.name, name: personName(row.user) };
    return (
      <td key={skill.id} class={`matrix-cell${standing ? ` matrix-${standing}` : ''}`}>
        {grant ? (
          <>
            <span class="matrix-level">{t('qualifications.matrix.level', { level: grant.level })}</span>
            <span class="matrix-until">
              {standing === 'expired'
                ? t('qualifications.matrix.expired', { date: formatDate(grant.expiresAt) })
                : grant.expiresAt
                  ? t(standing === 'soon' ? 'qualifications.matrix.expiresSoon' : 'qualifications.matrix.until', {
                      date: formatDate(grant.expiresAt),
                    })
                  : t('qualifications.matrix.noExpiry')}
            </span>
            {grant.trainerName && <span class="matrix-trainer">{t('qualifications.matrix.trainer', { name: grant.trainerName })}</span>}
          </>
        ) : (
          <span class="matrix-none">{t('qualifications.matrix.notHeld')}</span>
        )}
        {mayGrant && !own && (
          <span class="matrix-actions">
            <Button
              onClick={() => setGranting(target)}
              aria-label={t(grant ? 'qualifications.grant.changeFor' : 'qualifications.grant.for', who)}
            >
              {grant ? t('qualifications.grant.change') : t('qualifications.grant.grant')}
            </Button>
            {grant && (
              <Button variant="ghost" onClick={() => setRevoking(target)} aria-label={t('qualifications.revoke.for', who)}>
                {t('qualifications.revoke.revoke')}
              </Button>
            )}
          </span>
        )}
      </td>
    );
  };

  return (
    <>
      <PageHeader
        title={t('qualifications.matrix.title')}
        subtitle={t('qualifications.matrix.subtitle')}
        actions={can.manageSkills(user) && <Button onClick={() => setCreating(true)}>{t('qualifications.create.open')}</Button>}
      />
      {mayGrant && <Notice tone="info">{t('qualifications.matrix.ownRow')}</Notice>}
      {matrix.status === 'loading' && <Loading />}
      {matrix.status === 'error' && <ErrorNotice error={matrix.error} />}
      {matrix.status === 'done' && (
        <>
          <div class="matrix-filters">
            <TextField type="search" label={t('qualifications.matrix.search')} value={search} onValue={setSearch} />
            <Select
              label={t('qualifications.matrix.skillFilter')}
              value={skillFilter}
              onValue={setSkillFilter}
              placeholder={t('qualifications.matrix.allSkills')}
              options={matrix.value.skills.map((s) => ({ value: s.id, label: s.name }))}
            />
            <Checkbox
              label={t('qualifications.matrix.onlyExpiring', { days: SOON_DAYS })}
              checked={onlyExpiring}
              onChecked={setOnlyExpiring}
            />
          </div>
          {matrix.value.truncated && (
            <Notice tone="warning">{t('qualifications.matrix.truncated', { n: matrix.value.rows.length })}</Notice>
          )}
          {matrix.value.skills.length === 0 ? (
            <EmptyState title={t('qualifications.matrix.noSkills')} />
          ) : shown.rows.length === 0 ? (
            <EmptyState title={t('qualifications.matrix.noMatch')} />
          ) : (
            // a region of its own that scrolls sideways on a phone, reachable by keyboard
            <div class="matrix-scroll" role="region" aria-label={t('qualifications.matrix.title')} tabIndex={0}>
              <table class="skill-matrix">
                <thead>
                  <tr>
                    <th scope="col">{t('qualifications.matrix.person')}</th>
                    {shown.skills.map((s) => (
                      <th scope="col" key={s.id}>
                        {s.name}
                        {s.levels > 1 && <span class="matrix-levels">{t('qualifications.matrix.levels', { n: s.levels })}</span>}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {shown.rows.map((row) => (
                    <tr key={row.user.databaseId}>
                      <th scope="row">
                        {personName(row.user)}
                        {row.user.databaseId === user.id && <span class="matrix-you">{t('qualifications.matrix.you')}</span>}
                      </th>
                      {shown.skills.map((s) => cell(row, s))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
      <Card heading={t('qualifications.overrides.title', { days: OVERRIDE_DAYS })}>
        {overrides.status === 'loading' && <Loading />}
        {overrides.status === 'error' && <ErrorNotice error={overrides.error} />}
        {overrides.status === 'done' &&
          (overrides.value.length === 0 ? (
            <p>{t('qualifications.overrides.none')}</p>
          ) : (
            <ul class="override-list">
              {overrides.value.map((o, i) => (
                <li key={i}>
                  <p>
                    <strong>{o.user ? personName(o.user) : t('qualifications.overrides.gone')}</strong>
                    {' · '}
                    {o.job ? (
                      <a href={jobRecordPath(o.job.databaseId)}>{o.job.title}</a>
                    ) : (
                      t('qualifications.overrides.template', { title: o.template?.title ?? '' })
                    )}
                  </p>
                  <p>{t('qualifications.overrides.reason', { reason: o.reason })}</p>
                  <p class="muted">{t('qualifications.overrides.by', { name: o.overriddenByName, date: formatDate(o.createdAt, true) })}</p>
                </li>
              ))}
            </ul>
          ))}
      </Card>
      {granting && (
        <GrantDialog
          target={granting}
          onClose={() => setGranting(null)}
          onGranted={() => {
            toast(t('qualifications.grant.done', { skill: granting.skill.name, name: personName(granting.user) }));
            setGranting(null);
            reload();
          }}
        />
      )}
      {revoking && (
        <RevokeDialog
          target={revoking}
          onClose={() => setRevoking(null)}
          onRevoked={() => {
            toast(t('qualifications.revoke.done', { skill: revoking.skill.name, name: personName(revoking.user) }));
            setRevoking(null);
            reload();
          }}
        />
      )}
      <CreateSkillDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(name) => {
          toast(t('qualifications.create.done', { name }));
          setCreating(false);
          reload();
        }}
      />
    </>
  );
}

/** `YYYY-MM-DD` of an ISO instant in local time (a date input's value). */
const dateInput = (iso: string) => {
  const d = new Date(iso);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

/** Grant or change a skill, the granter signing as trainer (meaning TRAINED): level, valid until, password or code. */
function GrantDialog({ target, onClose, onGranted }: { target: Target; onClose: () => void; onGranted: () => void }) {
  const { t } = useI18n();
  const { user } = useSession().session;
  const [level, setLevel] = useState(String(target.grant?.level ?? 1));
  const [until, setUntil] = useState(target.grant?.expiresAt && !target.grant.expired ? dateInput(target.grant.expiresAt) : '');
  const [untilError, setUntilError] = useState<string | null>(null);
  const name = personName(target.user);
  // valid until the end of the chosen day, where the trainer is
  const expiresAt = until ? new Date(`${until}T23:59:59`).toISOString() : null;
  return (
    <ESignatureDialog
      open
      formId={`grant-${target.user.databaseId}-${target.skill.id}`}
      title={t('qualifications.grant.title', { skill: target.skill.name, name })}
      submitLabel={t('qualifications.grant.sign')}
      texts="qualifications.sign"
      subject={[
        { label: t('qualifications.grant.person'), value: `${name} (${target.user.email})` },
        { label: t('qualifications.grant.skill'), value: target.skill.name },
      ]}
      signer={{ name: user.name, email: user.email }}
      meaning={t('qualifications.grant.meaning')}
      statement={t('qualifications.grant.statement', { name, skill: target.skill.name, level })}
      validate={() => {
        const bad = expiresAt !== null && Date.parse(expiresAt) <= Date.now();
        setUntilError(bad ? t('qualifications.grant.untilPast') : null);
        return !bad;
      }}
      sign={(credentials) =>
        grantSkill({ userId: target.user.databaseId, skillId: target.skill.id, level: Number(level), expiresAt, ...credentials })
      }
      onClose={onClose}
      onSigned={onGranted}
    >
      {target.skill.levels > 1 && (
        <Select
          label={t('qualifications.grant.level')}
          value={level}
          onValue={setLevel}
          options={Array.from({ length: target.skill.levels }, (_, i) => ({ value: String(i + 1), label: String(i + 1) }))}
        />
      )}
      <TextField
        type="date"
        label={t('qualifications.grant.until')}
        value={until}
        onValue={setUntil}
        error={untilError}
        hint={
          target.skill.validityDays
            ? t('qualifications.grant.untilDefault', { days: target.skill.validityDays })
            : t('qualifications.grant.untilNone')
        }
      />
    </ESignatureDialog>
  );
}

function RevokeDialog({ target, onClose, onRevoked }: { target: Target; onClose: () => void; onRevoked: () => void }) {
  const { t } = useI18n();
  const errorText = useErrorText();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const name = personName(target.user);
  const revoke = async () => {
    setBusy(true);
    setError(null);
    try {
      await revokeSkill(target.user.databaseId, target.skill.id);
      onRevoked();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      title={t('qualifications.revoke.title', { skill: target.skill.name, name })}
      onClose={onClose}
      actions={
        <>
          <Button onClick={onClose} disabled={busy}>
            {t('qualifications.sign.cancel')}
          </Button>
          <Button variant="danger" busy={busy} onClick={() => void revoke()}>
            {t('qualifications.revoke.revoke')}
          </Button>
        </>
      }
    >
      <p>{t('qualifications.revoke.explain', { skill: target.skill.name, name })}</p>
      {error !== null && <Notice tone="danger">{errorText(error)}</Notice>}
    </Dialog>
  );
}

function CreateSkillDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (name: string) => void }) {
  const { t } = useI18n();
  const errorText = useErrorText();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [levels, setLevels] = useState('1');
  const [validity, setValidity] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const create = async (event: Event) => {
    event.preventDefault();
    if (!name.trim()) return setError(new Error(t('qualifications.create.nameRequired')));
    setBusy(true);
    setError(null);
    try {
      await createSkill({
        name: name.trim(),
        description: description.trim(),
        levels: Number(levels),
        validityDays: validity ? Number(validity) : null,
      });
      onCreated(name.trim());
      setName('');
      setDescription('');
      setLevels('1');
      setValidity('');
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      title={t('qualifications.create.title')}
      onClose={onClose}
      actions={
        <Button type="submit" form="create-skill" variant="primary" busy={busy}>
          {t('qualifications.create.submit')}
        </Button>
      }
    >
      <form id="create-skill" onSubmit={(e) => void create(e)} noValidate>
        <TextField label={t('qualifications.create.name')} value={name} onValue={setName} required maxLength={100} />
        <TextField label={t('qualifications.create.description')} value={description} onValue={setDescription} multiline rows={2} />
        <Select
          label={t('qualifications.create.levels')}
          hint={t('qualifications.create.levelsHint')}
          value={levels}
          onValue={setLevels}
          options={['1', '2', '3', '4'].map((n) => ({ value: n, label: n }))}
        />
        <TextField
          label={t('qualifications.create.validity')}
          hint={t('qualifications.create.validityHint')}
          value={validity}
          onValue={(v) => setValidity(v.replace(/\D/g, ''))}
          inputMode="numeric"
        />
        {error !== null && <Notice tone="danger">{errorText(error)}</Notice>}
      </form>
    </Dialog>
  );
}
