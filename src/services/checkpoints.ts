import type { Deps } from '#deps';
import type { AuditCheckpointRow } from '#db/schema';
import { notFound } from '#errors';
import { canonicalJson } from '#lib/canonical-json';
import { CHECKPOINT_TYP, type CheckpointFile, type CheckpointPayload } from '#lib/record-bundle-format';
import { verifyCheckpointFile, type TrustedKeys } from '#domain/record-verify';
import { auditedClientIds, GENESIS_HASH } from '#repos/audit';
import { entryAtSeq, findAuditHead, insertCheckpoint, latestCheckpoint, listCheckpoints } from '#repos/audit-checkpoints';
import { findClientById } from '#repos/clients';
import { signingKeySet, signWithApplianceKey } from './signing-keys';
import { timestampSignature } from './timestamps';

/**
 * Chain checkpoints: the appliance signs each client's audit chain
 * head — daily (the daemon's maintenance round) and on demand (`wip audit
 * checkpoint`). Whoever holds a checkpoint (exported, printed, or inside a
 * record bundle) can later show that the chain was cut short (it no longer
 * reaches the checkpoint's seq) or rewritten (the entry at that seq has
 * another hash): both would otherwise leave a chain that verifies on its own.
 */

export function checkpointFile(row: AuditCheckpointRow): CheckpointFile {
  return {
    format: 'wip-audit-checkpoint',
    formatVersion: 1,
    jws: JSON.parse(row.jws) as CheckpointFile['jws'],
    ...(row.timestamp_token ? { timestamp: { token: row.timestamp_token } } : {}),
  };
}

export interface CheckpointSummary {
  id: number;
  clientId: number;
  seq: number;
  hash: string;
  kid: string;
  createdAt: string;
  timestamped: boolean;
}

const summary = (row: AuditCheckpointRow): CheckpointSummary => ({
  id: row.id,
  clientId: row.client_id,
  seq: row.seq,
  hash: row.hash,
  kid: row.kid,
  createdAt: row.created_at,
  timestamped: row.timestamp_token !== null,
});

/** Signs the client's chain head now (and time-stamps it when an authority is configured; an unreachable one is retried later). */
export async function createCheckpoint(deps: Deps, clientId: number): Promise<CheckpointSummary> {
  const db = deps.db.kysely;
  const head = (await findAuditHead(db, clientId)) ?? { seq: 0, hash: GENESIS_HASH };
  const now = deps.clock.now().toISOString();
  const payload: CheckpointPayload = {
    type: 'wip-audit-checkpoint',
    version: 1,
    clientId,
    seq: head.seq,
    hash: head.hash,
    at: now,
    issuer: deps.config.publicUrl || null,
  };
  const { jws, kid } = await signWithApplianceKey(deps, canonicalJson(payload), CHECKPOINT_TYP);
  const stamp = await timestampSignature(deps, jws.signature);
  const row = await insertCheckpoint(db, {
    client_id: clientId,
    seq: head.seq,
    hash: head.hash,
    kid,
    jws: JSON.stringify({ protected: jws.protected, payload: jws.payload, signature: jws.signature }),
    timestamp_token: stamp && 'token' in stamp ? stamp.token : null,
    timestamp_error: stamp && 'error' in stamp ? stamp.error : null,
    created_at: now,
  });
  return summary(row);
}

async function clientIds(deps: Deps, clientId?: number): Promise<number[]> {
  if (clientId === undefined) return auditedClientIds(deps.db.kysely);
  if (!(await findClientById(deps.db.kysely, clientId)) && !(await auditedClientIds(deps.db.kysely)).includes(clientId))
    throw notFound(`Client ${clientId}`);
  return [clientId];
}

/** `wip audit checkpoint`: a checkpoint of every audited client's chain (or one). An operator command, across clients by design. */
export async function checkpointChains(deps: Deps, options: { clientId?: number } = {}): Promise<CheckpointSummary[]> {
  const out: CheckpointSummary[] = [];
  for (const id of await clientIds(deps, options.clientId)) out.push(await createCheckpoint(deps, id));
  return out;
}

/** The daemon's daily round: a checkpoint of each chain whose head moved since its last one. */
export async function dailyCheckpoints(deps: Deps): Promise<number> {
  let made = 0;
  for (const id of await auditedClientIds(deps.db.kysely)) {
    const [head, last] = await Promise.all([findAuditHead(deps.db.kysely, id), latestCheckpoint(deps.db.kysely, id)]);
    if (head && last && last.seq === head.seq && last.hash === head.hash) continue;
    await createCheckpoint(deps, id);
    made++;
  }
  return made;
}

/** The newest checkpoint of a client as the exported file, or every one's summary. @throws AppError NOT_FOUND */
export async function exportCheckpoint(deps: Deps, clientId: number): Promise<CheckpointFile> {
  const row = await latestCheckpoint(deps.db.kysely, clientId);
  if (!row) throw notFound(`A checkpoint of client ${clientId} (make one with "wip audit checkpoint")`);
  return checkpointFile(row);
}

export async function listClientCheckpoints(deps: Deps, clientId: number): Promise<CheckpointSummary[]> {
  return (await listCheckpoints(deps.db.kysely, clientId)).map(summary);
}

export interface CheckpointProblem {
  clientId: number;
  checkpointId: number | null;
  seq: number;
  reason: string;
}

/**
 * Holds the live chain against checkpoints: those stored here and any given
 * (an outsider's file). Each must carry a valid signature of one of the
 * appliance's keys (retired ones included), and the chain must still have
 * the checkpoint's entry with the checkpoint's hash.
 */
export async function checkChainAgainstCheckpoints(
  deps: Deps,
  clientIds: number[],
  extra: CheckpointFile[] = [],
): Promise<CheckpointProblem[]> {
  const trusted: TrustedKeys = { keys: (await signingKeySet(deps)).keys };
  const problems: CheckpointProblem[] = [];
  const candidates: { clientId: number; id: number | null; file: CheckpointFile }[] = [];
  for (const clientId of clientIds)
    for (const row of await listCheckpoints(deps.db.kysely, clientId)) candidates.push({ clientId, id: row.id, file: checkpointFile(row) });
  for (const file of extra) candidates.push({ clientId: -1, id: null, file });
  for (const candidate of candidates) {
    const verified = await verifyCheckpointFile(candidate.file, trusted);
    if (!verified.payload) {
      problems.push({
        clientId: candidate.clientId,
        checkpointId: candidate.id,
        seq: 0,
        reason: `checkpoint unusable: ${verified.problems.join('; ')}`,
      });
      continue;
    }
    const { clientId, seq, hash } = verified.payload;
    if (verified.problems.length > 0) {
      problems.push({ clientId, checkpointId: candidate.id, seq, reason: `checkpoint at entry ${seq}: ${verified.problems.join('; ')}` });
      continue;
    }
    if (seq === 0) continue;
    const entry = await entryAtSeq(deps.db.kysely, clientId, seq);
    if (!entry) {
      problems.push({
        clientId,
        checkpointId: candidate.id,
        seq,
        reason: `the checkpoint signed on ${verified.payload.at} covers entry ${seq}, which the chain no longer has: entries were cut off its end`,
      });
    } else if (entry.hash !== hash) {
      problems.push({
        clientId,
        checkpointId: candidate.id,
        seq,
        reason: `entry ${seq} does not have the hash the checkpoint signed on ${verified.payload.at} (${hash.slice(0, 16)}…): the chain was rewritten`,
      });
    }
  }
  return problems;
}
