import { useState } from 'preact/hooks';
import { NUMERIC_FIELD_TYPES, type EditorContent, type EditorField, type EditorStep } from './model';
import { calculate, calculationInputs } from '../../rules/local';
import { CalculatedField } from '../operator/step-fields';
import { describeCondition } from '../../rules/describe';
import type { FileInfo } from './queries';
import { Markdown } from '../../ui/markdown';
import { mediaKind } from './upload';
import { useI18n, useT, type I18n } from '../../i18n';

/**
 * One step as an operator sees it running a job: its text, its media and its
 * fields with instant feedback on limits and required values. Here it only
 * previews — values stay in the page, nothing is recorded — so an author can
 * try the limits they set. Read-only by design: app-operator may adopt it.
 */
export interface StepViewProps {
  step: EditorStep;
  sectionTitle: string;
  number: number;
  count: number;
  files: ReadonlyMap<number, FileInfo>;
  sensorName?: (id: number) => string | undefined;
  /** the whole document and the step's section's condition: the preview says when the step applies */
  content?: EditorContent;
  sectionWhen?: unknown;
  /** what is entered in the preview, by field key (the preview keeps it across steps); without, the step keeps its own */
  values?: Readonly<Record<string, string>>;
  onValue?: (key: string, value: string) => void;
  /** an earlier step's entered value, as a formula reads it */
  earlier?: (stepId: string, key: string) => unknown;
}

/** A value as entered in the preview, as the rules read it: numbers as numbers (typed in the user's language), nothing entered or not a number as undefined. */
export function ruleValue(field: EditorField | undefined, text: string | undefined, readNumber: I18n['readNumber']): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  if (field && NUMERIC_FIELD_TYPES.has(field.type)) {
    const read = readNumber(text);
    return 'value' in read ? read.value : undefined;
  }
  return text;
}

export function StepView({
  step,
  sectionTitle,
  number,
  count,
  files,
  sensorName,
  content,
  sectionWhen,
  values: given,
  onValue,
  earlier = () => undefined,
}: StepViewProps) {
  const { t, format, roleName, readNumber } = useI18n();
  // the review page gives no values: what a reviewer types to try the step stays in the step
  const [own, setOwn] = useState<Record<string, string>>({});
  const values = given ?? own;
  const setValue = onValue ?? ((key: string, value: string) => setOwn((entered) => ({ ...entered, [key]: value })));
  const headingId = `preview-step-${step.stepId}`;
  const doc = content ?? { sections: [] };
  const verifier = step.signoff?.verifier;
  // CALCULATED values by the operator app's own rules (src/app/rules/local.ts → src/domain/expressions.ts)
  const calculated = calculate(doc, step, new Map(step.fields.map((f) => [f.key, ruleValue(f, values[f.key], readNumber)])), earlier);
  return (
    <article class="step-view" aria-labelledby={headingId}>
      <p class="step-view-meta">
        <span>{sectionTitle}</span> · <span>{t('author.preview.stepOf', { number, count })}</span>
      </p>
      <h2 id={headingId} class="step-view-title">
        {step.title}
      </h2>
      {(sectionWhen != null || step.when != null) && (
        <p class="notice notice-info step-view-rule">
          {[
            sectionWhen != null && t('author.preview.sectionWhen', { condition: describeCondition(t, doc, sectionWhen) }),
            step.when != null && t('author.preview.when', { condition: describeCondition(t, doc, step.when) }),
          ]
            .filter(Boolean)
            .join(' ')}
        </p>
      )}
      {step.signoff && (step.signoff.performer || verifier) && (
        <p class="notice notice-info step-view-rule">
          {step.signoff.performer && verifier
            ? t('author.preview.signoffBoth', { roles: format.list(verifier.roles.map(roleName)) })
            : verifier
              ? t('author.preview.signoffVerifier', { roles: format.list(verifier.roles.map(roleName)) })
              : t('author.preview.signoffPerformer')}
        </p>
      )}
      {step.allowNotApplicable && <p class="notice notice-info step-view-rule">{t('author.preview.allowNotApplicable')}</p>}
      <Markdown text={step.body} headingBase={3} />
      {step.media.length > 0 && (
        <div class="step-view-media">
          {step.media.map((id) => (
            <StepMedia key={id} file={files.get(id)} id={id} />
          ))}
        </div>
      )}
      {step.model && <StepMedia file={files.get(step.model.fileId)} id={step.model.fileId} />}
      {step.fields.length > 0 && (
        <div class="step-view-fields">
          {step.fields.map((field) =>
            field.type === 'CALCULATED' ? (
              <CalculatedField
                key={field.key}
                field={field}
                computed={calculated.get(field.key)}
                inputs={calculationInputs(doc, step, field)}
              />
            ) : (
              <FieldView
                key={field.key}
                field={field}
                stepId={step.stepId}
                sensorName={sensorName}
                value={values[field.key] ?? ''}
                setValue={(v) => setValue(field.key, v)}
              />
            ),
          )}
        </div>
      )}
    </article>
  );
}

/** A step's file as the operator sees it: an image or a video shown, a 3D model or another file linked. */
export function StepMedia({ file, id }: { file: FileInfo | undefined; id: number }) {
  const t = useT();
  const url = file?.url ?? `/api/client/files/${id}`;
  const name = file?.name ?? t('author.media.file', { id });
  switch (file ? mediaKind(file.contentType) : 'other') {
    case 'image':
      return (
        <figure class="media-figure">
          <img src={url} alt={name} loading="lazy" />
        </figure>
      );
    case 'video':
      return (
        <figure class="media-figure">
          <video src={url} controls preload="metadata" aria-label={name} />
        </figure>
      );
    case 'model':
      return (
        <p class="media-model">
          <span class="badge">{t('author.media.model')}</span> <a href={url}>{name}</a>
        </p>
      );
    default:
      return (
        <p>
          <a href={url}>{name}</a>
        </p>
      );
  }
}

function FieldView({
  field,
  stepId,
  sensorName,
  value,
  setValue,
}: {
  field: EditorField;
  stepId: string;
  sensorName?: (id: number) => string | undefined;
  value: string;
  setValue: (value: string) => void;
}) {
  const { t, format, readNumber } = useI18n();
  const [touched, setTouched] = useState(false);
  const id = `preview-${stepId}-${field.key}`;
  const label = field.label || field.key;
  const hintId = `${id}-hint`;
  const feedbackId = `${id}-feedback`;
  // the limits as the operator reads them, in the author's language: "0,5–2 bar"
  const limits = format.range(field.min, field.max, field.unit);
  let feedback: string | null = null;
  if (touched && field.required && value === '') feedback = t('author.preview.required');
  if (field.type === 'NUMBER' && value !== '') {
    // typed as the operator will: "2,5" is 2.5 in German (not 25)
    const read = readNumber(value);
    if ('error' in read) feedback = read.error;
    else if ((field.min != null && read.value < field.min) || (field.max != null && read.value > field.max))
      feedback = t('author.preview.outOfLimits', { limits });
  }
  if (field.type === 'PASS_FAIL' && value === 'FAIL') feedback = t('author.preview.failed');
  const describedBy = [limits || field.type === 'SENSOR' ? hintId : '', feedback ? feedbackId : ''].filter(Boolean).join(' ') || undefined;
  const required = field.required ? (
    <span class="required">
      {' '}
      *<span class="visually-hidden">{t('author.preview.requiredMark')}</span>
    </span>
  ) : null;

  const hint = limits && (
    <p id={hintId} class="hint">
      {t('author.preview.limits', { limits })}
    </p>
  );
  const feedbackLine = feedback && (
    <p id={feedbackId} class="feedback warn" role="status">
      {feedback}
    </p>
  );

  if (field.type === 'PASS_FAIL' || field.type === 'CHOICE') {
    const options =
      field.type === 'PASS_FAIL'
        ? [
            ['PASS', t('author.preview.pass')],
            ['FAIL', t('author.preview.fail')],
          ]
        : (field.options ?? []).map((o) => [o, o]);
    return (
      <fieldset class="field-view choice" aria-describedby={describedBy}>
        <legend>
          {label}
          {required}
        </legend>
        <div class="choices">
          {options.map(([v, text]) => (
            <label class={`choice-option${value === v ? ' selected' : ''}`} key={v}>
              <input
                type="radio"
                name={id}
                value={v}
                checked={value === v}
                onChange={() => {
                  setValue(v);
                  setTouched(true);
                }}
              />
              <span>{text}</span>
            </label>
          ))}
        </div>
        {feedbackLine}
      </fieldset>
    );
  }

  return (
    <div class="field-view">
      <label for={id}>
        {label}
        {required}
      </label>
      {field.type === 'TEXT' && (
        <textarea
          id={id}
          rows={2}
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          onBlur={() => setTouched(true)}
          aria-describedby={describedBy}
        />
      )}
      {field.type === 'NUMBER' && (
        <div class="with-unit">
          <input
            id={id}
            type="text"
            inputMode="decimal"
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
            onBlur={() => setTouched(true)}
            aria-describedby={describedBy}
            aria-invalid={feedback ? true : undefined}
          />
          {field.unit && <span class="unit">{field.unit}</span>}
        </div>
      )}
      {field.type === 'PHOTO' && (
        <input
          id={id}
          type="file"
          accept="image/*"
          capture="environment"
          onChange={(e) => setValue(e.currentTarget.files?.length ? 'photo' : '')}
          aria-describedby={describedBy}
        />
      )}
      {field.type === 'SIGNATURE' && (
        <button id={id} type="button" class="btn btn-secondary" onClick={() => setValue('signed')} aria-describedby={describedBy}>
          {value ? t('author.preview.signed') : t('author.preview.sign')}
        </button>
      )}
      {field.type === 'SENSOR' && (
        <output id={id} class="sensor-reading" aria-describedby={describedBy}>
          {t('author.preview.sensorReading', {
            sensor: (field.sensorId != null && sensorName?.(field.sensorId)) || String(field.sensorId ?? '?'),
          })}
        </output>
      )}
      {field.type === 'SENSOR' && !limits && (
        <p id={hintId} class="hint">
          {t('author.preview.sensorHint')}
        </p>
      )}
      {hint}
      {feedbackLine}
    </div>
  );
}
