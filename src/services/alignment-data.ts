import type { Deps } from '#deps';
import type { AlignmentDataRow } from '#db/schema';
import { findLatestAlignmentData, insertAlignmentData } from '#repos/alignment-data';
import { fieldError, notFound, validationFailed } from '#errors';
import { PlyError, summarizePly } from '#domain/ply';
import type { UserActor } from './actor';
import { commitFiles, type StoredContent } from './files';
import { assertAssetOfClient } from './jobs';
import { getVisibleTemplate } from './templates';
import { requirePermission } from '#policies/permissions';

// Point-cloud alignment data (PLY) for a template step or an asset: the
// original file is stored as a client file; its header and vertex data are
// checked and summarised (point count, bounds) into an alignment_data row.

/** What the alignment data belongs to: a step of a template, or an asset. */
export type AlignmentTarget = { templateId: number; stepId: string } | { assetId: number };

/** Exactly one target; anything else is 422. */
export function alignmentTarget(input: { templateId?: number; stepId?: string; assetId?: number }): AlignmentTarget {
  if (input.assetId !== undefined && input.templateId === undefined && input.stepId === undefined) return { assetId: input.assetId };
  if (input.assetId === undefined && input.templateId !== undefined && input.stepId)
    return { templateId: input.templateId, stepId: input.stepId };
  throw validationFailed({ fields: [{ path: 'templateId', message: 'give templateId and stepId, or assetId' }] });
}

async function assertTarget(deps: Deps, actor: UserActor, target: AlignmentTarget): Promise<void> {
  if ('assetId' in target) await assertAssetOfClient(deps.db.kysely, actor.scope, target.assetId);
  else await getVisibleTemplate(deps.db.kysely, actor, target.templateId);
}

/**
 * Stores a PLY point cloud (already streamed into the store) for a target:
 * the header is parsed and the vertex data walked (count, finite coordinates,
 * bounds), then the file row and the alignment row are committed together.
 * @throws AppError NOT_FOUND (template or asset of another client), VALIDATION_ERROR (not a PLY, malformed), FORBIDDEN
 */
export async function createAlignmentData(
  deps: Deps,
  actor: UserActor,
  target: AlignmentTarget,
  file: { name: string; content: StoredContent },
): Promise<AlignmentDataRow> {
  requirePermission(actor.roles, 'author');
  await assertTarget(deps, actor, target);
  if (file.content.contentType !== 'application/x-ply')
    throw fieldError('file', 'must be a PLY point cloud (ascii, binary_little_endian or binary_big_endian)');
  let summary;
  try {
    summary = await summarizePly((await deps.storage.get(file.content.sha256)).stream);
  } catch (error) {
    if (error instanceof PlyError) throw fieldError('file', error.message);
    throw error;
  }
  let created: AlignmentDataRow | undefined;
  await commitFiles(
    deps,
    actor.scope,
    [{ ...file, description: 'alignment data' }],
    { userId: actor.userId, email: actor.email },
    async (trx, [row]) => {
      created = await insertAlignmentData(trx, actor.scope, {
        file_id: row.id,
        template_id: 'templateId' in target ? target.templateId : null,
        step_id: 'stepId' in target ? target.stepId : null,
        asset_id: 'assetId' in target ? target.assetId : null,
        format: summary.format,
        point_count: summary.pointCount,
        bounds: JSON.stringify(summary.bounds),
        created_by: actor.userId,
        created_at: row.created_at,
      });
    },
  );
  return created!;
}

/** The newest alignment data of a target. @throws AppError NOT_FOUND (none, or a target of another client) */
export async function getAlignmentData(deps: Deps, actor: UserActor, target: AlignmentTarget): Promise<AlignmentDataRow> {
  await assertTarget(deps, actor, target);
  const row = await findLatestAlignmentData(deps.db.kysely, actor.scope, target);
  if (!row) throw notFound('Alignment data');
  return row;
}

export function presentAlignmentData(row: AlignmentDataRow) {
  return {
    id: row.id,
    pointCount: row.point_count,
    bounds: JSON.parse(row.bounds) as { min: number[]; max: number[] },
    format: row.format,
    fileId: row.file_id,
    templateId: row.template_id,
    stepId: row.step_id,
    assetId: row.asset_id,
    createdAt: row.created_at,
  };
}
