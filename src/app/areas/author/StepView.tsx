import { useState } from 'preact/hooks';
import type { EditorContent, EditorField, EditorStep } from './model';
import { describeCondition } from '../../rules/describe';
import type { FileInfo } from './queries';
import { Markdown } from '../../ui/Markdown';
import { mediaKind } from './upload';
import { useI18n, useT } from '../../i18n';

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
}

export function StepView({ step, sectionTitle, number, count, files, sensorName, content, sectionWhen }: StepViewProps) {
  const { t, format, roleName } = useI18n();
  const headingId = `preview-step-${step.stepId}`;
  const doc = content ?? { sections: [] };
  const verifier = step.signoff?.verifier;
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
            <Media key={id} file={files.get(id)} id={id} />
          ))}
        </div>
      )}
      {step.model && <Media file={files.get(step.model.fileId)} id={step.model.fileId} />}
      {step.fields.length > 0 && (
        <div class="step-view-fields">
          {step.fields.map((field) => (
            <FieldView key={field.key} field={field} stepId={step.stepId} sensorName={sensorName} />
          ))}
        </div>
      )}
    </article>
  );
}

function Media({ file, id }: { file: FileInfo | undefined; id: number }) {
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

function FieldView({ field, stepId, sensorName }: { field: EditorField; stepId: string; sensorName?: (id: number) => string | undefined }) {
  const { t, format, readNumber } = useI18n();
  const [value, setValue] = useState<string>('');
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
      {field.type === 'CALCULATED' && (
        <output id={id} class="sensor-reading" aria-describedby={describedBy}>
          {t('author.preview.calculated', { expression: field.expression || '?' })}
          {field.unit && ` (${field.unit})`}
        </output>
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
