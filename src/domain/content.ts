import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '#lib/canonical-json';
import { FIELD_TYPES, NUMERIC_FIELD_TYPES, type FieldType } from './vocabulary';
import { validationFailed } from '#errors';
import { issueProblems } from '#lib/parse-or-fail';
import { ROLES, type Role } from '#policies/roles';
import { conditionProblems, type Condition } from './conditions';
import { ExpressionError, parseExpression, referencesOf, resolveReference } from './expressions';
import { requirementProblems, SkillRequirementsInput, type SkillRequirement } from './qualifications';

/**
 * A template version's content: ordered sections, each with ordered steps,
 * each with data fields. It is one immutable document per version, stored as
 * canonical JSON with its SHA-256 (what e-signatures sign). Steps and sections
 * keep stable ids across versions, so jobs record against `(version, step id,
 * field key)` and diffs can tell a moved step from a new one.
 */

const Id = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only');
const Vector3 = z.tuple([z.number().finite(), z.number().finite(), z.number().finite()]);

export const FieldInput = z
  .object({
    key: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _, . and - only'),
    label: z.string().max(500).default(''),
    type: z.enum(FIELD_TYPES),
    required: z.boolean().default(false),
    unit: z.string().max(32).nullish(),
    min: z.number().finite().nullish(),
    max: z.number().finite().nullish(),
    options: z.array(z.string().min(1).max(200)).max(100).nullish(),
    sensorId: z.number().int().positive().nullish(),
    /** a CALCULATED field's formula (src/domain/expressions.ts) */
    expression: z.string().max(500).nullish(),
  })
  // the rules across properties (CHOICE needs options, min ≤ max…) are documentProblems': checked with the others
  .strict();

export const StepInput = z
  .object({
    /** omitted: a new step (an id is generated) */
    id: Id.nullish(),
    title: z.string().trim().min(1).max(500),
    body: z.string().max(100_000).default(''),
    /** file ids (the file store) */
    media: z.array(z.number().int().positive()).max(50).default([]),
    /** a 3D model and where it sits relative to the asset's anchor */
    model: z
      .object({
        fileId: z.number().int().positive(),
        anchorPose: z
          .object({
            position: Vector3,
            rotation: z.tuple([z.number().finite(), z.number().finite(), z.number().finite(), z.number().finite()]),
          })
          .strict()
          .nullish(),
      })
      .strict()
      .nullish(),
    fields: z.array(FieldInput).max(100).default([]),
    /** a condition (src/domain/conditions.ts), checked by documentProblems */
    when: z.unknown().nullish(),
    /** the e-signatures the step needs (docs/execution-rules.md) */
    signoff: z
      .object({
        performer: z.boolean().default(false),
        verifier: z
          .object({ roles: z.array(z.enum(ROLES)).min(1).max(ROLES.length) })
          .strict()
          .nullish(),
        /** the skills whoever signs the step must hold (docs/qualifications.md) */
        skills: SkillRequirementsInput.nullish(),
      })
      .strict()
      .nullish(),
    /** the operator may mark the step not applicable, with a reason (docs/execution-rules.md) */
    allowNotApplicable: z.boolean().nullish(),
  })
  .strict();

export const SectionInput = z
  .object({
    id: Id.nullish(),
    title: z.string().trim().min(1).max(500),
    steps: z.array(StepInput).max(500).default([]),
    when: z.unknown().nullish(),
  })
  .strict();

export const ContentInput = z
  .object({
    sections: z.array(SectionInput).max(200).default([]),
    /** the skills a user needs to be assigned, start, record on or accept a job of the version (docs/qualifications.md) */
    qualifications: SkillRequirementsInput.nullish(),
  })
  .strict();
export type ContentInput = z.input<typeof ContentInput>;

export interface Field {
  key: string;
  label: string;
  type: FieldType;
  required: boolean;
  unit: string | null;
  min: number | null;
  max: number | null;
  options: string[] | null;
  sensorId: number | null;
  /** CALCULATED fields only (absent from documents written before there were any) */
  expression?: string | null;
}

export interface Step {
  id: string;
  title: string;
  body: string;
  media: number[];
  model: { fileId: number; anchorPose: { position: number[]; rotation: number[] } | null } | null;
  fields: Field[];
  /** absent: always applies */
  when?: Condition | null;
  /** absent: no sign-off */
  signoff?: StepSignoff | null;
  /** true: the operator may mark the step not applicable, with a reason (absent: may not) */
  allowNotApplicable?: boolean;
}

export interface StepSignoff {
  /** the person who performed the step signs PERFORMED */
  performer: boolean;
  /** another person, holding one of the roles, signs VERIFIED */
  verifier: { roles: Role[] } | null;
  /** absent: no skill needed to sign (docs/qualifications.md) */
  skills?: SkillRequirement[];
}

export interface Section {
  id: string;
  title: string;
  steps: Step[];
  when?: Condition | null;
}

export interface Content {
  sections: Section[];
  /** absent: no skill needed (docs/qualifications.md) */
  qualifications?: SkillRequirement[];
}

export const EMPTY_CONTENT: Content = { sections: [] };

const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

/**
 * Validates content sent by a client and completes it: new sections and steps
 * get ids, optional values become explicit nulls. Ids must be unique within
 * the document and field keys unique within their step.
 * Every problem of the document is reported at once — its shape (the schema)
 * and its rules (documentProblems) — so an author fixes them in one go rather
 * than learning of a duplicate key only after fixing a wrong type.
 * @throws AppError VALIDATION_ERROR naming every failing path (under `field`)
 */
export function parseContent(input: unknown, field = 'content'): Content {
  const raw = input ?? {};
  const parsed = ContentInput.safeParse(raw);
  const problems = [...(parsed.success ? [] : issueProblems(parsed.error.issues, field)), ...documentProblems(raw, field)];
  if (problems.length > 0 || !parsed.success) {
    throw validationFailed({ fields: problems.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true })) });
  }
  const sections = parsed.data.sections.map((section): Section => ({
    id: section.id ?? newId('sec'),
    title: section.title,
    ...(section.when != null && { when: section.when as Condition }),
    steps: section.steps.map((step): Step => ({
      id: step.id ?? newId('step'),
      title: step.title,
      body: step.body,
      media: step.media,
      model: step.model ? { fileId: step.model.fileId, anchorPose: step.model.anchorPose ?? null } : null,
      // rules are written only when there are some, so a document without them hashes as it always did
      ...(step.when != null && { when: step.when as Condition }),
      ...(step.allowNotApplicable === true && { allowNotApplicable: true }),
      ...(step.signoff != null &&
        (step.signoff.performer || step.signoff.verifier) && {
          signoff: {
            performer: step.signoff.performer,
            verifier: step.signoff.verifier ? { roles: [...new Set(step.signoff.verifier.roles)] } : null,
            ...(step.signoff.skills != null && step.signoff.skills.length > 0 && { skills: step.signoff.skills }),
          },
        }),
      fields: step.fields.map((f): Field => ({
        key: f.key,
        label: f.label,
        type: f.type,
        required: f.required,
        unit: f.unit ?? null,
        min: f.min ?? null,
        max: f.max ?? null,
        options: f.options ?? null,
        sensorId: f.sensorId ?? null,
        ...(f.type === 'CALCULATED' && { expression: f.expression ?? null }),
      })),
    })),
  }));
  const qualifications = parsed.data.qualifications ?? [];
  // written only when there are some, so a document without them hashes as it always did
  return qualifications.length > 0 ? { sections, qualifications } : { sections };
}

/**
 * The rules of a document beyond each value's shape: section and step ids
 * unique within the document, field keys unique within their step, a CHOICE
 * field with options, a SENSOR field with a sensor, min ≤ max. Read from the
 * input as sent — whatever else is wrong with it — so they are reported
 * together with the schema's problems; what is not there to compare (a
 * missing or mistyped value) is the schema's to report.
 */
function documentProblems(input: unknown, field: string): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  const claim = (id: unknown, path: string) => {
    if (typeof id !== 'string' || id.trim() === '') return;
    if (seen.has(id.trim())) problems.push({ path, message: `duplicate id "${id.trim()}"` });
    seen.add(id.trim());
  };
  listOf(objectOf(input).sections).forEach((rawSection, s) => {
    const section = objectOf(rawSection);
    claim(section.id, `${field}.sections.${s}.id`);
    listOf(section.steps).forEach((rawStep, i) => {
      const step = objectOf(rawStep);
      const at = `${field}.sections.${s}.steps.${i}`;
      claim(step.id, `${at}.id`);
      const keys = new Set<string>();
      listOf(step.fields).forEach((rawField, k) => {
        const f = objectOf(rawField);
        const fieldAt = `${at}.fields.${k}`;
        if (typeof f.key === 'string') {
          if (keys.has(f.key.trim())) problems.push({ path: `${fieldAt}.key`, message: `duplicate key "${f.key.trim()}" in the step` });
          keys.add(f.key.trim());
        }
        // a value of the wrong type is the schema's to report, once
        if (f.type === 'CHOICE' && (f.options == null || (Array.isArray(f.options) && f.options.length === 0)))
          problems.push({ path: `${fieldAt}.options`, message: 'a CHOICE field needs options' });
        if (f.type === 'SENSOR' && f.sensorId == null)
          problems.push({ path: `${fieldAt}.sensorId`, message: 'a SENSOR field needs a sensorId' });
        if (typeof f.min === 'number' && typeof f.max === 'number' && f.min > f.max)
          problems.push({ path: `${fieldAt}.min`, message: 'min is greater than max' });
      });
    });
  });
  problems.push(...ruleProblems(input, field));
  problems.push(...requirementProblems(objectOf(input).qualifications, `${field}.qualifications`));
  listOf(objectOf(input).sections).forEach((rawSection, s) =>
    listOf(objectOf(rawSection).steps).forEach((rawStep, i) => {
      const signoff = objectOf(objectOf(rawStep).signoff);
      const at = `${field}.sections.${s}.steps.${i}.signoff.skills`;
      problems.push(...requirementProblems(signoff.skills, at));
      // skills are asked of a signer: a sign-off nobody signs would drop them silently
      if (Array.isArray(signoff.skills) && signoff.skills.length > 0 && signoff.performer !== true && signoff.verifier == null) {
        problems.push({ path: at, message: 'skills are asked of whoever signs: the sign-off needs a performer or a verifier' });
      }
    }),
  );
  return problems;
}

/**
 * Conditions and expressions look backwards only: a `when` may read steps
 * before the section or step it guards; an expression may read numeric fields
 * of earlier steps and fields listed before it in its own step. So a job's
 * rules are computed in one pass in reading order and can never loop.
 */
function ruleProblems(input: unknown, field: string): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const sections = listOf(objectOf(input).sections).map(objectOf);
  const allSteps = new Set(
    sections.flatMap((section) =>
      listOf(section.steps)
        .map((step) => objectOf(step).id)
        .filter((id): id is string => typeof id === 'string'),
    ),
  );
  const earlier = new Map<string, Set<string>>();
  const numeric = new Map<string, Set<string>>();
  const fieldsOf = (step: Record<string, unknown>) => listOf(step.fields).map(objectOf);
  sections.forEach((section, s) => {
    if (section.when != null) problems.push(...conditionProblems(section.when, `${field}.sections.${s}.when`, earlier, allSteps));
    listOf(section.steps).forEach((rawStep, i) => {
      const step = objectOf(rawStep);
      const at = `${field}.sections.${s}.steps.${i}`;
      if (step.when != null) problems.push(...conditionProblems(step.when, `${at}.when`, earlier, allSteps));
      const ownNumeric = new Set<string>();
      const ownId = typeof step.id === 'string' ? step.id : '';
      fieldsOf(step).forEach((f, k) => {
        const fieldAt = `${at}.fields.${k}`;
        if (f.type === 'CALCULATED') {
          if (typeof f.expression !== 'string' || f.expression.trim() === '')
            problems.push({ path: `${fieldAt}.expression`, message: 'a CALCULATED field needs an expression' });
          else {
            try {
              for (const name of referencesOf(parseExpression(f.expression))) {
                const ref = resolveReference(name, ownId, (id) => id !== ownId && allSteps.has(id));
                const known = ref.stepId === ownId ? ownNumeric : numeric.get(ref.stepId);
                if (!known)
                  problems.push({
                    path: `${fieldAt}.expression`,
                    message: `"${name}": step "${ref.stepId}" is not before this one: expressions look backwards only`,
                  });
                else if (!known.has(ref.key))
                  problems.push({
                    path: `${fieldAt}.expression`,
                    message: `"${name}" is not a numeric field (NUMBER, SENSOR or CALCULATED) ${ref.stepId === ownId ? 'listed before this one in the step' : `of step "${ref.stepId}"`}`,
                  });
              }
            } catch (error) {
              if (!(error instanceof ExpressionError)) throw error;
              problems.push({ path: `${fieldAt}.expression`, message: error.message });
            }
          }
        } else if (f.expression != null)
          problems.push({ path: `${fieldAt}.expression`, message: 'only a CALCULATED field has an expression' });
        if (typeof f.key === 'string' && NUMERIC_FIELD_TYPES.has(f.type as FieldType)) ownNumeric.add(f.key.trim());
      });
      if (ownId) {
        earlier.set(
          ownId,
          new Set(
            fieldsOf(step)
              .map((f) => f.key)
              .filter((k): k is string => typeof k === 'string')
              .map((k) => k.trim()),
          ),
        );
        numeric.set(ownId, ownNumeric);
      }
    });
  });
  return problems;
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const objectOf = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** The stored form and its hash: one byte string per document, whatever the key order it was built with. */
export function serializeContent(content: Content): { json: string; hash: string } {
  const json = canonicalJson(content);
  return { json, hash: createHash('sha256').update(json, 'utf8').digest('hex') };
}

export function deserializeContent(json: string): Content {
  return JSON.parse(json) as Content;
}

/** Every step of the document in reading order, with its section. */
export function stepsOf(content: Content): { section: Section; step: Step; index: number }[] {
  let index = 0;
  return content.sections.flatMap((section) => section.steps.map((step) => ({ section, step, index: index++ })));
}

export function findStep(content: Content, stepId: string): Step | undefined {
  for (const section of content.sections) {
    const step = section.steps.find((s) => s.id === stepId);
    if (step) return step;
  }
  return undefined;
}
