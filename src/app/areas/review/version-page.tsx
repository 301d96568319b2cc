import { useMemo, useState } from 'preact/hooks';
import { graphql } from '../../api/client';
import { useI18n } from '../../i18n';
import { Badge, Button, Card, ErrorNotice, Loading, Notice, PageHeader, toast, useAsync, type Tone } from '../../ui';
import { DiffView } from './diff-view';
import { reviewDiff, type ContentDoc, type ServerDiff } from './diff-model';
import { OlderJobs } from './older-jobs';
import { StepView } from '../author/step-view';
import { fromServer, stepsInOrder } from '../author/model';
import { filesOf, type VersionDetail } from '../author/queries';
import {
  actedBy,
  baseVersionOf,
  BASE_AND_DIFF,
  personName,
  VERSION,
  versionGlobalId,
  type BaseVersion,
  type Person,
  type ReviewVersion,
  type SignedAction,
} from './queries';
import { SignDialog } from './sign-dialog';
import { waitedFor } from './time';

/**
 * /app/reviews/:versionId — one version under review: what changed against
 * the published version, step by step; approve, reject with a reason or
 * publish, each an electronic signature; the signatures it already carries;
 * and the jobs still running on older versions of its template.
 */
interface Loaded {
  version: ReviewVersion;
  me: Person;
  /** the version compared with, and the diff to it; null: nothing was published before */
  base: { number: number; published: boolean; content: ContentDoc; diff: ServerDiff } | null;
}

async function load(versionId: string): Promise<Loaded> {
  const id = versionGlobalId(versionId);
  const answer = await graphql<{ templateVersion: ReviewVersion; me: Person }>(VERSION, { id });
  const version = answer.templateVersion;
  const base = baseVersionOf(version);
  if (!base) return { version, me: answer.me, base: null };
  const compared = await graphql<BaseVersion>(BASE_AND_DIFF, { base: base.id, id });
  return {
    version,
    me: answer.me,
    base: {
      number: base.number,
      published: base.state === 'PUBLISHED',
      content: compared.templateVersion!.content,
      diff: compared.versionDiff,
    },
  };
}

export const STATE_TONE: Record<string, Tone> = {
  DRAFT: 'neutral',
  IN_REVIEW: 'info',
  APPROVED: 'success',
  PUBLISHED: 'success',
  RETIRED: 'neutral',
};
/** the page's signed actions, in the order of their buttons */
const SIGNED: SignedAction[] = ['APPROVE', 'PUBLISH', 'REJECT'];

export default function ReviewVersionPage({ versionId }: { versionId: string }) {
  const { t } = useI18n();
  const [round, setRound] = useState(0);
  const [state, reload] = useAsync(() => load(versionId), [versionId]);
  const [signing, setSigning] = useState<SignedAction | null>(null);
  const [signed, setSigned] = useState<SignedAction | null>(null);

  if (state.status === 'loading') return <Loading />;
  if (state.status === 'error')
    return (
      <div>
        <PageHeader title={t('review.version.notFound')} />
        <ErrorNotice error={state.error} />
        <p>
          <a href="/app/reviews">{t('review.version.back')}</a>
        </p>
      </div>
    );
  const { version, me, base } = state.value;
  const actions = SIGNED.filter((action) => version.viewerActions.includes(action));

  const onSigned = (action: SignedAction) => {
    setSigning(null);
    setSigned(action);
    toast(t(`review.signed.${action}`));
    reload();
    setRound((n) => n + 1);
  };

  return (
    <div class="review-version">
      <PageHeader
        title={t('review.queue.item', { title: version.template.title, number: version.number })}
        subtitle={<Subtitle version={version} />}
        actions={actions.map((action) => (
          <Button key={action} variant={action === 'REJECT' ? 'danger' : 'primary'} onClick={() => setSigning(action)}>
            {t(`review.action.${action}`)}
          </Button>
        ))}
      />
      {signed && <Notice tone="success">{t(`review.signed.${signed}`)}</Notice>}
      {version.state === 'DRAFT' && version.rejectReason && (
        <Notice tone="warning">{t('review.version.rejected', { reason: version.rejectReason })}</Notice>
      )}
      {actions.length === 0 && !signed && <p class="review-no-action">{t(`review.version.noAction.${version.state}`)}</p>}
      <Changes version={version} base={base} />
      <Steps version={version} />
      {version.signatures.length > 0 && <Signatures version={version} />}
      <OlderJobs versionId={version.id} round={round} />
      <p class="review-links">
        <a href={`/app/templates/${version.template.databaseId}`}>{t('review.version.template', { title: version.template.title })}</a>
        <a href="/app/reviews">{t('review.version.back')}</a>
      </p>
      <SignDialog action={signing} version={version} signer={me} onClose={() => setSigning(null)} onSigned={onSigned} />
    </div>
  );
}

function Subtitle({ version }: { version: ReviewVersion }) {
  const { t, language, formatDate } = useI18n();
  // the approver (or publisher) by name, beside the author: each state names who did it
  const signer = actedBy(version);
  return (
    <span class="review-subtitle">
      <Badge tone={STATE_TONE[version.state]}>{t(`review.state.${version.state}`)}</Badge>{' '}
      {version.updatedBy && <span>{t('review.version.by', { name: personName(version.updatedBy) })}</span>}{' '}
      {signer && signer.by !== 'EDITED' && (
        <span>{t(signer.by === 'APPROVED' ? 'review.version.approvedBy' : 'review.version.publishedBy', { name: signer.name })}</span>
      )}{' '}
      {version.waitingSince && (
        <span>
          {t(`review.queue.since.${version.state}`)}{' '}
          <time dateTime={version.waitingSince} title={formatDate(version.waitingSince, true)}>
            {waitedFor(version.waitingSince, new Date(), language)}
          </time>
        </span>
      )}
    </span>
  );
}

function Changes({ version, base }: Pick<Loaded, 'version' | 'base'>) {
  const { t } = useI18n();
  const diff = useMemo(() => reviewDiff(base?.content ?? null, version.content, base?.diff ?? null), [version, base]);
  // compared with the published version, or (this one is published now) with the one it replaced
  const heading = base
    ? t(base.published ? 'review.diff.title' : 'review.diff.titleReplaced', { number: base.number })
    : t('review.diff.titleFirst');
  return (
    <Card heading={heading} aria-label={heading} class="review-changes">
      <DiffView diff={diff} />
    </Card>
  );
}

function Signatures({ version }: { version: ReviewVersion }) {
  const { t, formatDate } = useI18n();
  return (
    <Card heading={t('review.signatures.title')} aria-label={t('review.signatures.title')}>
      <ul class="review-list">
        {version.signatures.map((s) => (
          <li key={`${s.meaning}-${s.signedAt}`} class="review-item">
            <span>
              <strong>{t(`review.meaning.${s.meaning}`)}</strong> — {s.signerName}
            </span>
            <div class="review-item-meta">
              <time dateTime={s.signedAt}>{formatDate(s.signedAt, true)}</time>
              <span>
                {t('review.sign.fingerprint')}: <code class="hash">{s.contentHash.slice(0, 16)}…</code>
              </span>
            </div>
          </li>
        ))}
      </ul>
    </Card>
  );
}

/**
 * Every step of the version as the operator's screen will show it — the author's preview (StepView), so the
 * reviewer signs exactly what the author saw: text, images and videos shown, models and other files linked,
 * fields with units and limits, conditions, formulas, sign-offs — and the skills the version requires.
 */
function Steps({ version }: { version: ReviewVersion }) {
  const { t } = useI18n();
  // the same GraphQL selection as the author's (author/queries.ts STEP): the author's reading of it applies
  const server = version.content as unknown as VersionDetail['content'];
  const content = useMemo(() => fromServer(server), [server]);
  const files = useMemo(() => filesOf(server), [server]);
  const steps = stepsInOrder(content);
  const skills = version.content.qualifications ?? [];
  const heading = t('review.steps.title');
  return (
    <Card heading={heading} aria-label={heading} class="review-version-steps">
      <p class="hint">{t('review.steps.hint', { number: version.number })}</p>
      {skills.length > 0 && (
        <p class="notice notice-info">
          {t('review.steps.qualifications', {
            skills: skills.map((s) => t('review.diff.skill', { skill: s.skill, level: s.level })).join(', '),
          })}
        </p>
      )}
      {steps.length === 0 ? (
        <p>{t('review.steps.empty')}</p>
      ) : (
        <ol class="review-step-list">
          {steps.map(({ step, section, number }) => (
            <li key={step.stepId} class="operator-frame">
              <StepView
                step={step}
                sectionTitle={section.title}
                number={number}
                count={steps.length}
                files={files}
                content={content}
                sectionWhen={section.when}
              />
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}
