import { calculateJwkThumbprint, decodeProtectedHeader, exportJWK, flattenedVerify, importJWK, importSPKI, type JWK } from 'jose';
import type { z } from 'zod';
import { canonicalJson } from '#lib/canonical-json';
import {
  BUNDLE_FORMAT,
  BundleFile,
  CHECKPOINT_TYP,
  CheckpointFile,
  CheckpointPayload,
  RECORD_TYP,
  RecordPayload,
  type FlattenedJwsShape,
  type FullAuditEntry,
} from '#lib/record-bundle-format';
import { sha256Hex } from '#lib/sha256';
import { stepValuesHash } from '#lib/step-values-hash';
import { applicability, type ConditionalDocument } from './applicability';
import { verifyTimestampToken, type TimestampInfo } from '#lib/timestamp-token';

/**
 * The record bundle verifier. One implementation for every place a
 * bundle is checked: `wip verify-bundle` (Node) and the static verifier page
 * (the browser). It uses only what both have — WebCrypto (SHA-256; Ed25519
 * through jose) and plain JavaScript — and never throws on what it is given:
 * anything malformed is a problem named in the answer, so a fuzzed or hostile
 * file gets a clear refusal, never a crash.
 *
 * It checks everything it can and names every problem, not just the first,
 * so an auditor learns exactly what is wrong.
 */

/** Keys the verifier trusts: a published key set (JWKS), and/or fingerprints (RFC 7638 thumbprints) noted from the appliance. */
export interface TrustedKeys {
  keys?: readonly (JWK & { kid?: string })[];
  fingerprints?: readonly string[];
  /** SHA-256 (hex) of the DER certificates of the time-stamping authorities trusted; absent: any authority whose token verifies (named in the answer) */
  tsaCertificates?: readonly string[];
}

/**
 * The answer in one word. VERIFIED: nothing is wrong and the signing key is
 * one the caller trusts (given as a key, a fingerprint or the appliance's key
 * set). INTEGRITY_ONLY: nothing is wrong, but no trusted key was given, so the
 * signature only proves the file matches the key it carries itself — a forger
 * who rewrites the record and re-signs it with their own key gets the same
 * answer: origin not verified. NOT_VERIFIED: something is wrong.
 */
export type Verdict = 'VERIFIED' | 'INTEGRITY_ONLY' | 'NOT_VERIFIED';

export interface Verification {
  /** the verdict is VERIFIED: intact AND signed by a trusted key (what a script may rely on) */
  ok: boolean;
  verdict: Verdict;
  /** no problem found (the verdict is VERIFIED or INTEGRITY_ONLY) */
  intact: boolean;
  /** what is wrong, each naming the part of the record */
  problems: string[];
  /** what was checked, and what could not be (e.g. no trusted key given) */
  notes: string[];
  signer: { kid: string; trusted: boolean | null } | null;
  summary: {
    clientName: string;
    jobId: number;
    jobTitle: string;
    jobState: string;
    template: string;
    versionNumber: number;
    issuedAt: string;
    steps: number;
    signoffs: number;
    faults: number;
    files: number;
    attachments: number;
    auditEntries: number;
  } | null;
  timestamp: TimestampInfo | null;
}

export { sha256Hex };

export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function base64UrlToText(text: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url');
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  return new TextDecoder('utf-8', { fatal: true }).decode(base64ToBytes(padded));
}

const describeIssues = (issues: readonly { path: readonly PropertyKey[]; message: string }[], max = 5): string =>
  issues
    .slice(0, max)
    .map((i) => `${i.path.map(String).join('.') || '(top level)'}: ${i.message}`)
    .join('; ') + (issues.length > max ? `; and ${issues.length - max} more` : '');

interface SignatureCheck {
  kid: string | null;
  trusted: boolean | null;
  problems: string[];
  notes: string[];
}

/**
 * Checks a flattened JWS: the header (alg EdDSA, the expected typ, a kid that
 * is the thumbprint of the embedded public key), whether that key is trusted,
 * and the signature itself. The signature is checked with the trusted key of
 * that kid when one is given, else with the embedded key (integrity only).
 */
async function checkJws(jws: FlattenedJwsShape, typ: string, what: string, trusted: TrustedKeys | undefined): Promise<SignatureCheck> {
  const problems: string[] = [];
  const notes: string[] = [];
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jws);
  } catch {
    return { kid: null, trusted: null, problems: [`${what}: the signature's protected header is not readable`], notes };
  }
  if (header.alg !== 'EdDSA' && header.alg !== 'Ed25519')
    problems.push(`${what}: signed with algorithm ${String(header.alg)}, not EdDSA (Ed25519)`);
  if (header.typ !== typ) problems.push(`${what}: the signature is of a "${String(header.typ)}", not a "${typ}"`);
  const kid = typeof header.kid === 'string' ? header.kid : null;
  const embedded = header.jwk;
  if (!kid) problems.push(`${what}: the signature names no key (kid)`);
  let embeddedOk = false;
  if (!embedded || embedded.kty !== 'OKP' || embedded.crv !== 'Ed25519' || typeof embedded.x !== 'string') {
    problems.push(`${what}: the signature carries no Ed25519 public key (jwk)`);
  } else if (kid) {
    const thumbprint = await calculateJwkThumbprint({ kty: embedded.kty, crv: embedded.crv, x: embedded.x }, 'sha256').catch(() => null);
    if (thumbprint !== kid)
      problems.push(`${what}: the public key in the header is not key ${kid} (its fingerprint is ${thumbprint ?? 'unreadable'})`);
    else embeddedOk = true;
  }
  let verifyWith: JWK | undefined = embeddedOk ? embedded : undefined;
  let isTrusted: boolean | null = null;
  if (trusted && ((trusted.keys?.length ?? 0) > 0 || (trusted.fingerprints?.length ?? 0) > 0)) {
    const fromSet = trusted.keys?.find((k) => k.kid === kid);
    const byFingerprint = kid !== null && (trusted.fingerprints ?? []).includes(kid);
    isTrusted = Boolean(fromSet) || byFingerprint;
    if (fromSet) verifyWith = { kty: fromSet.kty, crv: fromSet.crv, x: fromSet.x };
    if (!isTrusted) {
      const known = [...(trusted.keys ?? []).map((k) => String(k.kid)), ...(trusted.fingerprints ?? [])];
      problems.push(
        `${what}: signed by key ${kid ?? '(none)'}, which is not a trusted key of this appliance (trusted: ${known.join(', ')}): it was signed, or re-signed, by someone else`,
      );
    }
  } else if (kid) {
    notes.push(
      `${what}: signed by key ${kid}; no trusted key was given, so compare this fingerprint with the one the appliance publishes (/.well-known/wip-signing-keys.json, wip doctor, the console)`,
    );
  }
  if (verifyWith) {
    try {
      const key = await importJWK({ kty: 'OKP', crv: 'Ed25519', x: verifyWith.x }, 'EdDSA');
      await flattenedVerify({ protected: jws.protected, payload: jws.payload, signature: jws.signature }, key, {
        algorithms: ['EdDSA', 'Ed25519'],
      });
      if (isTrusted) notes.push(`${what}: a valid Ed25519 signature of trusted key ${kid}`);
    } catch {
      problems.push(
        `${what}: the signature does not verify: the signed content was altered after signing, or the signature is not key ${kid ?? '?'}'s`,
      );
    }
  }
  return { kid, trusted: isTrusted, problems, notes };
}

function decodePayload<T>(jws: FlattenedJwsShape, schema: z.ZodType<T>, what: string): { value?: T; problem?: string } {
  let json: unknown;
  try {
    json = JSON.parse(base64UrlToText(jws.payload));
  } catch {
    return { problem: `${what}: the signed payload is not base64url-encoded JSON` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    return { problem: `${what}: the signed payload is not in the expected form (${describeIssues(parsed.error.issues)})` };
  return { value: parsed.data };
}

/** Checks an audit checkpoint (exported file, or inside a bundle). */
export async function verifyCheckpointFile(
  input: unknown,
  trusted?: TrustedKeys,
): Promise<{
  payload: CheckpointPayload | null;
  kid: string | null;
  problems: string[];
  notes: string[];
  timestamp: TimestampInfo | null;
}> {
  const file = CheckpointFile.safeParse(input);
  if (!file.success)
    return {
      payload: null,
      kid: null,
      problems: [`not a wip audit checkpoint (${describeIssues(file.error.issues)})`],
      notes: [],
      timestamp: null,
    };
  const signature = await checkJws(file.data.jws, CHECKPOINT_TYP, 'checkpoint', trusted);
  const decoded = decodePayload(file.data.jws, CheckpointPayload, 'checkpoint');
  const problems = [...signature.problems, ...(decoded.problem ? [decoded.problem] : [])];
  let timestamp: TimestampInfo | null = null;
  if (file.data.timestamp) {
    const stamp = await verifyTimestampToken(file.data.timestamp.token, file.data.jws.signature, {
      trustedCertificateSha256: trusted?.tsaCertificates,
    });
    if (stamp.ok) timestamp = stamp.info;
    else problems.push(`checkpoint timestamp: ${stamp.problem}`);
  }
  return { payload: decoded.value ?? null, kid: signature.kid, problems, notes: signature.notes, timestamp };
}

const FILE_FIELD_ROLES: Record<string, 'photo' | 'signature'> = { PHOTO: 'photo', SIGNATURE: 'signature' };

/**
 * Step records as the audit trail's job.step_recorded entries snapshot them (presentStepRecord). Records made since
 * capture times came in snapshot their capture and receipt times and revision too (`recorded` has them): those are compared as well.
 */
function recordSnapshot(step: RecordPayload['steps'][number], recorded: Record<string, unknown>): string {
  const since39 = Object.fromEntries(
    (['capturedAt', 'receivedAt', 'revision'] as const).filter((key) => key in recorded).map((key) => [key, step[key] ?? null]),
  );
  return canonicalJson({
    ...since39,
    stepId: step.stepId,
    status: step.status,
    values: step.values.map((v) => ({
      key: v.key,
      value: v.value,
      outOfLimits: v.outOfLimits,
      ...(v.readingId !== undefined && { readingId: v.readingId }),
      ...(v.error !== undefined && { error: v.error }),
    })),
    comment: step.comment,
    reason: step.reason,
    recordedById: step.recordedById,
    recordedAt: step.recordedAt,
  });
}

/**
 * A version 2 record carries both times of every step (docs/records.md). The receipt time is recordedAt; a step recorded
 * before capture times existed (its audit snapshot has none) was captured when received: any other capture time in the
 * record is one the chain never recorded.
 */
function captureTimeProblems(version: number, step: RecordPayload['steps'][number], chainHasCapture: boolean): string[] {
  const where = `step "${step.title}" (${step.stepId})`;
  if (version < 2) return [];
  if (step.capturedAt === undefined || step.receivedAt === undefined || step.revision === undefined)
    return [`${where}: a version ${version} record lacks the step's capturedAt, receivedAt or revision`];
  if (step.receivedAt !== step.recordedAt) return [`${where}: receivedAt differs from recordedAt: the record was altered`];
  if (!chainHasCapture && step.capturedAt !== step.receivedAt)
    return [`${where}: a capture time the audit chain never recorded (the step was recorded before capture times): the record was altered`];
  return [];
}

async function checkAudit(record: RecordPayload, problems: string[], notes: string[]): Promise<Map<number, string>> {
  const { entries, chainHead, clientId } = record.audit;
  const hashes = new Map<number, string>();
  const found = problems.length;
  if (clientId !== record.client.id)
    problems.push(`audit: the chain slice is of client ${clientId}, the record of client ${record.client.id}`);
  if (entries.length === 0) {
    problems.push("audit: the record carries no audit entries: the job's history cannot be checked against the chain");
    return hashes;
  }
  let previous: { seq: number; hash: string } | null = null;
  for (const entry of entries) {
    if (previous && entry.seq !== previous.seq + 1) {
      problems.push(
        `audit: entry ${previous.seq + 1} is missing from the chain slice (entry ${entry.seq} follows entry ${previous.seq}): entries were removed`,
      );
    } else if (previous && entry.prevHash !== previous.hash) {
      problems.push(`audit: entry ${entry.seq} does not link to entry ${previous.seq}: entries were removed, inserted or replaced`);
    }
    if (!('elided' in entry)) {
      const full = entry;
      const recomputed = await sha256Hex(
        canonicalJson({
          clientId,
          seq: full.seq,
          actorUserId: full.actorUserId,
          actor: full.actor,
          action: full.action,
          entityType: full.entityType,
          entityId: full.entityId,
          before: full.before,
          after: full.after,
          at: full.at,
          prevHash: full.prevHash,
        }),
      );
      if (recomputed !== full.hash) problems.push(`audit: entry ${full.seq} (${full.action}) does not match its hash: it was edited`);
    }
    hashes.set(entry.seq, entry.hash);
    previous = { seq: entry.seq, hash: entry.hash };
  }
  const last = entries[entries.length - 1];
  if (last.seq > chainHead.seq)
    problems.push(`audit: the slice ends at entry ${last.seq}, after the chain head it claims (${chainHead.seq})`);
  if (last.seq === chainHead.seq && last.hash !== chainHead.hash)
    problems.push(`audit: the last entry is not the chain head the record claims`);
  hashes.set(chainHead.seq, hashes.get(chainHead.seq) ?? chainHead.hash);
  if (problems.length === found)
    notes.push(
      `audit: entries ${entries[0].seq} to ${last.seq} of client ${clientId}'s chain link up (chain head then: entry ${chainHead.seq})`,
    );

  // the record's step sign-offs must be what the chain recorded
  const full = entries.filter((e): e is FullAuditEntry => !('elided' in e));
  if (!full.some((e) => e.action === 'job.created' && e.entityType === 'job' && e.entityId === String(record.job.id))) {
    notes.push('audit: the job.created entry is not in the slice');
  }
  for (const step of record.steps) {
    let snapshot: string | null = null;
    let recorded: Record<string, unknown> = {};
    let at: number | null = null;
    for (const e of full) {
      if (e.action !== 'job.step_recorded' || e.entityType !== 'job' || e.entityId !== String(record.job.id) || !e.after) continue;
      try {
        const after = JSON.parse(e.after) as { record?: { stepId?: string } };
        if (after.record?.stepId === step.stepId) {
          snapshot = canonicalJson(after.record);
          recorded = after.record;
          at = e.seq;
        }
      } catch {
        problems.push(`audit: entry ${e.seq}'s snapshot is not JSON`);
      }
    }
    if (snapshot === null) problems.push(`step "${step.title}" (${step.stepId}): no job.step_recorded entry in the audit slice records it`);
    else if (snapshot !== recordSnapshot(step, recorded))
      problems.push(
        `step "${step.title}" (${step.stepId}): the recorded values, status or sign-off differ from what audit entry ${at} recorded: the record was altered`,
      );
    else problems.push(...captureTimeProblems(record.version, step, 'capturedAt' in recorded));
  }
  return hashes;
}

async function checkInstruction(record: RecordPayload, problems: string[], notes: string[]): Promise<void> {
  const { instruction, job } = record;
  const found = problems.length;
  if ((await sha256Hex(instruction.content)) !== instruction.contentHash)
    problems.push(`instruction: the version content does not match its hash: the version content was edited`);
  if (job.versionId !== instruction.versionId || job.templateId !== instruction.templateId) {
    problems.push(
      `instruction: the job ran version ${job.versionId} of template ${job.templateId}, the record carries version ${instruction.versionId} of template ${instruction.templateId}`,
    );
  }
  for (const meaning of ['APPROVED', 'PUBLISHED']) {
    const signatures = instruction.signatures.filter((s) => s.meaning === meaning);
    if (signatures.length === 0) {
      problems.push(
        `instruction: the version carries no ${meaning} signature: the recorded version is not the ${meaning.toLowerCase()} one`,
      );
      continue;
    }
    for (const s of signatures) {
      if (s.contentHash !== instruction.contentHash) {
        problems.push(
          `instruction: the ${meaning} signature of ${s.signer.email} signed other content (${s.contentHash.slice(0, 16)}…): the recorded version is not the ${meaning.toLowerCase()} one`,
        );
      }
    }
  }
  const approved = instruction.signatures.find((s) => s.meaning === 'APPROVED');
  // the job's creation (server time) rather than its start: startedAt is a device's capture time (record version 2),
  // trusted within a skew that may put it a little before the creation (docs/records.md)
  const created = job.createdAt;
  if (approved && created && approved.signedAt > created)
    problems.push(`instruction: the version was approved (${approved.signedAt}) after the job was created (${created})`);
  try {
    JSON.parse(instruction.content);
  } catch {
    problems.push('instruction: the version content is not JSON');
  }
  if (problems.length === found)
    notes.push(
      `instruction: version ${instruction.versionNumber} content matches ${instruction.contentHash}, approved and published over that hash`,
    );
}

async function checkFiles(
  record: RecordPayload,
  attachments: BundleFile['attachments'],
  problems: string[],
  notes: string[],
): Promise<void> {
  const files = new Map(record.files.map((f) => [f.id, f]));
  let contentFields: Map<string, Map<string, string>> | null = null;
  try {
    const content = JSON.parse(record.instruction.content) as {
      sections?: { steps?: { id?: string; fields?: { key?: string; type?: string }[] }[] }[];
    };
    contentFields = new Map();
    for (const section of content.sections ?? [])
      for (const step of section.steps ?? [])
        contentFields.set(String(step.id), new Map((step.fields ?? []).map((f) => [String(f.key), String(f.type)])));
  } catch {
    // named by checkInstruction
  }
  const expect = (id: unknown, role: 'photo' | 'signature' | 'fault-photo', where: string) => {
    if (typeof id !== 'number') {
      problems.push(`${where}: ${JSON.stringify(id)} is not a file id`);
      return;
    }
    const file = files.get(id);
    if (!file) problems.push(`${where}: file ${id} is not among the record's files (its hash is missing)`);
    else if (file.role !== role && !(role === 'fault-photo' && file.role === 'photo'))
      problems.push(`${where}: file ${id} is listed as a ${file.role}, not a ${role}`);
  };
  for (const step of record.steps) {
    for (const v of step.values) {
      const type = contentFields?.get(step.stepId)?.get(v.key) ?? v.type;
      const role = FILE_FIELD_ROLES[type];
      if (!role) continue;
      for (const id of Array.isArray(v.value) ? v.value : [v.value]) expect(id, role, `step "${step.title}" field ${v.key}`);
    }
  }
  for (const fault of record.faults) for (const id of fault.photos) expect(id, 'fault-photo', `fault ${fault.id}`);
  const seen = new Set<number>();
  for (const attachment of attachments ?? []) {
    const file = files.get(attachment.fileId);
    if (!file) {
      problems.push(`attachment: file ${attachment.fileId} is not a file of the signed record`);
      continue;
    }
    if (seen.has(attachment.fileId)) problems.push(`attachment: file ${attachment.fileId} is included twice`);
    seen.add(attachment.fileId);
    let bytes: Uint8Array;
    try {
      bytes = base64ToBytes(attachment.data);
    } catch {
      problems.push(`attachment: ${file.role} ${file.id} (${file.name}) is not base64`);
      continue;
    }
    if ((await sha256Hex(bytes)) !== file.sha256 || bytes.length !== file.size) {
      problems.push(
        `attachment: ${file.role} ${file.id} (${file.name}) does not match its hash in the record: the ${file.role} was swapped or altered`,
      );
    }
  }
  if (attachments?.length) notes.push(`files: ${seen.size} of ${record.files.length} included files checked against their SHA-256`);
  else notes.push(`files: no file included; the record holds the SHA-256 of its ${record.files.length} files`);
}

/** What the sign-off check reads of the version's content (the stored canonical JSON of domain/content.ts's Content). */
type SignoffDocument = ConditionalDocument & {
  sections: readonly {
    steps: readonly { id: string; title: string; signoff?: { performer?: boolean; verifier?: { roles?: string[] } | null } | null }[];
  }[];
};

type Signoff = NonNullable<RecordPayload['signoffs']>[number];
type SignoffSteps = SignoffDocument['sections'][number]['steps'];
/** Array.isArray narrows to any[]; the bundle is untrusted JSON, so the check stays and this keeps the type */
const isStepList = (value: unknown): value is SignoffSteps => Array.isArray(value);
const signoffName = (s: Signoff) => `the ${s.meaning} sign-off of ${s.signer.name || '(no name)'} <${s.signer.email}> (${s.signedAt})`;

/**
 * Step sign-offs: each valid one must have signed the step's
 * values as the record carries them (the hash recomputed with the server's
 * own function, lib/step-values-hash.ts); every sign-off the version requires
 * of a step that applies must be there and valid; and the sign-offs must be
 * the ones the audit chain recorded (job.step_signed), none stripped or added.
 */
async function checkSignoffs(record: RecordPayload, problems: string[], notes: string[]): Promise<void> {
  const found = problems.length;
  const signoffs = record.signoffs ?? [];
  const steps = new Map(record.steps.map((s) => [s.stepId, s]));
  const label = (stepId: string) => {
    const step = steps.get(stepId);
    return step ? `step "${step.title}" (${stepId})` : `step ${stepId}`;
  };
  for (const s of signoffs) {
    if (s.invalidatedAt !== null) continue;
    const step = steps.get(s.stepId);
    if (!step) {
      problems.push(`${label(s.stepId)}: ${signoffName(s)} signs a step the record has no values of`);
      continue;
    }
    const hash = await stepValuesHash({ stepId: step.stepId, status: step.status, values: step.values, comment: step.comment });
    if (hash !== s.valuesHash) {
      problems.push(
        `${label(s.stepId)}: ${signoffName(s)} signed values hashing to ${s.valuesHash.slice(0, 16)}…, the record's values of the step hash to ${hash.slice(0, 16)}…: the values were changed after signing, or the sign-off was altered`,
      );
    }
  }

  // what the version requires, of the steps that apply given the recorded values
  let content: SignoffDocument | null = null;
  try {
    const parsed = JSON.parse(record.instruction.content) as SignoffDocument;
    if (parsed && Array.isArray(parsed.sections)) content = parsed;
  } catch {
    // named by checkInstruction
  }
  if (content) {
    const views = new Map(record.steps.map((s) => [s.stepId, { status: s.status as never, values: s.values }]));
    let applies: Map<string, boolean> | null = null;
    try {
      applies = new Map(applicability(content, views).map((a) => [a.stepId, a.applies]));
    } catch {
      problems.push("sign-offs: the version's step conditions cannot be evaluated: which sign-offs it requires is unknown");
    }
    for (const section of content.sections) {
      for (const step of isStepList(section?.steps) ? section.steps : []) {
        const wants = step?.signoff;
        if (!wants || !applies || applies.get(step.id) === false) continue;
        const required: { meaning: Signoff['meaning']; who: string }[] = [];
        if (wants.performer) required.push({ meaning: 'PERFORMED', who: 'by the person who performed it' });
        if (wants.verifier)
          required.push({
            meaning: 'VERIFIED',
            who: `by another person holding ${(wants.verifier.roles ?? []).join(' or ') || 'a verifier role'}`,
          });
        for (const { meaning, who } of required) {
          const of = signoffs.filter((s) => s.stepId === step.id && s.meaning === meaning);
          if (of.some((s) => s.invalidatedAt === null)) continue;
          const name = steps.get(step.id) ? label(step.id) : `step "${String(step.title)}" (${String(step.id)})`;
          problems.push(
            of.length > 0
              ? `${name}: the version requires a ${meaning} sign-off ${who}; the record carries only invalidated ones (${of.map((s) => `${s.signer.email}, voided ${s.invalidatedAt}`).join('; ')})`
              : `${name}: the version requires a ${meaning} sign-off ${who}; the record carries none: a sign-off was removed, or the job completed without it`,
          );
        }
      }
    }
  }

  // the chain recorded every signing: the record must carry each, as signed
  if (record.signoffs) {
    const jobId = String(record.job.id);
    const signed = record.audit.entries.filter(
      (e): e is FullAuditEntry =>
        !('elided' in e) && e.action === 'job.step_signed' && e.entityType === 'job' && e.entityId === jobId && e.after !== null,
    );
    const matched = new Set<Signoff>();
    for (const e of signed) {
      let after: { stepId?: unknown; meaning?: unknown; valuesHash?: unknown; signerName?: unknown };
      try {
        after = JSON.parse(e.after!) as typeof after;
      } catch {
        continue; // named by checkAudit
      }
      const match = signoffs.find(
        (s) => !matched.has(s) && s.stepId === after.stepId && s.meaning === after.meaning && s.valuesHash === after.valuesHash,
      );
      if (match) matched.add(match);
      else
        problems.push(
          `${label(String(after.stepId))}: audit entry ${e.seq} records a ${String(after.meaning)} sign-off of ${String(after.signerName)} over values ${String(after.valuesHash).slice(0, 16)}… that the record does not carry: a sign-off was stripped or altered`,
        );
    }
    for (const s of signoffs)
      if (!matched.has(s))
        problems.push(
          `${label(s.stepId)}: ${signoffName(s)} over values ${s.valuesHash.slice(0, 16)}… is not in the audit chain: the sign-off was added or altered`,
        );
  } else {
    notes.push('sign-offs: the bundle was made before step sign-offs were recorded in bundles: it carries none');
  }
  if (problems.length === found && signoffs.length > 0) {
    const valid = signoffs.filter((s) => s.invalidatedAt === null).length;
    notes.push(
      `sign-offs: ${valid} valid sign-off(s) match the recorded values${signoffs.length > valid ? ` (${signoffs.length - valid} invalidated, kept as history)` : ''}; every sign-off the version requires is there; all are in the audit chain`,
    );
  }
}

async function checkEmbeddedCheckpoint(
  record: RecordPayload,
  hashes: Map<number, string>,
  trusted: TrustedKeys | undefined,
  problems: string[],
  notes: string[],
): Promise<void> {
  const file = record.audit.checkpoint;
  if (!file) return;
  const checked = await verifyCheckpointFile(file, trusted);
  problems.push(...checked.problems.map((p) => `audit: ${p}`));
  if (!checked.payload) return;
  const { seq, hash, clientId, at } = checked.payload;
  if (clientId !== record.audit.clientId) problems.push(`audit: the checkpoint is of client ${clientId}'s chain`);
  const known = hashes.get(seq);
  if (known !== undefined && known !== hash)
    problems.push(`audit: entry ${seq} is not the entry the checkpoint of ${at} signed: the chain was rewritten`);
  if (seq > record.audit.chainHead.seq)
    problems.push(
      `audit: the checkpoint of ${at} covers entry ${seq}, beyond the chain head the record claims (${record.audit.chainHead.seq}): the chain was cut short`,
    );
  notes.push(`audit: carries the checkpoint of ${at} (entry ${seq}, ${hash.slice(0, 16)}…): keep it to detect a later truncation`);
}

/**
 * Verifies a record bundle given as the file's text (or already parsed).
 * `trusted`: the appliance's published keys (or noted fingerprints); without
 * them the signature is checked with the key the bundle carries, which proves
 * integrity but not origin: the verdict is then INTEGRITY_ONLY, never VERIFIED.
 */
export async function verifyRecordBundle(input: unknown, trusted?: TrustedKeys): Promise<Verification> {
  const problems: string[] = [];
  const notes: string[] = [];
  const refuse = (problem: string): Verification => ({
    ...verdictOf([problem], null),
    problems: [problem],
    notes,
    signer: null,
    summary: null,
    timestamp: null,
  });
  try {
    let json: unknown = input;
    if (typeof input === 'string') {
      try {
        json = JSON.parse(input);
      } catch {
        return refuse('not a record bundle: the file is not JSON');
      }
    }
    if (!json || typeof json !== 'object' || Array.isArray(json)) return refuse('not a record bundle: the file is not a JSON object');
    const raw = json as Record<string, unknown>;
    if (raw.format !== BUNDLE_FORMAT)
      return refuse(`not a record bundle: "format" is ${JSON.stringify(raw.format) ?? 'missing'}, not "${BUNDLE_FORMAT}"`);
    if (raw.formatVersion !== 1)
      return refuse(`unsupported record bundle version ${JSON.stringify(raw.formatVersion) ?? '(missing)'}: this verifier reads version 1`);
    const jws = raw.jws as Record<string, unknown> | undefined;
    if (!jws || typeof jws !== 'object' || typeof jws.signature !== 'string' || jws.signature === '')
      return refuse('the bundle is not signed: its JWS signature is missing');
    const parsed = BundleFile.safeParse(json);
    if (!parsed.success) return refuse(`not a valid record bundle (${describeIssues(parsed.error.issues)})`);
    const bundle = parsed.data;

    const signature = await checkJws(bundle.jws, RECORD_TYP, 'signature', trusted);
    problems.push(...signature.problems);
    notes.push(...signature.notes);
    let timestamp: TimestampInfo | null = null;
    if (bundle.timestamp) {
      const stamp = await verifyTimestampToken(bundle.timestamp.token, bundle.jws.signature, {
        trustedCertificateSha256: trusted?.tsaCertificates,
      });
      if (stamp.ok) {
        timestamp = stamp.info;
        notes.push(`timestamp: the signature existed at ${stamp.info.genTime} (RFC 3161 token of ${stamp.info.tsa})`);
      } else problems.push(`timestamp: ${stamp.problem}`);
    }
    const decoded = decodePayload(bundle.jws, RecordPayload, 'record');
    if (!decoded.value) {
      problems.push(decoded.problem!);
      const signer = signature.kid ? { kid: signature.kid, trusted: signature.trusted } : null;
      return {
        ...verdictOf(problems, signer),
        problems,
        notes,
        signer,
        summary: null,
        timestamp,
      };
    }
    const record = decoded.value;
    await checkInstruction(record, problems, notes);
    await checkFiles(record, bundle.attachments, problems, notes);
    const hashes = await checkAudit(record, problems, notes);
    await checkSignoffs(record, problems, notes);
    await checkEmbeddedCheckpoint(record, hashes, trusted, problems, notes);
    const signer = signature.kid ? { kid: signature.kid, trusted: signature.trusted } : null;
    return {
      ...verdictOf(problems, signer),
      problems,
      notes,
      signer,
      summary: {
        clientName: record.client.name,
        jobId: record.job.id,
        jobTitle: record.job.title,
        jobState: record.job.state,
        template: record.instruction.templateTitle ?? `template ${record.instruction.templateId}`,
        versionNumber: record.instruction.versionNumber,
        issuedAt: record.issuedAt,
        steps: record.steps.length,
        signoffs: record.signoffs?.length ?? 0,
        faults: record.faults.length,
        files: record.files.length,
        attachments: bundle.attachments?.length ?? 0,
        auditEntries: record.audit.entries.length,
      },
      timestamp,
    };
  } catch (error) {
    // a bug or an input no check foresaw: still a refusal, never a crash
    return refuse(`the verifier could not read the bundle: ${(error as Error)?.message ?? String(error)}`);
  }
}

/** The verdict from what was found: trust is only ever a key the caller gave (never the key the bundle carries). */
function verdictOf(problems: readonly string[], signer: Verification['signer']): Pick<Verification, 'ok' | 'verdict' | 'intact'> {
  const intact = problems.length === 0;
  const verdict: Verdict = !intact ? 'NOT_VERIFIED' : signer?.trusted === true ? 'VERIFIED' : 'INTEGRITY_ONLY';
  return { ok: verdict === 'VERIFIED', verdict, intact };
}

/** The verdict's line for a person: the CLI and the verifier page print the same words. */
export function verdictLine(result: Pick<Verification, 'verdict' | 'problems'>): string {
  if (result.verdict === 'VERIFIED') return 'VERIFIED: the record is intact and signed by a trusted key';
  if (result.verdict === 'INTEGRITY_ONLY')
    return 'INTEGRITY ONLY — origin not verified: the record matches the key it carries, but no trusted key was given, so anyone could have signed it';
  return `NOT VERIFIED: ${result.problems.length} problem(s)`;
}

/** Reads trusted keys from text: a JWKS ({keys:[…]}), one JWK, an SPKI PEM public key, or fingerprints (one per line). */
export async function parseTrustedKeys(text: string): Promise<TrustedKeys> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const value = JSON.parse(trimmed) as { keys?: JWK[] } & JWK;
    const keys = Array.isArray(value.keys) ? value.keys : [value];
    const out: (JWK & { kid: string })[] = [];
    for (const k of keys) {
      if (k.kty !== 'OKP' || k.crv !== 'Ed25519' || typeof k.x !== 'string') continue;
      out.push({ kty: 'OKP', crv: 'Ed25519', x: k.x, kid: await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: k.x }, 'sha256') });
    }
    if (out.length === 0) throw new Error('no Ed25519 key in the key file');
    return { keys: out };
  }
  if (trimmed.startsWith('-----BEGIN PUBLIC KEY-----')) {
    const jwk = await exportJWK(await importSPKI(trimmed, 'EdDSA', { extractable: true }));
    if (jwk.crv !== 'Ed25519' || !jwk.x) throw new Error('the PEM key is not an Ed25519 public key');
    return {
      keys: [
        { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: jwk.x }, 'sha256') },
      ],
    };
  }
  const fingerprints = trimmed.split(/\s+/).filter(Boolean);
  if (fingerprints.length === 0 || fingerprints.some((f) => !/^[A-Za-z0-9_-]{43}$/.test(f))) {
    throw new Error('not a key: give a key set (JWKS) or JWK file, a PEM public key, or a fingerprint (43 base64url characters)');
  }
  return { fingerprints };
}
