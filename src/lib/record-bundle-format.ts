import { z } from 'zod';

/**
 * The record bundle format, version 1 (docs/records.md and
 * docs/records/bundle.schema.json describe it for people and for tools).
 * Runs in Node and in the browser (the verifier page): zod only, no Node API.
 *
 * A bundle file is JSON:
 *   { format, formatVersion, jws, timestamp?, attachments? }
 * `jws` is a flattened JWS (RFC 7515 §7.2.2) whose payload is the canonical
 * JSON (src/lib/canonical-json.ts) of a RecordPayload. What is outside the
 * JWS is either checked against what is inside it (attachments against the
 * signed files' sha256) or signs itself (the RFC 3161 token over the JWS
 * signature), so nothing in the file is taken on trust.
 */

export const BUNDLE_FORMAT = 'wip-record-bundle';
export const BUNDLE_FORMAT_VERSION = 1;
export const RECORD_TYP = 'wip-record+json';
export const CHECKPOINT_TYP = 'wip-checkpoint+json';

const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 as 64 lower-case hex digits');
const Iso = z.string().max(40);
const Text = z.string().max(1_000_000);
const Id = z.number().int().nonnegative();

export const FlattenedJws = z.object({
  protected: z.string().min(1).max(10_000),
  payload: z.string().max(200_000_000),
  signature: z.string().min(1).max(1_000),
});
export type FlattenedJwsShape = z.infer<typeof FlattenedJws>;

/** A stored RFC 3161 TimeStampToken (base64 DER) and the URL of the authority that issued it. */
export const TimestampShape = z.object({ token: z.string().min(1).max(100_000), authority: z.string().max(2_000).optional() });

export const BundleFile = z.object({
  format: z.literal(BUNDLE_FORMAT),
  formatVersion: z.literal(BUNDLE_FORMAT_VERSION),
  jws: FlattenedJws,
  /** RFC 3161 token whose message imprint is SHA-256 of the JWS signature (its base64url text, as ASCII) */
  timestamp: TimestampShape.optional(),
  /** photos (and signature images) carried in the file; each must match a file of the signed record */
  attachments: z
    .array(z.object({ fileId: Id, data: z.string().max(200_000_000) }))
    .max(10_000)
    .optional(),
});
export type BundleFile = z.infer<typeof BundleFile>;

const Person = z.object({ id: Id.nullable(), name: Text, email: Text });

const StepRecord = z.object({
  stepId: Text,
  title: Text,
  status: z.string().max(20),
  /** key, value, outOfLimits, readingId and error as recorded (what a step sign-off hashes); label…max from the version's field */
  values: z.array(
    z.object({
      key: Text,
      value: z.unknown(),
      outOfLimits: z.boolean(),
      readingId: z.string().max(200).optional(),
      error: Text.optional(),
      label: Text,
      type: Text,
      unit: Text.nullable(),
      min: z.number().nullable(),
      max: z.number().nullable(),
    }),
  ),
  comment: Text.nullable(),
  reason: Text.nullable(),
  recordedById: Id,
  recordedBy: Person,
  /** when the server stored the record (receivedAt, under its version 1 name) */
  recordedAt: Iso,
  /** record version 2: when the values were entered on the device, in server time (docs/records.md) */
  capturedAt: Iso.optional(),
  /** record version 2: when the server stored the record (= recordedAt) */
  receivedAt: Iso.optional(),
  /** record version 2: the step record's revision (1 for its first recording) */
  revision: z.number().int().positive().optional(),
});

/**
 * A step sign-off: an e-signature on a step's record. Bundles made
 * before sign-offs existed have no `signoffs`; they still verify, and a
 * version that requires sign-offs is then reported as lacking them.
 */
const StepSignoffRecord = z.object({
  stepId: Text,
  meaning: z.enum(['PERFORMED', 'VERIFIED']),
  signer: Person,
  /** how the signer proved who they were (password, TOTP) */
  method: Text,
  /** SHA-256 of the step's record when signed (src/lib/step-values-hash.ts): must match the step's values in this record while valid */
  valuesHash: Sha256Hex,
  signedAt: Iso,
  /** null: the sign-off counts; else when the step was recorded again, which voided it (kept as history, not checked against the values) */
  invalidatedAt: Iso.nullable(),
});

/** A full entry of the client's chain: every field its hash covers. */
export const FullAuditEntry = z.object({
  seq: z.number().int().positive(),
  actorUserId: Id.nullable(),
  actor: Text,
  action: Text,
  entityType: Text,
  entityId: Text,
  /** the stored JSON text of the snapshots, exactly (the hash covers the text) */
  before: Text.nullable(),
  after: Text.nullable(),
  at: Iso,
  prevHash: Sha256Hex,
  hash: Sha256Hex,
});
/** An entry about something else than the job: only what links the chain through it. */
export const ElidedAuditEntry = z.object({
  seq: z.number().int().positive(),
  elided: z.literal(true),
  prevHash: Sha256Hex,
  hash: Sha256Hex,
});
export const AuditEntryShape = z.union([FullAuditEntry, ElidedAuditEntry]);
export type FullAuditEntry = z.infer<typeof FullAuditEntry>;

export const CheckpointPayload = z.object({
  type: z.literal('wip-audit-checkpoint'),
  version: z.literal(1),
  clientId: Id,
  seq: z.number().int().nonnegative(),
  hash: Sha256Hex,
  at: Iso,
  issuer: z.string().max(2_000).nullable(),
});
export type CheckpointPayload = z.infer<typeof CheckpointPayload>;

/** A checkpoint as exported (`wip audit checkpoint --export`, and inside bundles). */
export const CheckpointFile = z.object({
  format: z.literal('wip-audit-checkpoint'),
  formatVersion: z.literal(1),
  jws: FlattenedJws,
  timestamp: TimestampShape.optional(),
});
export type CheckpointFile = z.infer<typeof CheckpointFile>;

/**
 * The record's version: 2 since records carry capture times (every step carries capturedAt, receivedAt and revision; faults their
 * capturedAt), 1 before. A version 1 record still verifies, its times being receipt times only.
 */
export const RECORD_VERSION = 2;

export const RecordPayload = z.object({
  type: z.literal('wip-record'),
  version: z.union([z.literal(1), z.literal(RECORD_VERSION)]),
  issuedAt: Iso,
  issuer: z.object({ product: z.literal('wip'), productVersion: Text, publicUrl: Text.nullable() }),
  client: z.object({ id: Id, name: Text }),
  job: z.object({
    id: Id,
    title: Text,
    state: z.string().max(20),
    priority: z.string().max(20),
    asset: Text.nullable(),
    templateId: Id,
    versionId: Id,
    createdBy: Person,
    createdAt: Iso,
    startedAt: Iso.nullable(),
    completedAt: Iso.nullable(),
    dueAt: Iso.nullable(),
    cancelReason: Text.nullable(),
    members: z.array(z.object({ kind: Text, user: Person, stepId: Text.nullable() })),
  }),
  instruction: z.object({
    templateId: Id,
    templateTitle: Text.nullable(),
    versionId: Id,
    versionNumber: z.number().int(),
    state: z.string().max(20),
    approvedAt: Iso.nullable(),
    publishedAt: Iso.nullable(),
    /** the version's content exactly as stored (canonical JSON text): contentHash is SHA-256 of these UTF-8 bytes */
    content: z.string().max(100_000_000),
    contentHash: Sha256Hex,
    signatures: z.array(z.object({ meaning: Text, signer: Person, method: Text, contentHash: Sha256Hex, signedAt: Iso })),
  }),
  steps: z.array(StepRecord),
  /** every step sign-off of the job, the invalidated ones too, oldest first (absent from bundles made before sign-offs) */
  signoffs: z.array(StepSignoffRecord).optional(),
  deviations: z.array(
    z.object({
      stepId: Text,
      kind: z.enum(['OUT_OF_LIMITS', 'STEP_FAILED', 'STEP_SKIPPED', 'CHECK_FAILED']),
      fieldKey: Text.nullable(),
      detail: Text,
    }),
  ),
  /**
   * the deviations the server recorded (out of limits, FAILED, marked not applicable, faults, overrides,
   * late completion) with each reviewer's acknowledgement; `deviations` above stays derived from the steps, as
   * bundles made before had it. Absent from bundles made before deviations were recorded.
   */
  recordedDeviations: z
    .array(
      z.object({
        id: Id,
        kind: Text,
        stepId: Text.nullable(),
        fieldKey: Text.nullable(),
        value: z.unknown(),
        detail: Text,
        raisedAt: Iso,
        comment: Text.nullable(),
        acknowledgedBy: Text.nullable(),
        acknowledgedAt: Iso.nullable(),
      }),
    )
    .optional(),
  /** the REVIEWED e-signature on the job (null: not reviewed; absent from bundles made before reviews) */
  review: z
    .object({ meaning: z.literal('REVIEWED'), signer: Person, method: Text, comment: Text, deviationsHash: Sha256Hex, signedAt: Iso })
    .nullable()
    .optional(),
  handOffs: z.array(
    z.object({ id: Id, from: Person, to: Person, status: Text, note: Text.nullable(), createdAt: Iso, decidedAt: Iso.nullable() }),
  ),
  faults: z.array(
    z.object({
      id: Id,
      stepId: Text.nullable(),
      severity: Text,
      state: Text,
      description: Text,
      photos: z.array(Id),
      raisedBy: Person,
      raisedAt: Iso,
      /** record version 2: when it was raised on the device, in server time */
      capturedAt: Iso.optional(),
      closedBy: Person.nullable(),
      closedAt: Iso.nullable(),
      closeNote: Text.nullable(),
    }),
  ),
  files: z.array(
    z.object({
      id: Id,
      role: z.enum(['photo', 'signature', 'fault-photo']),
      name: Text,
      contentType: Text,
      size: z.number().int().nonnegative(),
      sha256: Sha256Hex,
    }),
  ),
  audit: z.object({
    clientId: Id,
    /** entries from the first to the last one about the job (its steps, faults and hand-offs), consecutive */
    entries: z.array(AuditEntryShape),
    /** the chain head when the bundle was made: at or after the last entry above */
    chainHead: z.object({ seq: z.number().int().nonnegative(), hash: Sha256Hex }),
    /** the newest signed checkpoint of the chain when the bundle was made */
    checkpoint: CheckpointFile.nullable(),
  }),
});
export type RecordPayload = z.infer<typeof RecordPayload>;
