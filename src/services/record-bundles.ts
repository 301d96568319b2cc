import type { Deps } from '#deps';
import type { AuditEntryRow } from '#db/schema';
import { AppError } from '#errors';
import { stepsOf } from '#domain/content';
import type { RecordedValue } from '#domain/recording';
import { canonicalJson } from '#lib/canonical-json';
import { buildInfo } from '#lib/build-info';
import {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_VERSION,
  RECORD_TYP,
  RECORD_VERSION,
  type BundleFile,
  type RecordPayload,
} from '#lib/record-bundle-format';
import type { UserSummary } from '#repos/users';
import { auditSliceAbout, findAuditHead, latestCheckpoint } from '#repos/audit-checkpoints';
import { GENESIS_HASH } from '#repos/audit';
import { loadJobHistory, recordFiles, type JobHistory } from './pdf-exports';
import { checkpointFile } from './checkpoints';
import { signWithApplianceKey } from './signing-keys';
import { timestampSignature } from './timestamps';
import type { PackageFiles } from './template-package';
import type { UserActor } from './actor';

/**
 * Record bundles: a finished job as one JSON file that proves
 * itself — the approved instruction it ran (content, hash, signatures), every
 * recorded value, comment, sign-off, fault and hand-off, the hashes of its
 * photos (the photos themselves on request), and the stretch of the client's
 * audit chain covering it — signed by the appliance key (JWS), optionally
 * time-stamped by the plant's RFC 3161 authority. src/domain/record-verify.ts
 * checks one anywhere; docs/records.md describes the format.
 */

/** A bundle carrying its photos holds them in memory while it is made: beyond this, ask without photos. */
export const MAX_ATTACHED_BYTES = 256 * 1024 * 1024;

/** States after which nothing more is recorded on a job: only then is its record complete. */
const FINISHED = new Set(['COMPLETED', 'CANCELLED', 'REVIEWED']);

type Person = RecordPayload['job']['createdBy'];

function personOf(users: Map<number, UserSummary>, id: number): Person {
  const user = users.get(id);
  return { id, name: user ? `${user.first_name} ${user.last_name}`.trim() : '', email: user?.email ?? '' };
}

/** What a record shows of the chain: full entries about the job, the others reduced to their links. */
function sliceEntry(row: AuditEntryRow, about: (row: AuditEntryRow) => boolean): RecordPayload['audit']['entries'][number] {
  if (!about(row)) return { seq: row.seq, elided: true, prevHash: row.prev_hash, hash: row.hash };
  return {
    seq: row.seq,
    actorUserId: row.actor_user_id,
    actor: row.actor,
    action: row.action,
    entityType: row.entity_type,
    entityId: row.entity_id,
    before: row.before,
    after: row.after,
    at: row.at,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

function deviationsOf(steps: RecordPayload['steps']): RecordPayload['deviations'] {
  const out: RecordPayload['deviations'] = [];
  for (const step of steps) {
    if (step.status === 'FAILED') out.push({ stepId: step.stepId, kind: 'STEP_FAILED', fieldKey: null, detail: step.comment ?? '' });
    if (step.status === 'SKIPPED') out.push({ stepId: step.stepId, kind: 'STEP_SKIPPED', fieldKey: null, detail: step.reason ?? '' });
    for (const v of step.values) {
      if (v.outOfLimits)
        out.push({
          stepId: step.stepId,
          kind: 'OUT_OF_LIMITS',
          fieldKey: v.key,
          detail: `${JSON.stringify(v.value)} outside ${v.min ?? '-∞'}..${v.max ?? '∞'}${v.unit ? ` ${v.unit}` : ''}`,
        });
      if (v.type === 'PASS_FAIL' && v.value === 'FAIL')
        out.push({ stepId: step.stepId, kind: 'CHECK_FAILED', fieldKey: v.key, detail: v.label });
    }
  }
  return out;
}

/** The signed content of a job's record. */
async function recordPayload(deps: Deps, files: PackageFiles, actor: UserActor, h: JobHistory): Promise<RecordPayload> {
  const db = deps.db.kysely;
  const person = (id: number) => personOf(h.users, id);
  const steps: RecordPayload['steps'] = stepsOf(h.content).flatMap(({ step }) => {
    const record = h.records.get(step.id);
    if (!record) return [];
    const values = (JSON.parse(record.values) as RecordedValue[]).map((v) => {
      const field = step.fields.find((f) => f.key === v.key);
      return {
        key: v.key,
        value: v.value,
        outOfLimits: v.outOfLimits,
        ...(v.readingId !== undefined && { readingId: v.readingId }),
        ...(v.error !== undefined && { error: v.error }),
        label: field?.label ?? '',
        type: field?.type ?? '',
        unit: field?.unit ?? null,
        min: field?.min ?? null,
        max: field?.max ?? null,
      };
    });
    return [
      {
        stepId: step.id,
        title: step.title,
        status: record.status,
        values,
        comment: record.comment,
        reason: record.reason,
        recordedById: record.recorded_by,
        recordedBy: person(record.recorded_by),
        recordedAt: record.recorded_at,
        capturedAt: record.captured_at,
        receivedAt: record.recorded_at,
        revision: record.revision,
      },
    ];
  });
  const photoIds = [...h.records.values()].flatMap((r) => recordFiles(h.content, r).photos);
  const signatureIds = [...h.records.values()].flatMap((r) => recordFiles(h.content, r).signatures);
  const faultPhotoIds = h.faults.flatMap((f) => JSON.parse(f.photos) as number[]);
  const roles = new Map<number, 'photo' | 'signature' | 'fault-photo'>();
  for (const id of faultPhotoIds) roles.set(id, 'fault-photo');
  for (const id of signatureIds) roles.set(id, 'signature');
  for (const id of photoIds) roles.set(id, 'photo');
  const described = await files.describe(actor.scope, [...roles.keys()]);

  const faultIds = h.faults.map((f) => String(f.id));
  const handOffIds = h.handOffs.map((o) => String(o.id));
  const about = (row: AuditEntryRow) =>
    (row.entity_type === 'job' && row.entity_id === String(h.job.id)) ||
    (row.entity_type === 'fault' && faultIds.includes(row.entity_id)) ||
    (row.entity_type === 'hand_off' && handOffIds.includes(row.entity_id));
  const slice = await auditSliceAbout(db, actor.scope, [
    { entityType: 'job', entityIds: [String(h.job.id)] },
    { entityType: 'fault', entityIds: faultIds },
    { entityType: 'hand_off', entityIds: handOffIds },
  ]);
  const head = (await findAuditHead(db, actor.scope.clientId)) ?? { seq: 0, hash: GENESIS_HASH };
  const checkpoint = await latestCheckpoint(db, actor.scope.clientId);

  return {
    type: 'wip-record',
    version: RECORD_VERSION,
    issuedAt: deps.clock.now().toISOString(),
    issuer: { product: 'wip', productVersion: buildInfo().version, publicUrl: deps.config.publicUrl || null },
    client: { id: actor.scope.clientId, name: h.clientName },
    job: {
      id: h.job.id,
      title: h.job.title,
      state: h.job.state,
      priority: h.job.priority,
      asset: h.assetName,
      templateId: h.job.template_id,
      versionId: h.job.version_id,
      createdBy: person(h.job.created_by),
      createdAt: h.job.created_at,
      startedAt: h.job.started_at,
      completedAt: h.job.completed_at,
      dueAt: h.job.due_at,
      cancelReason: h.job.cancel_reason,
      members: h.members.map((m) => ({ kind: m.kind, user: person(m.user_id), stepId: m.step_id || null })),
    },
    instruction: {
      templateId: h.version.template_id,
      templateTitle: h.template?.title ?? null,
      versionId: h.version.id,
      versionNumber: h.version.number,
      state: h.version.state,
      approvedAt: h.version.approved_at,
      publishedAt: h.version.published_at,
      content: h.version.content,
      contentHash: h.version.content_hash,
      signatures: h.signatures.map((s) => ({
        meaning: s.meaning,
        signer: { id: s.signer_id, name: s.signer_name, email: s.signer_email },
        method: s.method,
        contentHash: s.content_hash,
        signedAt: s.signed_at,
      })),
    },
    steps,
    signoffs: h.stepSignatures.map((s) => ({
      stepId: s.step_id,
      meaning: s.meaning,
      signer: { id: s.signer_id, name: s.signer_name, email: s.signer_email },
      method: s.method,
      valuesHash: s.values_hash,
      signedAt: s.signed_at,
      invalidatedAt: s.invalidated_at,
    })),
    deviations: deviationsOf(steps),
    recordedDeviations: h.deviations.map((d) => ({
      id: d.id,
      kind: d.kind,
      stepId: d.step_id,
      fieldKey: d.field_key,
      value: d.value === null ? null : (JSON.parse(d.value) as unknown),
      detail: d.detail,
      raisedAt: d.raised_at,
      comment: d.ack_comment,
      acknowledgedBy: d.acknowledged_by_name,
      acknowledgedAt: d.acknowledged_at,
    })),
    review: h.review && {
      meaning: 'REVIEWED' as const,
      signer: { id: h.review.signer_id, name: h.review.signer_name, email: h.review.signer_email },
      method: h.review.method,
      comment: h.review.comment,
      deviationsHash: h.review.deviations_hash,
      signedAt: h.review.signed_at,
    },
    handOffs: h.handOffs.map((o) => ({
      id: o.id,
      from: person(o.from_user_id),
      to: person(o.to_user_id),
      status: o.status,
      note: o.note || null,
      createdAt: o.created_at,
      decidedAt: o.decided_at,
    })),
    faults: h.faults.map((f) => ({
      id: f.id,
      stepId: f.step_id,
      severity: f.severity,
      state: f.state,
      description: f.description,
      photos: JSON.parse(f.photos) as number[],
      raisedBy: person(f.raised_by),
      raisedAt: f.raised_at,
      capturedAt: f.captured_at,
      closedBy: f.closed_by == null ? null : person(f.closed_by),
      closedAt: f.closed_at,
      closeNote: f.close_note,
    })),
    files: described
      .map((f) => ({ id: f.id, role: roles.get(f.id)!, name: f.name, contentType: f.contentType, size: f.size, sha256: f.sha256 }))
      .sort((a, b) => a.id - b.id),
    audit: {
      clientId: actor.scope.clientId,
      entries: slice.map((row) => sliceEntry(row, about)),
      chainHead: head,
      checkpoint: checkpoint ? checkpointFile(checkpoint) : null,
    },
  };
}

async function readAll(stream: AsyncIterable<unknown>, budget: { left: number }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    budget.left -= (chunk as Buffer).length;
    if (budget.left < 0)
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The job's photos exceed ${MAX_ATTACHED_BYTES / 1024 / 1024} MB: download the bundle without photos (the bundle keeps their hashes)`,
      );
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The record bundle of a finished job, as the JSON text of the file.
 * @throws AppError NOT_FOUND (also another client's job), JOB_NOT_FINISHED, PAYLOAD_TOO_LARGE (photos beyond MAX_ATTACHED_BYTES)
 */
export async function recordBundle(
  deps: Deps,
  files: PackageFiles,
  actor: UserActor,
  jobId: number,
  options: { photos?: boolean } = {},
): Promise<{ fileName: string; text: string; kid: string }> {
  const h = await loadJobHistory(deps, actor, jobId);
  if (!FINISHED.has(h.job.state)) {
    throw new AppError(
      'JOB_NOT_FINISHED',
      `Job ${jobId} is ${h.job.state}: a record bundle is made of a completed (or cancelled) job, when nothing more can be recorded on it`,
      { jobId, state: h.job.state },
    );
  }
  const payload = await recordPayload(deps, files, actor, h);
  const { jws, kid } = await signWithApplianceKey(deps, canonicalJson(payload), RECORD_TYP);
  const bundle: BundleFile = {
    format: BUNDLE_FORMAT,
    formatVersion: BUNDLE_FORMAT_VERSION,
    jws: { protected: jws.protected!, payload: jws.payload, signature: jws.signature },
  };
  // a bundle is a read: an unreachable authority leaves it without a token, never without the bundle
  const stamp = await timestampSignature(deps, jws.signature);
  if (stamp && 'token' in stamp) bundle.timestamp = stamp;
  if (options.photos) {
    const budget = { left: MAX_ATTACHED_BYTES };
    bundle.attachments = [];
    for (const file of payload.files) {
      bundle.attachments.push({
        fileId: file.id,
        data: (await readAll(await files.open(actor.scope, file.id), budget)).toString('base64'),
      });
    }
  }
  return { fileName: `job-${jobId}-record.json`, text: JSON.stringify(bundle, null, 1) + '\n', kid };
}
