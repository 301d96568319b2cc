// Conditions in words, for everyone who reads them: the operator (why a step
// does not apply), the author (the builder's summary, the preview) and the
// reviewer (a changed condition in the version diff). Texts: config/i18n/app/rules.*.json.
import type { RuleDocument, RuleField, RuleStep } from './local';

/** i18n.ts's Translate, written out: this module stays free of the DOM (a unit test runs it in Node). */
type Translate = (key: string, values?: Record<string, string | number>) => string;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A condition value as written in the document, in words (PASS_FAIL's true/false/"PASS"/"FAIL" as Pass/Fail). */
function valueWords(t: Translate, field: RuleField | undefined, value: unknown): string {
  if (field?.type === 'PASS_FAIL' && (value === true || value === 'PASS')) return t('rules.value.pass');
  if (field?.type === 'PASS_FAIL' && (value === false || value === 'FAIL')) return t('rules.value.fail');
  if (typeof value === 'string') return `“${value}”`;
  if (typeof value === 'number' && field?.unit) return `${value} ${field.unit}`;
  return String(value);
}

/**
 * The condition as one sentence: "“Check the seal” · OK is Fail", "… and …",
 * "either … or …", "not (…)". Unknown steps and fields are named by their ids
 * (an author's draft may hold them until saved); a malformed part says so.
 */
export function describeCondition(t: Translate, doc: RuleDocument, condition: unknown): string {
  const steps = new Map<string, RuleStep>(doc.sections.flatMap((s) => s.steps.map((st) => [st.stepId, st] as const)));
  const walk = (c: unknown, nested: boolean): string => {
    if (!isObject(c)) return t('rules.describe.invalid');
    if (Array.isArray(c.all) || Array.isArray(c.any)) {
      const list = (Array.isArray(c.all) ? c.all : c.any) as unknown[];
      const words = list.map((child) => walk(child, true)).join(t(Array.isArray(c.all) ? 'rules.describe.and' : 'rules.describe.or'));
      const text = Array.isArray(c.all) ? words : t('rules.describe.either', { list: words });
      return nested && list.length > 1 ? `(${text})` : text;
    }
    if ('not' in c) return t('rules.describe.not', { condition: walk(c.not, true) });
    if (typeof c.step !== 'string') return t('rules.describe.invalid');
    const step = steps.get(c.step);
    const stepName = `“${step?.title || c.step}”`;
    if (typeof c.status === 'string') return t('rules.describe.status', { step: stepName, status: t(`rules.status.${c.status}`) });
    const field = step?.fields.find((f) => f.key === c.field);
    const subject = t('rules.describe.field', { step: stepName, field: field?.label || (typeof c.field === 'string' ? c.field : '?') });
    const op = String(c.op);
    if (op === 'recorded' || op === 'outOfLimits') return t(`rules.op.${op}`, { subject });
    const value =
      op === 'in' && Array.isArray(c.value) ? c.value.map((v) => valueWords(t, field, v)).join(', ') : valueWords(t, field, c.value);
    return t(`rules.op.${op}`, { subject, value });
  };
  return walk(condition, false);
}
