import type { VNode } from 'preact';
import { useState } from 'preact/hooks';
import {
  FIELD_TYPES,
  inputId,
  LIMITS,
  moved,
  newField,
  relabelled,
  stepsInOrder,
  NUMERIC_FIELD_TYPES,
  pathOf,
  type EditorContent,
  type EditorField,
  type EditorStep,
  type FieldType,
  type StepAt,
} from './model';
import { StepRules } from './step-rules';
import type { FileInfo } from './queries';
import { Markdown } from '../../ui/markdown';
import { MediaEditor } from './media-editor';
import { FieldEditor, type FormulaField } from './field-editor';
import { Reorder } from './reorder';
import { ErrorText, type Problems } from './problems';
import { useT } from '../../i18n';

/** One step in the editor: title, text (Markdown, with its preview), media and 3D model, fields. */
export interface StepEditorProps {
  step: EditorStep;
  at: StepAt;
  number: number;
  problems: Problems;
  files: ReadonlyMap<number, FileInfo>;
  sensors: { databaseId: number; name: string; unit: string }[];
  handle: VNode;
  /** the whole draft: a condition names earlier steps, a formula earlier fields */
  content: EditorContent;
  /** the server takes `allowNotApplicable` (api/features.ts) */
  notApplicable: boolean;
  /** applies a change to the step as it is when the change lands */
  edit: (change: (step: EditorStep) => EditorStep) => void;
  onRemove: () => void;
  /** removes the field (the editor offers to undo it) */
  onRemoveField: (field: EditorField, index: number) => void;
  onUploaded: (file: FileInfo) => void;
  announce: (message: string) => void;
}

export function StepEditor(props: StepEditorProps) {
  const t = useT();
  const {
    step,
    at,
    number,
    problems,
    files,
    sensors,
    handle,
    content,
    notApplicable,
    edit,
    onRemove,
    onRemoveField,
    onUploaded,
    announce,
  } = props;
  const [showPreview, setShowPreview] = useState(false);
  const [newType, setNewType] = useState<FieldType>('NUMBER');
  const name = t('author.step.name', { number, title: step.title || t('author.step.untitled') });
  const path = (prop: string) => pathOf.step(at, prop);
  const invalid = (prop: string) =>
    problems.has(path(prop)) ? { 'aria-invalid': true, 'aria-describedby': `${inputId(path(prop))}-error` } : {};
  const headingId = `step-heading-${step.stepId}`;
  // what a formula of the field at `index` may read: numeric fields above it in this step, then those of earlier steps
  const formulaFields = (index: number): FormulaField[] => {
    const numeric = (f: EditorField) => NUMERIC_FIELD_TYPES.has(f.type);
    const earlier = stepsInOrder(content)
      .filter((s) => s.number < number)
      .flatMap(({ step: st, number: n }) =>
        st.fields.filter(numeric).map((f) => ({
          ref: `${st.stepId}.${f.key}`,
          label: f.label || f.key,
          where: t('author.step.name', { number: n, title: st.title || t('author.step.untitled') }),
        })),
      );
    const own = step.fields
      .slice(0, index)
      .filter(numeric)
      .map((f) => ({ ref: f.key, label: f.label || f.key, where: t('author.field.thisStep') }));
    return [...own, ...earlier];
  };
  const bodyTabs = `body-tabs-${step.stepId}`;

  return (
    <section class="card step-editor" aria-labelledby={headingId}>
      <div class="card-head">
        {handle}
        <h3 id={headingId} tabIndex={-1}>
          {name}
        </h3>
        <button type="button" class="btn btn-danger" onClick={onRemove} aria-label={t('author.step.remove', { name })}>
          {t('author.remove')}
        </button>
      </div>
      <div class="form-row">
        <label for={inputId(path('title'))}>{t('author.step.title')}</label>
        <input
          id={inputId(path('title'))}
          type="text"
          required
          maxLength={LIMITS.title}
          value={step.title}
          onInput={(e) => edit((s) => ({ ...s, title: e.currentTarget.value }))}
          {...invalid('title')}
        />
        <ErrorText problems={problems} path={path('title')} />
      </div>
      <div class="form-row">
        <div class="label-with-tabs">
          <label for={inputId(path('body'))}>{t('author.step.body')}</label>
          <div role="group" aria-label={t('author.step.bodyView')} id={bodyTabs} class="segmented">
            <button type="button" aria-pressed={!showPreview} onClick={() => setShowPreview(false)}>
              {t('author.step.write')}
            </button>
            <button type="button" aria-pressed={showPreview} onClick={() => setShowPreview(true)}>
              {t('author.step.previewText')}
            </button>
          </div>
        </div>
        {showPreview ? (
          <div class="markdown-preview" aria-label={t('author.step.previewOf', { name })} role="region">
            {step.body.trim() ? <Markdown text={step.body} headingBase={4} /> : <p class="muted">{t('author.step.noText')}</p>}
          </div>
        ) : (
          <textarea
            id={inputId(path('body'))}
            rows={5}
            maxLength={LIMITS.body}
            value={step.body}
            onInput={(e) => edit((s) => ({ ...s, body: e.currentTarget.value }))}
            aria-describedby={`${inputId(path('body'))}-hint`}
            {...invalid('body')}
          />
        )}
        <p class="hint" id={`${inputId(path('body'))}-hint`}>
          {t('author.step.markdownHint')}
        </p>
        <ErrorText problems={problems} path={path('body')} />
      </div>

      <h4 class="subheading">{t('author.media.heading')}</h4>
      <MediaEditor
        step={step}
        stepName={name}
        files={files}
        onUploaded={onUploaded}
        announce={announce}
        onChange={(change) => edit((s) => ({ ...s, ...change }))}
        onAdd={(as, fileId) =>
          edit((s) =>
            as === 'model'
              ? { ...s, model: { fileId, anchorPose: null } }
              : { ...s, media: [...s.media, fileId].slice(0, LIMITS.mediaPerStep) },
          )
        }
      />
      <ErrorText problems={problems} path={path('media')} />

      <StepRules step={step} at={at} number={number} content={content} problems={problems} notApplicable={notApplicable} edit={edit} />

      <h4 class="subheading">{t('author.field.heading')}</h4>
      {step.fields.length === 0 && <p class="muted">{t('author.field.none')}</p>}
      <Reorder<EditorField>
        items={step.fields}
        keyOf={(f) => f.uid}
        nameOf={(f) => t('author.field.name', { name: f.label || f.key })}
        label={t('author.field.listOf', { name })}
        announce={announce}
        onMove={(from, to) => edit((s) => ({ ...s, fields: moved(s.fields, from, to) }))}
        render={(field, index, fieldHandle) => (
          <FieldEditor
            field={field}
            at={at}
            index={index}
            problems={problems}
            sensors={sensors}
            handle={fieldHandle}
            formulaFields={formulaFields(index)}
            onChange={(next) => edit((s) => ({ ...s, fields: s.fields.map((f) => (f.uid === field.uid ? next : f)) }))}
            onLabel={(label) =>
              edit((s) => ({ ...s, fields: s.fields.map((f) => (f.uid === field.uid ? relabelled(f, label, s.stepId, content) : f)) }))
            }
            onRemove={() => onRemoveField(field, index)}
          />
        )}
      />
      {step.fields.length < LIMITS.fieldsPerStep && (
        <div class="add-field">
          <label for={`new-field-type-${step.stepId}`}>{t('author.field.newType')}</label>
          <select id={`new-field-type-${step.stepId}`} value={newType} onChange={(e) => setNewType(e.currentTarget.value as FieldType)}>
            {FIELD_TYPES.map((type) => (
              <option value={type} key={type}>
                {t(`author.fieldType.${type}`)}
              </option>
            ))}
          </select>
          <button
            type="button"
            class="btn btn-secondary"
            aria-label={t('author.field.add', { name })}
            onClick={() => {
              edit((s) => ({ ...s, fields: [...s.fields, newField(content, newType, '')] }));
              announce(t('author.field.added', { type: t(`author.fieldType.${newType}`), name }));
            }}
          >
            {t('author.field.addShort')}
          </button>
        </div>
      )}
    </section>
  );
}
