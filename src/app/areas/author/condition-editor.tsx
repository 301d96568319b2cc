import { useEffect, useId, useState } from 'preact/hooks';
import { useI18n, useT } from '../../i18n';
import { parseNumber } from '../../format';
import { describeCondition } from '../../rules/describe';
import type { EditorContent, EditorField, EditorStep, FieldType } from './model';
import { inputId, NUMERIC_FIELD_TYPES } from './model';
import type { Problems } from './problems';

/**
 * A condition (`when`, src/domain/conditions.ts) in the editor: "always", a
 * readable builder for the common forms — one or more rules (a step's field
 * compared with a value, or a step's status) joined by "all" or "any" — or the
 * raw JSON for the rest (`not`, nesting). The sentence under it says what the
 * condition means as the operator will read it. The server checks it at every
 * autosave (backwards only, known steps and fields); its problems show here.
 */

type Leaf = { step: string; field: string; op: string; value?: unknown } | { step: string; status: string };
type Mode = 'always' | 'builder' | 'json';

const OPS = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'in', 'outOfLimits', 'recorded'] as const;
const STATUSES = ['DONE', 'FAILED', 'SKIPPED'] as const;

/**
 * The comparisons that mean something for a field's type: order only for
 * numbers, "one of" for what has a set of values, "recorded" for everything
 * (a photo, a signature: only whether there is one).
 */
export function opsFor(type: FieldType | undefined): readonly Op[] {
  if (!type || NUMERIC_FIELD_TYPES.has(type)) return OPS;
  if (type === 'PASS_FAIL') return ['eq', 'ne', 'recorded'];
  if (type === 'CHOICE' || type === 'TEXT') return ['eq', 'ne', 'in', 'recorded'];
  return ['recorded'];
}
type Op = (typeof OPS)[number];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isLeaf = (c: unknown): c is Leaf => isObject(c) && typeof c.step === 'string' && !('all' in c) && !('any' in c) && !('not' in c);

/** The builder's form of a condition — a join and its rules — or null when only JSON can say it. */
function builderForm(c: unknown): { join: 'all' | 'any'; rules: Leaf[] } | null {
  if (isLeaf(c)) return { join: 'all', rules: [c] };
  if (isObject(c) && Object.keys(c).length === 1) {
    const join = Array.isArray(c.all) ? 'all' : Array.isArray(c.any) ? 'any' : null;
    const list = join ? (c[join] as unknown[]) : null;
    if (join && list && list.length > 0 && list.every(isLeaf)) return { join, rules: list };
  }
  return null;
}

const fromForm = (join: 'all' | 'any', rules: Leaf[]): unknown => (rules.length === 1 ? rules[0] : { [join]: rules });

/**
 * A value typed for a field, in the document's form: numbers for numeric fields (once whole; in the author's
 * language when `language` is given: "2,5" in German — not in a list, where the comma separates), PASS/FAIL as such.
 */
function typedValue(field: EditorField | undefined, text: string, language?: string): unknown {
  const trimmed = text.trim();
  if (!field || !NUMERIC_FIELD_TYPES.has(field.type) || trimmed === '') return text;
  if (language) {
    const read = parseNumber(trimmed, language);
    // "2," is half-typed: it stays text until whole
    return 'value' in read && !/[.,]$/.test(trimmed) ? read.value : text;
  }
  return String(Number(trimmed)) === trimmed ? Number(trimmed) : text;
}
const valueText = (value: unknown): string =>
  Array.isArray(value)
    ? value.map(valueText).join(', ')
    : typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : '';

export interface ConditionEditorProps {
  /** the document path of the condition (`sections.0.steps.1.when`): its problems are those under it */
  path: string;
  value: unknown;
  /** the steps the condition may name: those before it, in reading order, with their numbers */
  earlier: { step: EditorStep; number: number }[];
  content: EditorContent;
  problems: Problems;
  /** what the condition guards, for the labels: "Step 3" or "Section 2" */
  owner: string;
  onChange: (value: unknown) => void;
}

export function ConditionEditor({ path, value, earlier, content, problems, owner, onChange }: ConditionEditorProps) {
  const t = useT();
  const uid = useId();
  const form = builderForm(value);
  const [mode, setMode] = useState<Mode>(value == null ? 'always' : form ? 'builder' : 'json');
  const [json, setJson] = useState(() => (value == null ? '' : JSON.stringify(value, null, 2)));
  const [jsonError, setJsonError] = useState<string | null>(null);
  // another change of the value (a reorder, the other author's version taken) shows in the JSON too
  useEffect(() => {
    if (mode !== 'json') setJson(value == null ? '' : JSON.stringify(value, null, 2));
  }, [value, mode]);
  const doc = {
    sections: content.sections.map((s) => ({ title: s.title, when: s.when, steps: s.steps.map((st) => ({ ...st, fields: st.fields })) })),
  };
  const mine = [...problems].filter(([p]) => p === path || p.startsWith(`${path}.`));
  const errorId = `${inputId(path)}-error`;
  const stepOf = (id: string) => earlier.find((e) => e.step.stepId === id)?.step;

  const switchTo = (next: Mode) => {
    setJsonError(null);
    if (next === 'always') onChange(null);
    if (next === 'builder' && !form) {
      const first = earlier[earlier.length - 1]?.step;
      onChange(first ? { step: first.stepId, status: 'DONE' } : null);
    }
    if (next === 'json') setJson(value == null ? '{\n  "all": []\n}' : JSON.stringify(value, null, 2));
    setMode(next);
  };

  const setRule = (index: number, rule: Leaf) =>
    form &&
    onChange(
      fromForm(
        form.join,
        form.rules.map((r, i) => (i === index ? rule : r)),
      ),
    );
  const removeRule = (index: number) => {
    if (!form) return;
    const rules = form.rules.filter((_, i) => i !== index);
    if (rules.length === 0) switchTo('always');
    else onChange(fromForm(form.join, rules));
  };

  return (
    <fieldset class="condition-editor" id={inputId(path)} aria-describedby={mine.length ? errorId : undefined}>
      <legend>{t('author.rules.condition', { owner })}</legend>
      <div role="group" class="segmented" aria-label={t('author.rules.conditionMode')}>
        {(['always', 'builder', 'json'] as const).map((m) => (
          <button
            key={m}
            type="button"
            aria-pressed={mode === m}
            disabled={m === 'builder' && earlier.length === 0}
            onClick={() => switchTo(m)}
          >
            {t(`author.rules.mode.${m}`)}
          </button>
        ))}
      </div>
      {mode === 'builder' && earlier.length === 0 && <p class="hint">{t('author.rules.noEarlier')}</p>}
      {mode === 'builder' && form && (
        <>
          {form.rules.length > 1 && (
            <div class="form-row">
              <label for={`join${uid}`}>{t('author.rules.join')}</label>
              <select
                id={`join${uid}`}
                value={form.join}
                onChange={(e) => onChange(fromForm(e.currentTarget.value as 'all' | 'any', form.rules))}
              >
                <option value="all">{t('author.rules.join.all')}</option>
                <option value="any">{t('author.rules.join.any')}</option>
              </select>
            </div>
          )}
          <ol class="condition-rules">
            {form.rules.map((rule, index) => (
              <li key={index} class="condition-rule">
                <RuleRow
                  rule={rule}
                  index={index}
                  earlier={earlier}
                  stepOf={stepOf}
                  uid={`${uid}-${index}`}
                  onChange={(r) => setRule(index, r)}
                  onRemove={() => removeRule(index)}
                />
              </li>
            ))}
          </ol>
          <button
            type="button"
            class="btn btn-secondary"
            onClick={() => {
              const last = earlier[earlier.length - 1].step;
              onChange(fromForm(form.join, [...form.rules, { step: last.stepId, status: 'DONE' }]));
            }}
          >
            {t('author.rules.addRule')}
          </button>
        </>
      )}
      {mode === 'json' && (
        <div class="form-row">
          <label for={`json${uid}`}>{t('author.rules.json')}</label>
          <textarea
            id={`json${uid}`}
            rows={6}
            spellcheck={false}
            class="code"
            value={json}
            aria-invalid={jsonError ? true : undefined}
            aria-describedby={`json${uid}-hint`}
            onInput={(e) => {
              const text = e.currentTarget.value;
              setJson(text);
              if (text.trim() === '') {
                setJsonError(null);
                return onChange(null);
              }
              try {
                onChange(JSON.parse(text));
                setJsonError(null);
              } catch {
                setJsonError(t('author.rules.jsonInvalid'));
              }
            }}
          />
          <p class="hint" id={`json${uid}-hint`}>
            {jsonError ?? t('author.rules.jsonHint')}
          </p>
        </div>
      )}
      {value != null && (
        <p class="condition-summary">
          <strong>{t('author.rules.appliesWhen')}</strong> {describeCondition(t, doc, value)}
        </p>
      )}
      {mine.length > 0 && (
        <ul class="field-error" id={errorId}>
          {mine.map(([p, message]) => (
            <li key={p}>
              {p.slice(path.length + 1) || t('author.rules.condition', { owner })}: {message}
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}

function RuleRow({
  rule,
  index,
  earlier,
  stepOf,
  uid,
  onChange,
  onRemove,
}: {
  rule: Leaf;
  index: number;
  earlier: { step: EditorStep; number: number }[];
  stepOf: (id: string) => EditorStep | undefined;
  uid: string;
  onChange: (rule: Leaf) => void;
  onRemove: () => void;
}) {
  const { t, language } = useI18n();
  const step = stepOf(rule.step);
  const kind = 'status' in rule ? 'status' : 'field';
  const field = 'field' in rule ? step?.fields.find((f) => f.key === rule.field) : undefined;
  const op = 'op' in rule ? rule.op : 'eq';
  const n = index + 1;
  return (
    <div class="rule-grid" role="group" aria-label={t('author.rules.rule', { n })}>
      <div class="form-row">
        <label for={`step${uid}`}>{t('author.rules.step')}</label>
        <select
          id={`step${uid}`}
          value={rule.step}
          onChange={(e) =>
            onChange(
              kind === 'status'
                ? { step: e.currentTarget.value, status: (rule as { status: string }).status }
                : { step: e.currentTarget.value, field: stepOf(e.currentTarget.value)?.fields[0]?.key ?? '', op: 'recorded' },
            )
          }
        >
          {!step && <option value={rule.step}>{rule.step}</option>}
          {earlier.map(({ step: s, number }) => (
            <option key={s.stepId} value={s.stepId}>
              {t('author.step.name', { number, title: s.title })}
            </option>
          ))}
        </select>
      </div>
      <div class="form-row">
        <label for={`kind${uid}`}>{t('author.rules.kind')}</label>
        <select
          id={`kind${uid}`}
          value={kind}
          onChange={(e) =>
            onChange(
              e.currentTarget.value === 'status'
                ? { step: rule.step, status: 'DONE' }
                : { step: rule.step, field: step?.fields[0]?.key ?? '', op: 'recorded' },
            )
          }
        >
          <option value="field">{t('author.rules.kind.field')}</option>
          <option value="status">{t('author.rules.kind.status')}</option>
        </select>
      </div>
      {kind === 'status' ? (
        <div class="form-row">
          <label for={`status${uid}`}>{t('author.rules.status')}</label>
          <select
            id={`status${uid}`}
            value={(rule as { status: string }).status}
            onChange={(e) => onChange({ step: rule.step, status: e.currentTarget.value })}
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`rules.status.${s}`)}
              </option>
            ))}
          </select>
        </div>
      ) : (
        <>
          <div class="form-row">
            <label for={`field${uid}`}>{t('author.rules.field')}</label>
            <select
              id={`field${uid}`}
              value={(rule as { field: string }).field}
              onChange={(e) => {
                const key = e.currentTarget.value;
                const next = step?.fields.find((f) => f.key === key);
                // a comparison the newly chosen field's type has no meaning for becomes "recorded"
                if (!opsFor(next?.type).includes(op as Op)) return onChange({ step: rule.step, field: key, op: 'recorded' });
                onChange({
                  step: rule.step,
                  field: key,
                  op,
                  ...(op !== 'recorded' && op !== 'outOfLimits' && { value: (rule as { value?: unknown }).value }),
                });
              }}
            >
              {!field && <option value={(rule as { field: string }).field}>{(rule as { field: string }).field || '—'}</option>}
              {(step?.fields ?? []).map((f) => (
                <option key={f.uid} value={f.key}>
                  {f.label || f.key}
                </option>
              ))}
            </select>
          </div>
          <div class="form-row">
            <label for={`op${uid}`}>{t('author.rules.op')}</label>
            <select
              id={`op${uid}`}
              value={op}
              onChange={(e) => {
                const next = e.currentTarget.value;
                const base = { step: rule.step, field: (rule as { field: string }).field, op: next };
                if (next === 'recorded' || next === 'outOfLimits') return onChange(base);
                const current = (rule as { value?: unknown }).value;
                onChange({
                  ...base,
                  value:
                    next === 'in'
                      ? Array.isArray(current)
                        ? current
                        : current === undefined
                          ? []
                          : [current]
                      : Array.isArray(current)
                        ? current[0]
                        : (current ?? (field?.type === 'PASS_FAIL' ? 'FAIL' : '')),
                });
              }}
            >
              {/* the rule's own operator stays listed even where its type has no use for it: the select shows what the document holds */}
              {[...opsFor(field?.type), ...(opsFor(field?.type).includes(op as Op) ? [] : [op])].map((o) => (
                <option key={o} value={o}>
                  {t(`author.rules.op.${o}`)}
                </option>
              ))}
            </select>
          </div>
          {op !== 'recorded' && op !== 'outOfLimits' && (
            <div class="form-row">
              <label for={`value${uid}`}>{op === 'in' ? t('author.rules.values') : t('author.rules.value')}</label>
              {field?.type === 'PASS_FAIL' && op !== 'in' ? (
                <select
                  id={`value${uid}`}
                  value={(rule as { value?: unknown }).value === true || (rule as { value?: unknown }).value === 'PASS' ? 'PASS' : 'FAIL'}
                  onChange={(e) => onChange({ ...(rule as object), value: e.currentTarget.value } as Leaf)}
                >
                  <option value="PASS">{t('rules.value.pass')}</option>
                  <option value="FAIL">{t('rules.value.fail')}</option>
                </select>
              ) : (
                <ValueInput
                  id={`value${uid}`}
                  numeric={!!field && NUMERIC_FIELD_TYPES.has(field.type) && op !== 'in'}
                  describedBy={op === 'in' ? `value${uid}-hint` : undefined}
                  value={(rule as { value?: unknown }).value}
                  parse={(text) =>
                    op === 'in'
                      ? text
                          .split(',')
                          .map((part) => typedValue(field, part.trim()))
                          .filter((v) => v !== '')
                      : typedValue(field, text, language)
                  }
                  onValue={(value) => onChange({ ...(rule as object), value } as Leaf)}
                />
              )}
              {op === 'in' && (
                <p class="hint" id={`value${uid}-hint`}>
                  {t('author.rules.valuesHint')}
                </p>
              )}
            </div>
          )}
        </>
      )}
      <button type="button" class="btn btn-ghost" onClick={onRemove} aria-label={t('author.rules.removeRule', { n })}>
        {t('author.remove')}
      </button>
    </div>
  );
}

/**
 * A rule's value as typed: the text is the author's (a half-typed "1." or "3, "
 * stays as typed), the document gets its parsed form; a change from elsewhere
 * (the JSON, the other author's version) replaces the text.
 */
function ValueInput({
  id,
  numeric,
  describedBy,
  value,
  parse,
  onValue,
}: {
  id: string;
  numeric: boolean;
  describedBy?: string;
  value: unknown;
  parse: (text: string) => unknown;
  onValue: (value: unknown) => void;
}) {
  const { format } = useI18n();
  // a single number as the author types it in their language ("2,5"); a list as the document holds it
  const shown = (v: unknown) => (numeric && typeof v === 'number' ? format.numberInput(v) : valueText(v));
  const [text, setText] = useState(() => shown(value));
  useEffect(() => {
    if (JSON.stringify(parse(text)) !== JSON.stringify(value ?? null)) setText(shown(value));
  }, [JSON.stringify(value ?? null)]);
  return (
    <input
      id={id}
      type="text"
      inputMode={numeric ? 'decimal' : undefined}
      value={text}
      aria-describedby={describedBy}
      onInput={(e) => {
        setText(e.currentTarget.value);
        onValue(parse(e.currentTarget.value));
      }}
    />
  );
}
