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

export const FIELD_TYPES = ['TEXT', 'NUMBER', 'PASS_FAIL', 'CHOICE', 'PHOTO', 'SIGNATURE', 'SENSOR', 'CALCULATED'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface EditorField {
  /** the editor's own handle on the field (its key is the author's to edit): never sent */
  uid: string;
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

/** A key not yet used in the step: field1, field2… */
export function freeFieldKey(step: EditorStep): string {
  const used = new Set(step.fields.map((f) => f.key));
  for (let n = step.fields.length + 1; ; n++) if (!used.has(`field${n}`)) return `field${n}`;
}

export const newFieldUid = () => `f_${randomHex(6)}`;

export function newField(step: EditorStep, type: FieldType, label: string): EditorField {
  return {
    uid: newFieldUid(),
    key: freeFieldKey(step),
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

/** A field switched to another type keeps only what that type uses. */
export function withType(field: EditorField, type: FieldType): EditorField {
  const uses = FIELD_TYPE_USES[type];
  return {
    ...field,
    type,
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

export function updateField(content: EditorContent, at: StepAt, index: number, change: (f: EditorField) => EditorField): EditorContent {
  return updateStep(content, at, (step) => ({ ...step, fields: step.fields.map((f, i) => (i === index ? change(f) : f)) }));
}

/** `list` with the item at `from` moved to `to` (both indexes of the list as it is). */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const copy = [...list];
  if (from < 0 || from >= copy.length || to < 0 || to >= copy.length || from === to) return copy;
  const [item] = copy.splice(from, 1);
  copy.splice(to, 0, item);
  return copy;
}

export const without = <T>(list: readonly T[], index: number): T[] => list.filter((_, i) => i !== index);

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
      fields: (Omit<EditorField, 'uid' | 'expression'> & { expression?: string | null })[];
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
            required: f.required,
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
