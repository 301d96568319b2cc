import { canonicalJson } from '#lib/canonical-json';
import { stepsOf, type Content, type Step } from './content';
import type { SkillRequirement } from './qualifications';

/**
 * The semantic diff between two content documents, by stable step id:
 * - added: steps only in `to`; removed: steps only in `from`;
 * - moved: steps in both whose section changed, or whose order relative to
 *   the other shared steps changed (the fewest steps that explain the new
 *   order: those outside a longest increasing subsequence, so swapping two
 *   neighbours moves one step, and inserting or removing steps moves none);
 * - changed: steps in both whose content differs, naming what: `title`,
 *   `body`, `media`, `model`, `section`, `when`, `section.when`, `signoff`, `allowNotApplicable`,
 *   `fields.<key>` for each field (and `fields.<key>.expression` when a formula changed)
 *   added, removed or changed.
 * Lists follow the reading order of `to` (removed: of `from`).
 */
export interface StepRef {
  id: string;
  title: string;
}

export interface ContentDiff {
  added: StepRef[];
  removed: StepRef[];
  moved: StepRef[];
  changed: (StepRef & { changedFields: string[] })[];
  /** present only when the version's required skills changed (docs/qualifications.md): both lists */
  qualifications?: { from: SkillRequirement[]; to: SkillRequirement[] };
}

export function diffContents(from: Content, to: Content): ContentDiff {
  const before = stepsOf(from);
  const after = stepsOf(to);
  const beforeById = new Map(before.map((entry) => [entry.step.id, entry]));
  const afterIds = new Set(after.map((entry) => entry.step.id));
  const ref = (step: Step): StepRef => ({ id: step.id, title: step.title });

  const shared = after.filter((entry) => beforeById.has(entry.step.id));
  // positions in `from` of the shared steps, in `to` order: the ones off the LIS moved
  const inOrder = longestIncreasingSubsequence(shared.map((entry) => beforeById.get(entry.step.id)!.index));
  const moved: StepRef[] = [];
  const changed: ContentDiff['changed'] = [];
  shared.forEach((entry, i) => {
    const old = beforeById.get(entry.step.id)!;
    const sectionChanged = old.section.id !== entry.section.id;
    if (sectionChanged || !inOrder.has(i)) moved.push(ref(entry.step));
    const fields = changedFields(old.step, entry.step);
    if (sectionChanged) fields.push('section');
    // the section's condition decides whether the step applies: a change there changes the step's rules
    else if (!same(old.section.when ?? null, entry.section.when ?? null)) fields.push('section.when');
    if (fields.length > 0) changed.push({ ...ref(entry.step), changedFields: fields });
  });

  return {
    added: after.filter((entry) => !beforeById.has(entry.step.id)).map((entry) => ref(entry.step)),
    removed: before.filter((entry) => !afterIds.has(entry.step.id)).map((entry) => ref(entry.step)),
    moved,
    changed,
    ...(!same(from.qualifications ?? [], to.qualifications ?? []) && {
      qualifications: { from: from.qualifications ?? [], to: to.qualifications ?? [] },
    }),
  };
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

function changedFields(a: Step, b: Step): string[] {
  const names: string[] = [];
  for (const key of ['title', 'body', 'media', 'model'] as const) if (!same(a[key], b[key])) names.push(key);
  // execution rules (absent from older documents: absent and null are the same)
  for (const key of ['when', 'signoff'] as const) if (!same(a[key] ?? null, b[key] ?? null)) names.push(key);
  if ((a.allowNotApplicable ?? false) !== (b.allowNotApplicable ?? false)) names.push('allowNotApplicable');
  const aFields = new Map(a.fields.map((f) => [f.key, f]));
  const bFields = new Map(b.fields.map((f) => [f.key, f]));
  for (const key of new Set([...aFields.keys(), ...bFields.keys()])) {
    if (!same(aFields.get(key) ?? null, bFields.get(key) ?? null)) names.push(`fields.${key}`);
    const [was, is] = [aFields.get(key), bFields.get(key)];
    if (was && is && (was.expression ?? null) !== (is.expression ?? null)) names.push(`fields.${key}.expression`);
  }
  return names;
}

/** Indexes (into `values`) of one longest strictly increasing subsequence, O(n log n). */
function longestIncreasingSubsequence(values: number[]): Set<number> {
  const tails: number[] = []; // tails[k]: index of the smallest tail of an increasing run of length k + 1
  const previous: number[] = new Array(values.length).fill(-1);
  values.forEach((value, i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[tails[mid]] < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1]!;
    tails[lo] = i;
  });
  const result = new Set<number>();
  for (let i = tails.length > 0 ? tails[tails.length - 1] : -1; i >= 0; i = previous[i]!) result.add(i);
  return result;
}
