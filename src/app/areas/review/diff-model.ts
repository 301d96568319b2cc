/**
 * What the review page shows of a version's changes, step by step: the
 * server's semantic diff (versionDiff: which steps were added, removed, moved
 * or changed, and which of their parts changed) filled in with the before and
 * after of each changed part, read from the two versions' documents. The
 * server decides what changed; this only lines the two texts up for reading.
 * Pure data: no DOM, so the rules are easy to follow and to test.
 */

export interface FieldDoc {
  key: string;
  label: string;
  type: string;
  required: boolean;
  unit: string | null;
  min: number | null;
  max: number | null;
  options: string[] | null;
  sensorId: number | null;
  /** a CALCULATED field's formula */
  expression?: string | null;
}

export interface SkillDoc {
  skill: string;
  level: number;
}

export interface SignoffDoc {
  performer: boolean;
  verifier: { roles: string[] } | null;
  /** the skills whoever signs the step must hold */
  skills?: SkillDoc[];
}

/** A file a step shows (GraphQL File): its name, type and URL. */
export interface FileDoc {
  databaseId: number;
  name: string;
  contentType: string;
  url: string;
  size: number;
}

export interface StepDoc {
  stepId: string;
  title: string;
  body: string;
  media: number[];
  /** the files of `media`, as the server resolves them */
  mediaFiles: FileDoc[];
  model: { fileId: number; anchorPose: { position: number[]; rotation: number[] } | null; file: FileDoc | null } | null;
  fields: FieldDoc[];
  /** the step's condition (src/domain/conditions.ts); null: always */
  when?: unknown;
  signoff?: SignoffDoc | null;
}

export interface SectionDoc {
  sectionId: string;
  title: string;
  when?: unknown;
  steps: StepDoc[];
}

export interface ContentDoc {
  sections: SectionDoc[];
  /** the skills whoever works on a job of the version must hold */
  qualifications?: SkillDoc[];
}

/** The server's versionDiff (GraphQL VersionDiff without the jobs). */
export interface ServerDiff {
  added: { stepId: string }[];
  removed: { stepId: string }[];
  moved: { stepId: string }[];
  changed: { stepId: string; changedFields: string[] }[];
  qualificationsChanged?: boolean;
}

/** The properties of a field a reviewer reads, in the order they are shown. */
export const FIELD_PROPERTIES = ['label', 'type', 'required', 'unit', 'min', 'max', 'options', 'sensorId', 'expression'] as const;
export type FieldProperty = (typeof FIELD_PROPERTIES)[number];

export interface Change<T> {
  before: T;
  after: T;
}

export type FieldChange =
  | { kind: 'added'; field: FieldDoc }
  | { kind: 'removed'; field: FieldDoc }
  | { kind: 'changed'; field: FieldDoc; properties: (Change<FieldDoc[FieldProperty]> & { property: FieldProperty })[] };

export type StepKind = 'added' | 'removed' | 'changed' | 'moved';

export interface StepChange {
  stepId: string;
  kind: StepKind;
  /** the step as it is now (as it was, for a removed step) */
  step: StepDoc;
  /** the section it is in now (was in, for a removed step) */
  section: string;
  /** also moved (a changed step may have moved too) */
  moved: boolean;
  title?: Change<string>;
  body?: Change<string>;
  /** the section it was moved between */
  sectionChange?: Change<string>;
  /** the files shown before and after (a replaced image: one removed, one added) */
  media?: { removed: FileDoc[]; added: FileDoc[]; kept: number };
  /** the step's 3D model before and after (its file; null: none) */
  model?: Change<StepDoc['model']>;
  /** the step's condition (null: always) */
  when?: Change<unknown>;
  /** its section's condition */
  sectionWhen?: Change<unknown>;
  signoff?: Change<SignoffDoc | null>;
  fields: FieldChange[];
}

export interface ReviewDiff {
  /** the version's required skills, when they changed */
  qualifications?: Change<SkillDoc[]>;
  /** added, changed and moved steps in the new reading order, then the removed ones in their old order */
  steps: StepChange[];
  /** steps the same in both versions */
  unchanged: number;
  counts: Record<StepKind, number>;
  /** the two documents, for reading a condition before and after (its steps' titles as each version has them) */
  docs: { before: ContentDoc | null; after: ContentDoc };
}

interface Located {
  step: StepDoc;
  section: SectionDoc;
}

function locate(content: ContentDoc): Map<string, Located> {
  const found = new Map<string, Located>();
  for (const section of content.sections) for (const step of section.steps) found.set(step.stepId, { step, section });
  return found;
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function fieldChanges(before: StepDoc, after: StepDoc, named: readonly string[]): FieldChange[] {
  const old = new Map(before.fields.map((f) => [f.key, f]));
  const now = new Map(after.fields.map((f) => [f.key, f]));
  // `fields.<key>.expression` names a formula that changed: its field (a key may itself hold dots, so the whole name first)
  const keyOf = (name: string) => {
    const rest = name.slice('fields.'.length);
    if (old.has(rest) || now.has(rest) || !rest.endsWith('.expression')) return rest;
    return rest.slice(0, -'.expression'.length);
  };
  const keys = [...new Set(named.filter((name) => name.startsWith('fields.')).map(keyOf))].filter((key) => old.has(key) || now.has(key));
  return keys.map((key): FieldChange => {
    const a = old.get(key);
    const b = now.get(key);
    if (!a) return { kind: 'added', field: b! };
    if (!b) return { kind: 'removed', field: a };
    const properties = FIELD_PROPERTIES.filter((p) => !sameValue(a[p], b[p])).map((property) => ({
      property,
      before: a[property],
      after: b[property],
    }));
    return { kind: 'changed', field: b, properties };
  });
}

/** The step's files removed and added, by id (an id in both is kept; a replaced file is one of each), in their order. */
function mediaChange(before: StepDoc, after: StepDoc): NonNullable<StepChange['media']> {
  const fileOf = (step: StepDoc, id: number): FileDoc =>
    step.mediaFiles.find((f) => f.databaseId === id) ?? {
      databaseId: id,
      name: '',
      contentType: '',
      url: `/api/client/files/${id}`,
      size: 0,
    };
  const kept = after.media.filter((id) => before.media.includes(id));
  return {
    removed: before.media.filter((id) => !after.media.includes(id)).map((id) => fileOf(before, id)),
    added: after.media.filter((id) => !before.media.includes(id)).map((id) => fileOf(after, id)),
    kept: kept.length,
  };
}

/**
 * The review page's diff from `base` (the published version; null when nothing was published yet: every step is
 * new) to `next`, with `server` the semantic diff between them (null with no base).
 */
export function reviewDiff(base: ContentDoc | null, next: ContentDoc, server: ServerDiff | null): ReviewDiff {
  const before = base ? locate(base) : new Map<string, Located>();
  const added = new Set(server ? server.added.map((s) => s.stepId) : [...locate(next).keys()]);
  const moved = new Set(server?.moved.map((s) => s.stepId) ?? []);
  const changed = new Map(server?.changed.map((s) => [s.stepId, s.changedFields]) ?? []);
  const steps: StepChange[] = [];
  let unchanged = 0;
  for (const section of next.sections) {
    for (const step of section.steps) {
      const id = step.stepId;
      if (added.has(id)) {
        steps.push({ stepId: id, kind: 'added', step, section: section.title, moved: false, fields: [] });
        continue;
      }
      const names = changed.get(id);
      const old = before.get(id);
      if (!old || (!names && !moved.has(id))) {
        unchanged++;
        continue;
      }
      const entry: StepChange = {
        stepId: id,
        kind: names ? 'changed' : 'moved',
        step,
        section: section.title,
        moved: moved.has(id),
        fields: [],
      };
      if (names) {
        if (names.includes('title')) entry.title = { before: old.step.title, after: step.title };
        if (names.includes('body')) entry.body = { before: old.step.body, after: step.body };
        if (names.includes('section')) entry.sectionChange = { before: old.section.title, after: section.title };
        if (names.includes('media')) entry.media = mediaChange(old.step, step);
        if (names.includes('model')) entry.model = { before: old.step.model ?? null, after: step.model ?? null };
        if (names.includes('when')) entry.when = { before: old.step.when ?? null, after: step.when ?? null };
        if (names.includes('section.when')) entry.sectionWhen = { before: old.section.when ?? null, after: section.when ?? null };
        if (names.includes('signoff')) entry.signoff = { before: old.step.signoff ?? null, after: step.signoff ?? null };
        entry.fields = fieldChanges(old.step, step, names);
      }
      steps.push(entry);
    }
  }
  const removed = new Set(server?.removed.map((s) => s.stepId) ?? []);
  for (const section of base?.sections ?? []) {
    for (const step of section.steps)
      if (removed.has(step.stepId))
        steps.push({ stepId: step.stepId, kind: 'removed', step, section: section.title, moved: false, fields: [] });
  }
  const counts: Record<StepKind, number> = { added: 0, removed: 0, changed: 0, moved: 0 };
  for (const s of steps) counts[s.kind]++;
  // a changed step that also moved counts as moved too: the summary says how many steps moved
  counts.moved += steps.filter((s) => s.kind === 'changed' && s.moved).length;
  const qualifications = server?.qualificationsChanged
    ? { before: base?.qualifications ?? [], after: next.qualifications ?? [] }
    : undefined;
  return { qualifications, steps, unchanged, counts, docs: { before: base, after: next } };
}
