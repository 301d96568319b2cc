import type { Deps } from '#deps';
import { notFound } from '#errors';
import { findClientById } from '#repos/clients';
import { auditedClientIds, verifyAuditChain, type ChainReport } from '#repos/audit';
import type { CheckpointFile } from '#lib/record-bundle-format';
import { checkChainAgainstCheckpoints, type CheckpointProblem } from './checkpoints';

export interface AuditVerification {
  ok: boolean;
  clients: ChainReport[];
  /** checkpoints (stored, and any given) the chains no longer match: cut short or rewritten */
  checkpoints: CheckpointProblem[];
}

/**
 * Verifies the hash chains of every audited client, or of one, and holds
 * them against the signed checkpoints. An operator command (the CLI), across
 * clients by design.
 * @throws AppError NOT_FOUND when `clientId` names neither a client nor a chain
 */
export async function verifyAuditTrailAcrossClients(
  deps: Deps,
  options: { clientId?: number; checkpointFiles?: CheckpointFile[] } = {},
): Promise<AuditVerification> {
  const db = deps.db.kysely;
  let ids: number[];
  if (options.clientId !== undefined) {
    const known = (await findClientById(db, options.clientId)) || (await auditedClientIds(db)).includes(options.clientId);
    if (!known) throw notFound(`Client ${options.clientId}`);
    ids = [options.clientId];
  } else {
    ids = await auditedClientIds(db);
  }
  const clients: ChainReport[] = [];
  for (const id of ids) clients.push(await verifyAuditChain(db, id));
  const checkpoints = await checkChainAgainstCheckpoints(deps, ids, options.checkpointFiles);
  return { ok: clients.every((c) => c.broken === null) && checkpoints.length === 0, clients, checkpoints };
}
