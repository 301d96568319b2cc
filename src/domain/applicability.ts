// Which steps of a job apply now (issue 32): the document's conditions
// (conditions.ts) evaluated over the job's records, in reading order. Apart
// from conditions.ts because it reads the whole document (content.ts), which
// itself checks conditions when a draft is saved.
import type { Content } from './content';
import { evaluateCondition, type RecordView } from './conditions';

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
export function applicability(content: Content, records: ReadonlyMap<string, RecordView>): Applicability[] {
  const seen = new Map<string, RecordView>();
  const out: Applicability[] = [];
  for (const section of content.sections) {
    const sectionApplies = section.when == null || evaluateCondition(section.when, seen);
    for (const step of section.steps) {
      const stepApplies = sectionApplies && (step.when == null || evaluateCondition(step.when, seen));
      const reason = !sectionApplies ? `the condition of section "${section.title}" is not met` : !stepApplies ? 'the step\'s condition is not met' : null;
      out.push({ stepId: step.id, applies: stepApplies, reason });
      const record = records.get(step.id);
      if (stepApplies && record) seen.set(step.id, record);
    }
  }
  return out;
}
