import type { ComponentChildren } from 'preact';
import { useI18n, type I18n, type Translate } from '../../i18n';
import type { Formats } from '../../format';
import { Badge, type Tone } from '../../ui';
import { describeCondition } from '../../rules/describe';
import {
  FIELD_PROPERTIES,
  type Change,
  type ContentDoc,
  type FieldChange,
  type FieldDoc,
  type FieldProperty,
  type FileDoc,
  type ReviewDiff,
  type SkillDoc,
  type SignoffDoc,
  type StepChange,
  type StepKind,
} from './diff-model';
import { plainText } from '../../ui/plain-text';
import { StepMedia } from '../author/step-view';

/**
 * The semantic diff, step by step, for reading on a tablet: one block per
 * step that was added, removed, changed or moved, saying in words (never by
 * colour alone) what is new, what was there before and what is there now.
 */
export function DiffView({ diff }: { diff: ReviewDiff }) {
  const { t } = useI18n();
  const { counts } = diff;
  return (
    <div class="diff">
      <p class="diff-summary">
        {t('review.diff.summary', {
          added: counts.added,
          removed: counts.removed,
          changed: counts.changed,
          moved: counts.moved,
          unchanged: diff.unchanged,
        })}
      </p>
      {diff.qualifications && (
        <dl class="diff-parts">
          <Part
            label={t('review.diff.part.qualifications')}
            change={{ before: skillsText(t, diff.qualifications.before), after: skillsText(t, diff.qualifications.after) }}
          />
        </dl>
      )}
      {diff.steps.length === 0 && !diff.qualifications ? (
        <p>{t('review.diff.noChanges')}</p>
      ) : (
        <ol class="diff-steps">
          {diff.steps.map((change) => (
            <li key={`${change.kind}-${change.stepId}`}>
              <StepBlock change={change} docs={diff.docs} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

const KIND_TONE: Record<StepKind, Tone> = { added: 'success', removed: 'danger', changed: 'warning', moved: 'info' };

type Docs = ReviewDiff['docs'];

function StepBlock({ change, docs }: { change: StepChange; docs: Docs }) {
  const { t } = useI18n();
  return (
    <article
      class={`diff-step diff-${change.kind}`}
      aria-label={t('review.diff.stepLabel', { title: change.step.title, kind: t(`review.diff.kind.${change.kind}`) })}
    >
      <header class="diff-step-head">
        <h3>{change.step.title}</h3>
        <Badge tone={KIND_TONE[change.kind]}>{t(`review.diff.kind.${change.kind}`)}</Badge>
        {change.kind === 'changed' && change.moved && <Badge tone="info">{t('review.diff.kind.moved')}</Badge>}
      </header>
      <p class="diff-section">{t('review.diff.inSection', { section: change.section })}</p>
      {change.kind === 'added' && <StepContent fields={change.step.fields} body={change.step.body} />}
      {change.kind === 'added' && change.step.mediaFiles.length > 0 && (
        <dl class="diff-parts">
          <div class="diff-part">
            <dt>{t('review.diff.part.media')}</dt>
            <dd>
              <Files files={change.step.mediaFiles} />
            </dd>
          </div>
        </dl>
      )}
      {change.kind === 'added' && <AddedRules change={change} doc={docs.after} />}
      {change.kind === 'removed' && <p>{t('review.diff.removedStep', { n: change.step.fields.length })}</p>}
      {change.kind === 'moved' && <p>{t('review.diff.movedOnly')}</p>}
      {change.kind === 'changed' && <StepChanges change={change} docs={docs} />}
    </article>
  );
}

function StepContent({ body, fields }: { body: string; fields: FieldDoc[] }) {
  const { t } = useI18n();
  return (
    <>
      {body && <Text label={t('review.diff.text')} text={body} />}
      {fields.length > 0 && (
        <ul class="diff-fields">
          {fields.map((field) => (
            <li key={field.key}>
              <FieldLine field={field} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** A condition in words (null: always), read against the version it belongs to. */
function conditionText(t: Translate, doc: ContentDoc | null, condition: unknown): string {
  return condition == null ? t('review.diff.always') : describeCondition(t, doc ?? { sections: [] }, condition);
}

/** A sign-off requirement in words. */
function signoffText({ t, format, roleName }: Pick<I18n, 't' | 'format' | 'roleName'>, signoff: SignoffDoc | null | undefined): string {
  if (!signoff || (!signoff.performer && !signoff.verifier)) return t('review.diff.noSignoff');
  const parts = [
    signoff.performer ? t('review.diff.signoffPerformer') : '',
    signoff.verifier ? t('review.diff.signoffVerifier', { roles: format.list(signoff.verifier.roles.map(roleName)) }) : '',
    signoff.skills && signoff.skills.length > 0 ? t('review.diff.signoffSkills', { skills: skillsText(t, signoff.skills) }) : '',
  ];
  return parts.filter(Boolean).join(' · ');
}

/** Required skills in words: "Pumps (level 2), Welding (level 1)"; none: "none". */
function skillsText(t: Translate, skills: SkillDoc[]): string {
  return skills.length === 0
    ? t('review.diff.none')
    : skills.map((s) => t('review.diff.skill', { skill: s.skill, level: s.level })).join(', ');
}

/** Files as the operator sees them (images shown, others linked), each with its name. */
function Files({ files }: { files: FileDoc[] }) {
  return (
    <ul class="diff-files">
      {files.map((file) => (
        <li key={file.databaseId}>
          <StepMedia id={file.databaseId} file={file.contentType ? file : undefined} />
          {file.name && <span class="diff-file-name">{file.name}</span>}
        </li>
      ))}
    </ul>
  );
}

/** The files removed and added: a replaced image shows the old one struck out and the new one. */
function MediaPart({ media }: { media: NonNullable<StepChange['media']> }) {
  const { t } = useI18n();
  return (
    <div class="diff-part">
      <dt>{t('review.diff.part.media')}</dt>
      <dd class="diff-media">
        {media.removed.length > 0 && (
          <div class="diff-before">
            <span class="diff-tag">{t('review.diff.mediaRemoved', { n: media.removed.length })}</span>
            <del>
              <Files files={media.removed} />
            </del>
          </div>
        )}
        {media.added.length > 0 && (
          <div class="diff-after">
            <span class="diff-tag">{t('review.diff.mediaAdded', { n: media.added.length })}</span>
            <ins>
              <Files files={media.added} />
            </ins>
          </div>
        )}
        {media.removed.length === 0 && media.added.length === 0 && <span>{t('review.diff.mediaReordered')}</span>}
        {media.kept > 0 && <span class="hint">{t('review.diff.mediaKept', { n: media.kept })}</span>}
      </dd>
    </div>
  );
}

/** A step's 3D model in words: its file's name (the file's id when the server named none), or none. */
function modelText(t: Translate, model: StepChange['step']['model']): string {
  if (!model) return t('review.diff.none');
  return model.file?.name || t('review.diff.file', { id: model.fileId });
}

/** A new step's rules: when it applies and who signs it (only those it has). */
function AddedRules({ change, doc }: { change: StepChange; doc: ContentDoc }) {
  const i18n = useI18n();
  const { t } = i18n;
  const section = doc.sections.find((s) => s.steps.some((st) => st.stepId === change.stepId));
  if (change.step.when == null && section?.when == null && !change.step.signoff) return null;
  return (
    <dl class="diff-parts">
      {section?.when != null && (
        <div class="diff-part">
          <dt>{t('review.diff.part.sectionWhen')}</dt>
          <dd>{conditionText(t, doc, section.when)}</dd>
        </div>
      )}
      {change.step.when != null && (
        <div class="diff-part">
          <dt>{t('review.diff.part.when')}</dt>
          <dd>{conditionText(t, doc, change.step.when)}</dd>
        </div>
      )}
      {change.step.signoff && (
        <div class="diff-part">
          <dt>{t('review.diff.part.signoff')}</dt>
          <dd>{signoffText(i18n, change.step.signoff)}</dd>
        </div>
      )}
    </dl>
  );
}

function StepChanges({ change, docs }: { change: StepChange; docs: Docs }) {
  const i18n = useI18n();
  const { t } = i18n;
  return (
    <dl class="diff-parts">
      {change.sectionWhen && (
        <Part
          label={t('review.diff.part.sectionWhen')}
          change={{
            before: conditionText(t, docs.before, change.sectionWhen.before),
            after: conditionText(t, docs.after, change.sectionWhen.after),
          }}
        />
      )}
      {change.when && (
        <Part
          label={t('review.diff.part.when')}
          change={{ before: conditionText(t, docs.before, change.when.before), after: conditionText(t, docs.after, change.when.after) }}
        />
      )}
      {change.signoff && (
        <Part
          label={t('review.diff.part.signoff')}
          change={{ before: signoffText(i18n, change.signoff.before), after: signoffText(i18n, change.signoff.after) }}
        />
      )}
      {change.title && <Part label={t('review.diff.part.title')} change={change.title} />}
      {change.sectionChange && <Part label={t('review.diff.part.section')} change={change.sectionChange} />}
      {change.body && <TextPart change={change.body} />}
      {change.media && <MediaPart media={change.media} />}
      {change.model && (
        <Part
          label={t('review.diff.part.model')}
          change={{ before: modelText(t, change.model.before), after: modelText(t, change.model.after) }}
        />
      )}
      {change.fields.map((field) => (
        <FieldPart key={field.field.key} change={field} />
      ))}
    </dl>
  );
}

/** A part that changed: its name, then before and after, each labelled in words. */
function Part({ label, change }: { label: string; change: Change<string> }) {
  const { t } = useI18n();
  return (
    <div class="diff-part">
      <dt>{label}</dt>
      <dd>
        <span class="diff-before">
          <span class="diff-tag">{t('review.diff.before')}</span> <del>{change.before}</del>
        </span>
        <span class="diff-after">
          <span class="diff-tag">{t('review.diff.after')}</span> <ins>{change.after}</ins>
        </span>
      </dd>
    </div>
  );
}

function TextPart({ change }: { change: Change<string> }) {
  const { t } = useI18n();
  return (
    <div class="diff-part">
      <dt>{t('review.diff.part.body')}</dt>
      <dd class="diff-texts">
        <Text label={t('review.diff.before')} text={change.before} removed />
        <Text label={t('review.diff.after')} text={change.after} added />
      </dd>
    </div>
  );
}

/** A step's text as written (Markdown source, line breaks kept): the reviewer reads exactly what the author wrote. */
function Text({ label, text, added, removed }: { label: string; text: string; added?: boolean; removed?: boolean }) {
  const { t } = useI18n();
  const shown: ComponentChildren = text || <em>{t('review.diff.empty')}</em>;
  return (
    <figure class={['diff-text', added ? 'diff-after' : '', removed ? 'diff-before' : ''].filter(Boolean).join(' ')}>
      <figcaption class="diff-tag">{label}</figcaption>
      <div class="diff-text-body">{added ? <ins>{shown}</ins> : removed ? <del>{shown}</del> : shown}</div>
    </figure>
  );
}

function FieldPart({ change }: { change: FieldChange }) {
  const { t, format } = useI18n();
  const name = change.field.label || change.field.key;
  if (change.kind === 'added' || change.kind === 'removed') {
    return (
      <div class="diff-part">
        <dt>{t(`review.diff.field.${change.kind}`, { name })}</dt>
        <dd>
          <FieldLine field={change.field} />
        </dd>
      </div>
    );
  }
  return (
    <div class="diff-part">
      <dt>{t('review.diff.field.changed', { name })}</dt>
      <dd>
        <table class="diff-table">
          <caption class="visually-hidden">{t('review.diff.field.changed', { name })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('review.diff.property')}</th>
              <th scope="col">{t('review.diff.before')}</th>
              <th scope="col">{t('review.diff.after')}</th>
            </tr>
          </thead>
          <tbody>
            {change.properties.map(({ property, before, after }) => (
              <tr key={property}>
                <th scope="row">{t(`review.diff.prop.${property}`)}</th>
                <td>
                  <del>{formatValue(t, format, property, before)}</del>
                </td>
                <td>
                  <ins>{formatValue(t, format, property, after)}</ins>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </dd>
    </div>
  );
}

/** One field in a line: label, type, required, unit, limits, options. */
function FieldLine({ field }: { field: FieldDoc }) {
  const { t, format } = useI18n();
  const facts = FIELD_PROPERTIES.filter(
    (p) => p !== 'label' && field[p] !== null && field[p] !== undefined && !(p === 'required' && !field.required),
  ).map((p) => `${t(`review.diff.prop.${p}`)}: ${formatValue(t, format, p, field[p])}`);
  return (
    <span class="diff-field">
      <strong>{field.label || field.key}</strong> — {facts.join(' · ')}
    </span>
  );
}

export function formatValue(t: Translate, format: Formats, property: FieldProperty, value: unknown): string {
  if (value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) return t('review.diff.none');
  if (property === 'required') return value ? t('review.diff.yes') : t('review.diff.no');
  if (property === 'type') return t(`review.fieldType.${plainText(value)}`);
  if (property === 'options') return (value as string[]).join(', ');
  if (typeof value === 'number' && (property === 'min' || property === 'max')) return format.number(value);
  return plainText(value);
}
