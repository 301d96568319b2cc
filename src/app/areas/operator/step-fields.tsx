import { useId } from 'preact/hooks';
import { useI18n, useT } from '../../i18n';
import { NumberField, TextField, Notice } from '../../ui';
import { isLocalFileRef, type FieldDef, type LocalFileRef } from '../../offline';
import type { Calculated } from '../../rules/local';
import { Photo, rangeText } from './common';
import { useObjectUrl } from './hooks';

/** A photo in a form: already stored (a file id, or a photo queued on the device) or just taken (its Blob). */
export type DraftPhoto = number | LocalFileRef | Blob;
/** A field's value while the operator edits it: text for TEXT/NUMBER/SENSOR (as typed), PASS/FAIL/option, photos. */
export type DraftValue = string | DraftPhoto[];

export function PhotoInput({ label, onPhoto }: { label: string; onPhoto: (photo: Blob) => void }) {
  const id = `p${useId()}`;
  return (
    <div class="photo-input">
      <input
        id={id}
        class="visually-hidden"
        type="file"
        accept="image/*"
        capture="environment"
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          if (file) onPhoto(file);
          event.currentTarget.value = '';
        }}
      />
      <label class="btn btn-secondary btn-large" for={id}>
        {label}
      </label>
    </div>
  );
}

function DraftPhotoView({ photo, alt }: { photo: DraftPhoto; alt: string }) {
  const url = useObjectUrl(photo instanceof Blob ? photo : undefined);
  if (photo instanceof Blob) return url ? <img class="photo-thumb" src={url} alt={alt} width={120} height={90} /> : null;
  return <Photo value={photo} alt={alt} />;
}

export function PhotoList({ photos, label, onRemove }: { photos: DraftPhoto[]; label: string; onRemove?: (index: number) => void }) {
  const t = useT();
  if (photos.length === 0) return null;
  return (
    <ul class="photo-list">
      {photos.map((photo, i) => (
        <li key={photo instanceof Blob ? `b${i}` : isLocalFileRef(photo) ? photo.localFile : photo}>
          <DraftPhotoView photo={photo} alt={t('operator.run.photoAlt', { n: i + 1, label })} />
          {onRemove && (
            <button type="button" class="btn btn-ghost" onClick={() => onRemove(i)}>
              {t('operator.run.removePhoto', { n: i + 1 })}
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

/** Choices as large radio buttons (pass/fail, a CHOICE's options): one tap, a visible label each. */
function ChoiceGroup({
  field,
  value,
  options,
  error,
  onValue,
}: {
  field: FieldDef;
  value: string;
  options: { value: string; label: string }[];
  error?: string | null;
  onValue: (v: string) => void;
}) {
  const t = useT();
  const name = `c${useId()}`;
  return (
    <fieldset
      class={['field', 'choice-group', error ? 'field-invalid' : ''].filter(Boolean).join(' ')}
      aria-describedby={error ? `${name}-error` : undefined}
    >
      <legend>
        {field.label}
        {field.required && <span class="required"> ({t('operator.run.required')})</span>}
      </legend>
      <div class="choices">
        {options.map((option) => (
          <label
            key={option.value}
            class={['choice', value === option.value ? 'choice-selected' : ''].filter(Boolean).join(' ')}
            data-value={option.value}
          >
            <input type="radio" name={name} value={option.value} checked={value === option.value} onChange={() => onValue(option.value)} />
            <span>{option.label}</span>
          </label>
        ))}
      </div>
      {error && (
        <p class="error" id={`${name}-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}

/**
 * A CALCULATED field: read-only, its value computed live from what is typed
 * (the server computes the same when the step is recorded, and its stored
 * value is shown once it has one), with unit, what it is computed from (by
 * the fields' labels, not the formula) and limits like a NUMBER; a value
 * outside them is flagged in words, and one that cannot be computed says why.
 */
export function CalculatedField({
  field,
  computed,
  stored,
  inputs,
}: {
  field: FieldDef;
  computed: Calculated | undefined;
  /** what it is computed from, by label (rules/local.ts calculationInputs): the operator never sees the formula */
  inputs: readonly string[];
  stored?: { value: unknown; outOfLimits: boolean; error?: string | null };
}) {
  const { t, format } = useI18n();
  const id = `calc${useId()}`;
  const range = rangeText(format, field);
  // the server's value once recorded and nothing typed since changes it; else what the device computes now
  const live = computed && 'value' in computed && computed.value !== null ? computed : null;
  const error = computed && 'error' in computed ? computed.error : !live && stored?.error ? stored.error : null;
  const value = live ? live.value : typeof stored?.value === 'number' ? stored.value : null;
  const out = live ? live.outOfLimits : (stored?.outOfLimits ?? false);
  return (
    <div class={['field', 'calculated-field', out ? 'field-out-of-limits' : ''].filter(Boolean).join(' ')} data-key={field.key}>
      <p class="field-label" id={`${id}-label`}>
        {field.label} <span class="badge badge-neutral">{t('rules.calculated.badge')}</span>
      </p>
      <output class="calculated-value" aria-labelledby={`${id}-label`} aria-describedby={`${id}-hint`} aria-live="polite">
        {value !== null
          ? format.quantity(value, field.unit)
          : error
            ? t('rules.calculated.error', { error })
            : t('rules.calculated.pending')}
      </output>
      <p class="hint" id={`${id}-hint`}>
        {[inputs.length > 0 && t('rules.calculated.inputs', { inputs: inputs.join(', ') }), range && t('operator.run.limits', { range })]
          .filter(Boolean)
          .join(' · ')}
      </p>
      <p class="limits-status" role="status">
        {out ? t('rules.calculated.outOfLimits', { range }) : ''}
      </p>
    </div>
  );
}

/** One field of a step, with instant feedback: limits as you type, required values, photos from the camera. */
export function StepField({
  field,
  value,
  error,
  onValue,
}: {
  field: FieldDef;
  value: DraftValue;
  error?: string | null;
  onValue: (v: DraftValue) => void;
}) {
  const { t, format } = useI18n();
  const range = rangeText(format, field);
  switch (field.type) {
    case 'NUMBER':
    case 'SENSOR':
      return (
        <NumberField
          label={field.label}
          value={value as string}
          onValue={onValue}
          unit={field.unit ?? undefined}
          min={field.min}
          max={field.max}
          required={field.required}
          hint={
            [range && t('operator.run.limits', { range }), field.type === 'SENSOR' ? t('operator.run.sensorHint') : '']
              .filter(Boolean)
              .join(' ') || undefined
          }
          outOfLimitsText={t('operator.run.outOfLimits', { range })}
          error={error}
        />
      );
    case 'TEXT':
      return (
        <TextField
          label={field.label}
          value={value as string}
          onValue={onValue}
          multiline
          rows={3}
          required={field.required}
          error={error}
        />
      );
    case 'PASS_FAIL':
      return (
        <ChoiceGroup
          field={field}
          value={value as string}
          error={error}
          onValue={onValue}
          options={[
            { value: 'PASS', label: t('operator.run.pass') },
            { value: 'FAIL', label: t('operator.run.fail') },
          ]}
        />
      );
    case 'CHOICE':
      return (
        <ChoiceGroup
          field={field}
          value={value as string}
          error={error}
          onValue={onValue}
          options={(field.options ?? []).map((o, i) => ({ value: o, label: field.optionLabels?.[i] ?? o }))}
        />
      );
    case 'PHOTO': {
      const photos = value as DraftPhoto[];
      return (
        <div class={['field', 'photo-field', error ? 'field-invalid' : ''].filter(Boolean).join(' ')} role="group" aria-label={field.label}>
          <p class="field-label">
            {field.label}
            {field.required && <span class="required"> ({t('operator.run.required')})</span>}
          </p>
          <PhotoList photos={photos} label={field.label} onRemove={(i) => onValue(photos.filter((_, j) => j !== i))} />
          <PhotoInput
            label={photos.length ? t('operator.run.addPhoto') : t('operator.run.takePhoto')}
            onPhoto={(blob) => onValue([...photos, blob])}
          />
          {error && <p class="error">{error}</p>}
        </div>
      );
    }
    case 'CALCULATED':
      return null; // the run page shows it (CalculatedField): it needs the other fields' values
    case 'SIGNATURE':
      return (
        <div class="field">
          <p class="field-label">{field.label}</p>
          <Notice>{t('operator.run.signatureUnsupported')}</Notice>
        </div>
      );
  }
}
