// The execution rules (docs/execution-rules.md) as the device evaluates them
// while the operator works, online or not: the server's own pure modules
// (src/domain/conditions.ts, applicability.ts, expressions.ts), so a step
// applies on the tablet exactly when it will on the server. The server's
// answer (Job.steps, the values it computed) wins whenever the device has it
// and nothing newer is queued.
import { applicability as domainApplicability, type Applicability } from '../../domain/applicability';
import type { Condition, RecordView } from '../../domain/conditions';
import { evaluateExpression, ExpressionError, parseExpression, referencesOf, resolveReference } from '../../domain/expressions';

export type { Applicability };

/** What the rules read of a field, a step, a document (the job's version or the author's draft). */
export interface RuleField {
  key: string;
  label: string;
  type: string;
  unit: string | null;
  min: number | null;
  max: number | null;
  expression?: string | null;
}
export interface RuleStep {
  stepId: string;
  title: string;
  when?: unknown;
  fields: readonly RuleField[];
}
export interface RuleSection {
  title: string;
  when?: unknown;
  steps: readonly RuleStep[];
}
export interface RuleDocument {
  sections: readonly RuleSection[];
}

/** A record as conditions read it: status and values (with outOfLimits). */
export type RecordsByStep = ReadonlyMap<string, RecordView>;

/** Whether each step applies given the records, in reading order (the server's applicability, run here). */
export function applicabilityOf(doc: RuleDocument, records: RecordsByStep): Applicability[] {
  return domainApplicability(
    {
      sections: doc.sections.map((section) => ({
        title: section.title,
        when: (section.when ?? null) as Condition | null,
        steps: section.steps.map((step) => ({ id: step.stepId, when: (step.when ?? null) as Condition | null })),
      })),
    },
    records,
  );
}

const outside = (field: Pick<RuleField, 'min' | 'max'>, value: number) =>
  (field.min != null && value < field.min) || (field.max != null && value > field.max);

/** A CALCULATED field's value as the server would compute it: a number, nothing yet (an input empty), or why not. */
export type Calculated = { value: number; outOfLimits: boolean } | { value: null } | { error: string };

/**
 * The step's CALCULATED values from what is entered on it now (`own`: key →
 * value, numbers as numbers) and the earlier steps' records (`earlier`), in
 * field order, as src/domain/recording.ts withCalculated does on the server.
 */
export function calculate(
  doc: RuleDocument,
  step: RuleStep,
  own: ReadonlyMap<string, unknown>,
  earlier: (stepId: string, key: string) => unknown,
): Map<string, Calculated> {
  const ids = new Set(doc.sections.flatMap((s) => s.steps.map((st) => st.stepId)));
  const values = new Map(own);
  const out = new Map<string, Calculated>();
  for (const field of step.fields) {
    if (field.type !== 'CALCULATED' || !field.expression) continue;
    let computed: Calculated;
    try {
      const result = evaluateExpression(parseExpression(field.expression), (name) => {
        const ref = resolveReference(name, step.stepId, (id) => id !== step.stepId && ids.has(id));
        return ref.stepId === step.stepId ? values.get(ref.key) : earlier(ref.stepId, ref.key);
      });
      computed =
        'error' in result
          ? result
          : result.value === null
            ? { value: null }
            : { value: result.value, outOfLimits: outside(field, result.value) };
    } catch (error) {
      // a formula the server accepted always parses; one that does not is shown as not computed, never thrown at the operator
      computed = { error: error instanceof ExpressionError ? error.message : String(error) };
    }
    out.set(field.key, computed);
    if ('value' in computed && computed.value !== null) values.set(field.key, computed.value);
  }
  return out;
}

/**
 * What a CALCULATED field is computed from, by the labels the operator sees
 * ("Inlet pressure", "Outlet pressure (Pressure test)" for an earlier step's
 * field), read from its formula with the server's own parser — never the
 * formula source, which names keys and step ids the operator never sees. A
 * formula that does not parse names nothing.
 */
export function calculationInputs(doc: RuleDocument, step: RuleStep, field: Pick<RuleField, 'expression'>): string[] {
  if (!field.expression) return [];
  const steps = new Map(doc.sections.flatMap((s) => s.steps.map((st) => [st.stepId, st] as const)));
  let names: string[];
  try {
    names = referencesOf(parseExpression(field.expression));
  } catch {
    return [];
  }
  const labels = names.map((name) => {
    const ref = resolveReference(name, step.stepId, (id) => id !== step.stepId && steps.has(id));
    const owner = steps.get(ref.stepId);
    const label = owner?.fields.find((f) => f.key === ref.key)?.label || ref.key;
    return ref.stepId === step.stepId || !owner ? label : `${label} (${owner.title})`;
  });
  return [...new Set(labels)];
}
