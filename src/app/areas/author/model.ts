/**
 * The editor's copy of a draft: the content document (src/domain/content.ts)
 * as GraphQL reads and writes it, plus what only the editor needs. Every
 * operation returns a new document (the editor's state is immutable), so a
 * save in flight keeps the exact document it sent.
 *
 * Sections and steps get their stable ids here, when they are created, in
 * the server's own form (`step_` + 16 hex digits): the server keeps the ids
 * it is sent, so what the author sees never has to be matched back to what
 * the server generated — and an autosave that runs while the author goes on
 * editing stays unambiguous.
 */
import { parseExpression, referencesOf, resolveReference } from '../../../domain/expressions';
import type { FieldType } from '../../../domain/vocabulary';

export { FIELD_TYPES, NUMERIC_FIELD_TYPES, type FieldType } from '../../../domain/vocabulary';

export interface EditorField {
  /** the editor's own handle on the field (its key is the author's to edit): never sent */
  uid: string;
  /**
   * Whether the key still follows the label (keyFromLabel): only for a field
   * added in this editor whose key the author has not typed and nothing
   * references yet. A key read from the server never changes by itself — it
   * may be in a published version, in records, in formulas. Never sent.
   */
  keyFollowsLabel: boolean;
  key: string;
  label: string;
  type: FieldType;
  required: boolean;
  unit: string | null;
  min: number | null;
  max: number | null;
  options: string[] | null;
  sensorId: number | null;
  /** a CALCULATED field's formula (src/domain/expressions.ts) */
  expression: string | null;
}

/** A skill at a level (docs/qualifications.md): named by the skill's name, level 1 to 4. */
export interface SkillRequirement {
  skill: string;
  level: number;
}

/** The e-signatures a step needs (docs/execution-rules.md): the performer, and a verifier holding one of the roles. */
export interface EditorSignoff {
  performer: boolean;
  verifier: { roles: string[] } | null;
  /** the skills whoever signs must hold (absent: none) */
  skills?: SkillRequirement[];
}

export interface StepModel {
  fileId: number;
  anchorPose: { position: number[]; rotation: number[] } | null;
}

export interface EditorStep {
  stepId: string;
  title: string;
  body: string;
  media: number[];
  model: StepModel | null;
  fields: EditorField[];
  /** the condition under which the step applies (src/domain/conditions.ts); null: always */
  when: unknown;
  signoff: EditorSignoff | null;
  /** the operator may mark the step not applicable, with a reason */
  allowNotApplicable: boolean;
}

export interface EditorSection {
  sectionId: string;
  title: string;
  steps: EditorStep[];
  when: unknown;
}

export interface EditorContent {
  /** the skills whoever works on a job of the version must hold (docs/qualifications.md) */
  qualifications: SkillRequirement[];
  sections: EditorSection[];
}

/** The document's limits (src/domain/content.ts): the editor stops adding before the server would refuse. */
export const LIMITS = {
  sections: 200,
  stepsPerSection: 500,
  fieldsPerStep: 100,
  mediaPerStep: 50,
  options: 100,
  title: 500,
  body: 100_000,
  unit: 32,
  key: 64,
  /** requirements per list (a version's, a step sign-off's) */
  requirements: 20,
  /** the highest level a skill can have */
  level: 4,
} as const;

/** Which properties a field type uses (the others stay null). */
export const FIELD_TYPE_USES: Record<
  FieldType,
  { unit: boolean; limits: boolean; options: boolean; sensor: boolean; expression: boolean }
> = {
  TEXT: { unit: false, limits: false, options: false, sensor: false, expression: false },
  NUMBER: { unit: true, limits: true, options: false, sensor: false, expression: false },
  PASS_FAIL: { unit: false, limits: false, options: false, sensor: false, expression: false },
  CHOICE: { unit: false, limits: false, options: true, sensor: false, expression: false },
  PHOTO: { unit: false, limits: false, options: false, sensor: false, expression: false },
  SIGNATURE: { unit: false, limits: false, options: false, sensor: false, expression: false },
  SENSOR: { unit: true, limits: true, options: false, sensor: true, expression: false },
  CALCULATED: { unit: true, limits: true, options: false, sensor: false, expression: true },
};

function randomHex(bytes: number): string {
  const buffer = new Uint8Array(bytes);
  crypto.getRandomValues(buffer);
  return [...buffer].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export const newSectionId = () => `sec_${randomHex(8)}`;
export const newStepId = () => `step_${randomHex(8)}`;

export function newStep(title: string): EditorStep {
  return { stepId: newStepId(), title, body: '', media: [], model: null, fields: [], when: null, signoff: null, allowNotApplicable: false };
}

export function newSection(title: string, firstStepTitle: string): EditorSection {
  return { sectionId: newSectionId(), title, steps: [newStep(firstStepTitle)], when: null };
}

/** Every field key of the draft: keys are kept unique within the version (a formula or record names one unambiguously). */
export function keysOf(content: EditorContent, except?: string): Set<string> {
  const keys = new Set<string>();
  for (const section of content.sections)
    for (const step of section.steps) for (const field of step.fields) if (field.uid !== except) keys.add(field.key);
  return keys;
}

/** `base`, or `base_2`, `base_3`… : the first not in `used`. */
function unique(base: string, used: ReadonlySet<string>): string {
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = base.slice(0, LIMITS.key - suffix.length) + suffix;
    if (!used.has(candidate)) return candidate;
  }
}

const FOLD: Record<string, string> = {
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
  ß: 'ss',
  æ: 'ae',
  ø: 'oe',
  œ: 'oe',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  đ: 'd',
  ı: 'i',
};

/**
 * The key a label suggests, as a formula can name it (src/domain/expressions.ts:
 * letters, digits and `_`, not starting with a digit): lowercased, German
 * umlauts as ae/oe/ue, other accents dropped, anything else `_`. "Druck vor
 * Prüfung (bar)" → `druck_vor_pruefung_bar`. Empty when the label has no letter or digit.
 */
export function keyFromLabel(label: string): string {
  const folded = [...label.toLowerCase()].map((c) => FOLD[c] ?? c).join('');
  const ascii = folded.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const key = ascii
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, LIMITS.key)
    .replace(/_+$/, '');
  return /^[0-9]/.test(key) ? `f_${key}`.slice(0, LIMITS.key) : key;
}

/** The key for a field labelled `label` in `content` (unique in the version; `field` when the label gives nothing). */
export function keyFor(label: string, content: EditorContent, uid?: string): string {
  return unique(keyFromLabel(label) || 'field', keysOf(content, uid));
}

export const newFieldUid = () => `f_${randomHex(6)}`;

export function newField(content: EditorContent, type: FieldType, label: string): EditorField {
  return {
    uid: newFieldUid(),
    key: keyFor(label, content),
    keyFollowsLabel: true,
    label,
    type,
    required: false,
    unit: null,
    min: null,
    max: null,
    options: type === 'CHOICE' ? [] : null,
    sensorId: null,
    expression: type === 'CALCULATED' ? '' : null,
  };
}

/**
 * The field relabelled: its key follows while it may (keyFollowsLabel) and
 * nothing in the draft names it yet — a key a condition or formula uses stays.
 */
export function relabelled(field: EditorField, label: string, stepId: string, content: EditorContent): EditorField {
  if (!field.keyFollowsLabel) return { ...field, label };
  if (isReferenced(content, stepId, field.key)) return { ...field, label, keyFollowsLabel: false };
  return { ...field, label, key: keyFor(label, content, field.uid) };
}

/** Whether a condition or a formula of the draft names the field `key` of step `stepId`. */
export function isReferenced(content: EditorContent, stepId: string, key: string): boolean {
  const ids = new Set(content.sections.flatMap((s) => s.steps.map((st) => st.stepId)));
  const inCondition = (c: unknown): boolean => {
    if (Array.isArray(c)) return c.some(inCondition);
    if (c === null || typeof c !== 'object') return false;
    const o = c as Record<string, unknown>;
    if (o.step === stepId && o.field === key) return true;
    return [o.all, o.any, o.not].some((x) => x !== undefined && inCondition(x));
  };
  for (const section of content.sections) {
    if (inCondition(section.when)) return true;
    for (const step of section.steps) {
      if (inCondition(step.when)) return true;
      for (const field of step.fields) {
        if (field.type !== 'CALCULATED' || !field.expression) continue;
        let names: string[];
        try {
          names = referencesOf(parseExpression(field.expression));
        } catch {
          continue; // a formula that does not parse names nothing yet
        }
        for (const name of names) {
          const ref = resolveReference(name, step.stepId, (id) => id !== step.stepId && ids.has(id));
          if (ref.stepId === stepId && ref.key === key) return true;
        }
      }
    }
  }
  return false;
}

/** A field switched to another type keeps only what that type uses. */
export function withType(field: EditorField, type: FieldType): EditorField {
  const uses = FIELD_TYPE_USES[type];
  return {
    ...field,
    type,
    // a CALCULATED value is computed, never entered: "required" does not apply to it
    required: type === 'CALCULATED' ? false : field.required,
    unit: uses.unit ? field.unit : null,
    min: uses.limits ? field.min : null,
    max: uses.limits ? field.max : null,
    options: uses.options ? (field.options ?? []) : null,
    sensorId: uses.sensor ? field.sensorId : null,
    expression: uses.expression ? (field.expression ?? '') : null,
  };
}

// ── Addressing ─────────────────────────────────────────────────────────────

export interface StepAt {
  section: number;
  step: number;
}

export function updateSection(content: EditorContent, index: number, change: (s: EditorSection) => EditorSection): EditorContent {
  return { ...content, sections: content.sections.map((s, i) => (i === index ? change(s) : s)) };
}

export function updateStep(content: EditorContent, at: StepAt, change: (s: EditorStep) => EditorStep): EditorContent {
  return updateSection(content, at.section, (section) => ({
    ...section,
    steps: section.steps.map((s, i) => (i === at.step ? change(s) : s)),
  }));
}

/** `list` with the item at `from` moved to `to` (both indexes of the list as it is). */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const copy = [...list];
  if (from < 0 || from >= copy.length || to < 0 || to >= copy.length || from === to) return copy;
  const [item] = copy.splice(from, 1);
  copy.splice(to, 0, item);
  return copy;
}

/** Every step in reading order, with its address and its number (1-based, across sections: what operators see). */
export function stepsInOrder(content: EditorContent): { at: StepAt; step: EditorStep; section: EditorSection; number: number }[] {
  const out: { at: StepAt; step: EditorStep; section: EditorSection; number: number }[] = [];
  content.sections.forEach((section, s) =>
    section.steps.forEach((step, i) => out.push({ at: { section: s, step: i }, step, section, number: out.length + 1 })),
  );
  return out;
}

// ── Between the editor and the API ─────────────────────────────────────────

/** GraphQL's Content (as read) → the editor's document. */
export function fromServer(content: {
  qualifications?: SkillRequirement[] | null;
  sections: {
    sectionId: string;
    title: string;
    when?: unknown;
    steps: (Omit<EditorStep, 'fields' | 'when' | 'signoff' | 'allowNotApplicable'> & {
      when?: unknown;
      signoff?: EditorSignoff | null;
      allowNotApplicable?: boolean | null;
      fields: (Omit<EditorField, 'uid' | 'keyFollowsLabel' | 'expression'> & { expression?: string | null })[];
    })[];
  }[];
}): EditorContent {
  return {
    qualifications: (content.qualifications ?? []).map((r) => ({ skill: r.skill, level: r.level })),
    sections: content.sections.map((section) => ({
      sectionId: section.sectionId,
      title: section.title,
      when: section.when ?? null,
      steps: section.steps.map((step) => ({
        stepId: step.stepId,
        title: step.title,
        body: step.body,
        media: [...step.media],
        model: step.model
          ? {
              fileId: step.model.fileId,
              anchorPose: step.model.anchorPose
                ? { position: [...step.model.anchorPose.position], rotation: [...step.model.anchorPose.rotation] }
                : null,
            }
          : null,
        when: step.when ?? null,
        signoff: step.signoff
          ? {
              performer: step.signoff.performer,
              verifier: step.signoff.verifier ? { roles: [...step.signoff.verifier.roles] } : null,
              skills: (step.signoff.skills ?? []).map((r) => ({ skill: r.skill, level: r.level })),
            }
          : null,
        allowNotApplicable: step.allowNotApplicable === true,
        fields: step.fields.map((f) => ({
          uid: newFieldUid(),
          key: f.key,
          keyFollowsLabel: false,
          label: f.label,
          type: f.type,
          required: f.required,
          unit: f.unit,
          min: f.min,
          max: f.max,
          options: f.options ? [...f.options] : null,
          sensorId: f.sensorId,
          expression: f.expression ?? null,
        })),
      })),
    })),
  };
}

/**
 * The editor's document → GraphQL's ContentInput (the same shape: the editor keeps GraphQL's names).
 * `notApplicable`: the server takes `allowNotApplicable` (api/features.ts); a server without it is not sent it.
 */
export function toInput(content: EditorContent, notApplicable = false): unknown {
  return {
    qualifications: content.qualifications.filter((r) => r.skill.trim()),
    sections: content.sections.map((section) => ({
      sectionId: section.sectionId,
      title: section.title,
      when: section.when ?? null,
      steps: section.steps.map((step) => ({
        stepId: step.stepId,
        title: step.title,
        body: step.body,
        media: step.media,
        model: step.model ? { fileId: step.model.fileId, ...(step.model.anchorPose && { anchorPose: step.model.anchorPose }) } : null,
        when: step.when ?? null,
        signoff:
          step.signoff && (step.signoff.performer || step.signoff.verifier)
            ? {
                performer: step.signoff.performer,
                verifier: step.signoff.verifier,
                skills: (step.signoff.skills ?? []).filter((r) => r.skill.trim()),
              }
            : null,
        ...(notApplicable && { allowNotApplicable: step.allowNotApplicable }),
        fields: step.fields.map((f) => {
          const uses = FIELD_TYPE_USES[f.type];
          return {
            key: f.key,
            label: f.label,
            type: f.type,
            required: f.type === 'CALCULATED' ? false : f.required,
            unit: uses.unit ? f.unit || null : null,
            min: uses.limits ? f.min : null,
            max: uses.limits ? f.max : null,
            options: uses.options ? (f.options ?? []) : null,
            sensorId: uses.sensor ? f.sensorId : null,
            ...(uses.expression && { expression: f.expression ?? '' }),
          };
        }),
      })),
    })),
  };
}

/**
 * The server names a problem by its path in the document it was sent
 * (`content.sections.0.steps.1.fields.2.min`): the editor shows it at the
 * input of that path. The path is kept as the server wrote it, less the
 * `content.` prefix, and inputs carry the same path (pathOf) so the two meet.
 */
export function problemPath(serverPath: string): string {
  return serverPath.replace(/^(input\.)?content\.?/, '');
}

export const pathOf = {
  section: (s: number, prop: string) => `sections.${s}.${prop}`,
  step: (at: StepAt, prop: string) => `sections.${at.section}.steps.${at.step}.${prop}`,
  field: (at: StepAt, f: number, prop: string) => `sections.${at.section}.steps.${at.step}.fields.${f}.${prop}`,
};

/** A DOM id for the input at a document path (ids may not hold dots in CSS selectors comfortably). */
export const inputId = (path: string) => `ed-${path.replace(/\./g, '-')}`;

// ── Removing, and undoing it ───────────────────────────────────────────────

/** What a removal took out of the draft, and where it was: enough to put it back exactly. */
export type Removed =
  | { kind: 'section'; index: number; section: EditorSection }
  | { kind: 'step'; sectionId: string; index: number; step: EditorStep }
  | { kind: 'field'; stepId: string; index: number; field: EditorField };

/** The draft without the item `removed` names (by id: a removal that lands after a reorder still finds it). */
export function withoutItem(content: EditorContent, removed: Removed): EditorContent {
  switch (removed.kind) {
    case 'section':
      return { ...content, sections: content.sections.filter((s) => s.sectionId !== removed.section.sectionId) };
    case 'step':
      return {
        ...content,
        sections: content.sections.map((s) => ({ ...s, steps: s.steps.filter((st) => st.stepId !== removed.step.stepId) })),
      };
    case 'field':
      return {
        ...content,
        sections: content.sections.map((s) => ({
          ...s,
          steps: s.steps.map((st) =>
            st.stepId === removed.stepId ? { ...st, fields: st.fields.filter((f) => f.uid !== removed.field.uid) } : st,
          ),
        })),
      };
  }
}

const insertedAt = <T>(list: readonly T[], index: number, item: T): T[] => {
  const copy = [...list];
  copy.splice(Math.min(index, copy.length), 0, item);
  return copy;
};

/**
 * The draft with `removed` back where it was — the same object, ids and keys
 * included, at its old position (or the end, if the list got shorter since).
 * Null when it cannot go back: its section or step is gone too, or it is back already.
 */
export function restored(content: EditorContent, removed: Removed): EditorContent | null {
  switch (removed.kind) {
    case 'section':
      if (content.sections.some((s) => s.sectionId === removed.section.sectionId)) return null;
      return { ...content, sections: insertedAt(content.sections, removed.index, removed.section) };
    case 'step': {
      if (stepsInOrder(content).some(({ step }) => step.stepId === removed.step.stepId)) return null;
      if (!content.sections.some((s) => s.sectionId === removed.sectionId)) return null;
      return {
        ...content,
        sections: content.sections.map((s) =>
          s.sectionId === removed.sectionId ? { ...s, steps: insertedAt(s.steps, removed.index, removed.step) } : s,
        ),
      };
    }
    case 'field': {
      const at = stepsInOrder(content).find(({ step }) => step.stepId === removed.stepId);
      if (!at || at.step.fields.some((f) => f.uid === removed.field.uid)) return null;
      return updateStep(content, at.at, (step) => ({ ...step, fields: insertedAt(step.fields, removed.index, removed.field) }));
    }
  }
}
