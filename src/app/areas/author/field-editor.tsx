import type { VNode } from 'preact';
import { FIELD_TYPES, FIELD_TYPE_USES, inputId, LIMITS, pathOf, withType, type EditorField, type FieldType, type StepAt } from './model';
import { ErrorText, type Problems } from './problems';
import { useT } from '../../i18n';
import { NumberInput } from '../../ui';
import { ExpressionError, parseExpression, referencesOf } from '../../../domain/expressions';

/**
 * One field of a step: its label and key, type, whether it is required, and
 * what its type uses — unit and limits (NUMBER, SENSOR), options (CHOICE),
 * the sensor (SENSOR). Each input carries the document path the server names
 * in a VALIDATION_ERROR, so a problem shows at its input.
 */
export interface FieldEditorProps {
  field: EditorField;
  at: StepAt;
  index: number;
  problems: Problems;
  sensors: { databaseId: number; name: string; unit: string }[];
  onChange: (field: EditorField) => void;
  /** a new label (the key may follow it: model.ts relabelled) */
  onLabel: (label: string) => void;
  onRemove: () => void;
  handle: VNode;
  /** what a formula of this field may read (earlier numeric fields), as the editor names them */
  formulaFields: FormulaField[];
}

/** A field a formula may read: its reference as the formula writes it, and how the editor shows it. */
export interface FormulaField {
  ref: string;
  label: string;
  /** "this step" or "Step 2: Read the pressure" */
  where: string;
}

/** Text of a number input → the field's number (empty or not a number: none). */

export function FieldEditor({ field, at, index, problems, sensors, onChange, onLabel, onRemove, handle, formulaFields }: FieldEditorProps) {
  const t = useT();
  const uses = FIELD_TYPE_USES[field.type];
  const path = (prop: string) => pathOf.field(at, index, prop);
  const name = field.label || field.key;
  const input = (prop: string) => {
    const p = path(prop);
    const error = problems.get(p);
    return { id: inputId(p), 'aria-invalid': error ? true : undefined, 'aria-describedby': error ? `${inputId(p)}-error` : undefined };
  };
  const set = (change: Partial<EditorField>) => onChange({ ...field, ...change });
  return (
    <div class="field-editor" role="group" aria-label={t('author.field.group', { name })}>
      <div class="field-editor-head">
        {handle}
        <span class="field-editor-type badge">{t(`author.fieldType.${field.type}`)}</span>
        <button type="button" class="btn btn-danger" onClick={onRemove} aria-label={t('author.field.remove', { name })}>
          {t('author.remove')}
        </button>
      </div>
      <div class="field-grid">
        <div class="form-row">
          <label for={inputId(path('label'))}>{t('author.field.label')}</label>
          <input {...input('label')} type="text" maxLength={500} value={field.label} onInput={(e) => onLabel(e.currentTarget.value)} />
          <ErrorText problems={problems} path={path('label')} />
        </div>
        <div class="form-row">
          <label for={inputId(path('key'))}>{t('author.field.key')}</label>
          <input
            {...input('key')}
            type="text"
            maxLength={LIMITS.key}
            value={field.key}
            spellcheck={false}
            autocapitalize="off"
            aria-describedby={[`${inputId(path('key'))}-hint`, problems.has(path('key')) ? `${inputId(path('key'))}-error` : '']
              .filter(Boolean)
              .join(' ')}
            onInput={(e) => set({ key: e.currentTarget.value, keyFollowsLabel: false })}
          />
          <p class="hint" id={`${inputId(path('key'))}-hint`}>
            {field.keyFollowsLabel ? t('author.field.keyFollows') : t('author.field.keyStable')}
          </p>
          <ErrorText problems={problems} path={path('key')} />
        </div>
        <div class="form-row">
          <label for={inputId(path('type'))}>{t('author.field.type')}</label>
          <select {...input('type')} value={field.type} onChange={(e) => onChange(withType(field, e.currentTarget.value as FieldType))}>
            {FIELD_TYPES.map((type) => (
              <option value={type} key={type}>
                {t(`author.fieldType.${type}`)}
              </option>
            ))}
          </select>
          <ErrorText problems={problems} path={path('type')} />
        </div>
        {field.type !== 'CALCULATED' && (
          <div class="form-row checkbox-row">
            <input
              {...input('required')}
              type="checkbox"
              checked={field.required}
              onChange={(e) => set({ required: e.currentTarget.checked })}
            />
            <label for={inputId(path('required'))}>{t('author.field.required')}</label>
          </div>
        )}
        {uses.unit && (
          <div class="form-row">
            <label for={inputId(path('unit'))}>{t('author.field.unit')}</label>
            <input
              {...input('unit')}
              type="text"
              maxLength={LIMITS.unit}
              value={field.unit ?? ''}
              onInput={(e) => set({ unit: e.currentTarget.value || null })}
            />
            <ErrorText problems={problems} path={path('unit')} />
          </div>
        )}
        {uses.limits && (
          <div class="form-row">
            <label for={inputId(path('min'))}>{t('author.field.min')}</label>
            <NumberInput {...input('min')} value={field.min} onNumber={(min) => set({ min })} />
            <ErrorText problems={problems} path={path('min')} />
          </div>
        )}
        {uses.limits && (
          <div class="form-row">
            <label for={inputId(path('max'))}>{t('author.field.max')}</label>
            <NumberInput {...input('max')} value={field.max} onNumber={(max) => set({ max })} />
            <ErrorText problems={problems} path={path('max')} />
          </div>
        )}
        {uses.options && (
          <div class="form-row wide">
            <label for={inputId(path('options'))}>{t('author.field.options')}</label>
            <textarea
              {...input('options')}
              rows={3}
              value={(field.options ?? []).join('\n')}
              onInput={(e) =>
                set({
                  options: e.currentTarget.value
                    .split('\n')
                    .map((o) => o.trim())
                    .filter(Boolean)
                    .slice(0, LIMITS.options),
                })
              }
            />
            <p class="hint">{t('author.field.optionsHint')}</p>
            <ErrorText problems={problems} path={path('options')} />
          </div>
        )}
        {uses.sensor && (
          <div class="form-row">
            <label for={inputId(path('sensorId'))}>{t('author.field.sensor')}</label>
            <select
              {...input('sensorId')}
              value={field.sensorId == null ? '' : String(field.sensorId)}
              onChange={(e) => set({ sensorId: e.currentTarget.value ? Number(e.currentTarget.value) : null })}
            >
              <option value="">{t('author.field.noSensor')}</option>
              {sensors.map((s) => (
                <option value={String(s.databaseId)} key={s.databaseId}>
                  {s.unit ? `${s.name} (${s.unit})` : s.name}
                </option>
              ))}
            </select>
            <ErrorText problems={problems} path={path('sensorId')} />
          </div>
        )}
        {uses.expression && (
          <ExpressionInput
            field={field}
            path={path('expression')}
            problems={problems}
            fields={formulaFields}
            onValue={(expression) => set({ expression })}
          />
        )}
      </div>
      <ErrorText problems={problems} path={pathOf.field(at, index, '').slice(0, -1)} />
    </div>
  );
}

/**
 * A CALCULATED field's formula. Its syntax is checked as it is typed (the
 * server's own parser, src/domain/expressions.ts); what only the whole
 * document can tell — a reference to a later step, a missing or non-numeric
 * field — comes back from the autosave's VALIDATION_ERROR at this path.
 */
function ExpressionInput({
  field,
  path,
  problems,
  fields,
  onValue,
}: {
  field: EditorField;
  path: string;
  problems: Problems;
  fields: FormulaField[];
  onValue: (expression: string) => void;
}) {
  const t = useT();
  const id = inputId(path);
  const text = field.expression ?? '';
  let syntax: string | null = null;
  if (text.trim()) {
    try {
      parseExpression(text);
    } catch (error) {
      if (error instanceof ExpressionError) syntax = error.message;
    }
  }
  const serverError = problems.get(path);
  // the formula's references as the editor names them: what it reads, in words
  let reads: FormulaField[] = [];
  if (text.trim() && !syntax) {
    try {
      const names = new Set(referencesOf(parseExpression(text)));
      reads = fields.filter((f) => names.has(f.ref));
    } catch {
      reads = [];
    }
  }
  return (
    <div class="form-row wide">
      <label for={id}>{t('author.field.expression')}</label>
      <input
        id={id}
        type="text"
        class="code"
        maxLength={500}
        spellcheck={false}
        autocapitalize="off"
        value={text}
        aria-invalid={serverError || syntax ? true : undefined}
        aria-describedby={[`${id}-hint`, serverError ? `${id}-error` : '', syntax ? `${id}-syntax` : ''].filter(Boolean).join(' ')}
        onInput={(e) => onValue(e.currentTarget.value)}
      />
      <p class="hint" id={`${id}-hint`}>
        {t('author.field.expressionHint')}
      </p>
      {reads.length > 0 && (
        <p class="hint">{t('author.field.expressionReads', { fields: reads.map((f) => `${f.label} (${f.where})`).join(', ') })}</p>
      )}
      {fields.length === 0 ? (
        <p class="hint">{t('author.field.expressionNoFields')}</p>
      ) : (
        <div class="formula-fields" role="group" aria-label={t('author.field.expressionFields')}>
          <p class="hint">{t('author.field.expressionFields')}</p>
          <ul>
            {fields.map((f) => (
              <li key={f.ref}>
                <button
                  type="button"
                  class="btn btn-secondary"
                  aria-label={t('author.field.expressionInsert', { label: f.label, where: f.where })}
                  onClick={() => onValue(text.trim() ? `${text.trimEnd()} ${f.ref}` : f.ref)}
                >
                  {f.label}
                </button>{' '}
                <span class="muted">{f.where}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {syntax && (
        <p class="field-error" id={`${id}-syntax`}>
          {t('author.field.expressionSyntax', { message: syntax })}
        </p>
      )}
      <ErrorText problems={problems} path={path} />
    </div>
  );
}
