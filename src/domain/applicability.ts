// Which steps of a job apply now: the document's conditions
// (conditions.ts) evaluated over the job's records, in reading order. Apart
// from conditions.ts because it reads the whole document (content.ts), which
// itself checks conditions when a draft is saved.
import { evaluateCondition, type Condition, type RecordView } from './conditions';

/**
 * What applicability reads of a document (content.ts's Content is one): kept
 * structural so the record bundle verifier (domain/record-verify.ts, also run in
 * the browser) shares this module without content.ts's Node imports.
 */
export interface ConditionalDocument {
  sections: readonly { title: string; when?: Condition | null; steps: readonly { id: string; when?: Condition | null }[] }[];
}

export interface Applicability {
  stepId: string;
  applies: boolean;
  /** why not, for people: null when it applies */
  reason: string | null;
}

/**
 * Whether each step of the document applies given the job's records, in
 * reading order. The record of a step that does not apply is left out of what
 * later conditions see: a branch not taken cannot steer the ones after it.
 */
export function applicability(content: ConditionalDocument, records: ReadonlyMap<string, RecordView>): Applicability[] {
  const seen = new Map<string, RecordView>();
  const out: Applicability[] = [];
  for (const section of content.sections) {
    const sectionApplies = section.when == null || evaluateCondition(section.when, seen);
    for (const step of section.steps) {
      const stepApplies = sectionApplies && (step.when == null || evaluateCondition(step.when, seen));
      const reason = !sectionApplies
        ? `the condition of section "${section.title}" is not met`
        : !stepApplies
          ? "the step's condition is not met"
          : null;
      out.push({ stepId: step.id, applies: stepApplies, reason });
      const record = records.get(step.id);
      if (stepApplies && record) seen.set(step.id, record);
    }
  }
  return out;
}
