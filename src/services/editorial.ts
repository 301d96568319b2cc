import type { Deps } from '#deps';
import type { EditorialEventType } from '#db/schema';
import { withTransaction } from '#db/transaction';
import { notFound, validationFailed } from '#errors';
import {
  clientTemplateIds,
  countEventsByType,
  dwellDurations,
  insertEditorialEvents,
  templateOfVersions,
  type EventRange,
} from '#repos/editorial';
import type { UserActor } from './actor';
import { requirePermission } from '#policies/permissions';

/** Events per request: an editor or player flushing its buffer sends at most this many. */
export const MAX_EDITORIAL_EVENTS = 500;

export interface EditorialEventInput {
  type: EditorialEventType;
  templateId: number;
  versionId?: number | null;
  stepId?: string | null;
  durationMs?: number | null;
  /** ISO-8601; when the event happened (default: when it arrived) */
  at?: string | null;
}

/**
 * Records editorial events of the caller (anyone in the client: viewing and
 * dwelling happen while reading and running instructions). Every templateId —
 * and versionId, which must be a version of that template — must be the
 * client's; otherwise the whole batch is refused with VALIDATION_ERROR naming
 * each offending event, and nothing is stored. Analytics are not audited.
 * @throws AppError VALIDATION_ERROR naming `body.events.<i>.templateId` / `.versionId`
 */
export async function recordEditorialEvents(deps: Deps, actor: UserActor, events: EditorialEventInput[]): Promise<{ recorded: number }> {
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    const templates = await clientTemplateIds(trx, actor.scope, [...new Set(events.map((e) => e.templateId))]);
    const versionIds = [...new Set(events.flatMap((e) => (e.versionId ? [e.versionId] : [])))];
    const versions = await templateOfVersions(trx, actor.scope, versionIds);
    const problems: { path: string; message: string }[] = [];
    events.forEach((e, i) => {
      if (!templates.has(e.templateId)) problems.push({ path: `body.events.${i}.templateId`, message: `unknown template ${e.templateId}` });
      else if (e.versionId && versions.get(e.versionId) !== e.templateId) {
        problems.push({ path: `body.events.${i}.versionId`, message: `unknown version ${e.versionId} of template ${e.templateId}` });
      }
    });
    if (problems.length > 0) throw validationFailed({ fields: problems }, 'Unknown template or version');
    await insertEditorialEvents(
      trx,
      actor.scope,
      events.map((e) => ({
        user_id: actor.userId,
        type: e.type,
        template_id: e.templateId,
        version_id: e.versionId ?? null,
        step_id: e.stepId ?? null,
        duration_ms: e.durationMs ?? null,
        at: e.at ?? nowIso,
      })),
    );
    return { recorded: events.length };
  });
}

export interface StepDwell {
  stepId: string;
  samples: number;
  medianMs: number;
  p90Ms: number;
}

export interface EditorialAggregates {
  templateId: number;
  from: string | null;
  to: string | null;
  views: number;
  edits: number;
  steps: StepDwell[];
}

/**
 * The q-quantile of ascending `sorted` values with linear interpolation
 * between closest ranks — what PostgreSQL's percentile_cont computes, so a
 * later move of this into SQL there gives the same numbers.
 */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error('percentile of no values');
  const rank = (sorted.length - 1) * q;
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low] + (sorted[high] - sorted[low]) * (rank - low);
}

/**
 * Views, edits, and median and p90 dwell per step of one template of the
 * client in [from, to). Percentiles are computed here (portable SQL has no
 * percentile function common to SQLite and PostgreSQL).
 * @throws AppError FORBIDDEN without an authoring-side role; NOT_FOUND for a template not of the client
 */
export async function editorialAggregates(deps: Deps, actor: UserActor, range: EventRange): Promise<EditorialAggregates> {
  requirePermission(actor.roles, 'readEditorial');
  const db = deps.db.kysely;
  if (!(await clientTemplateIds(db, actor.scope, [range.templateId])).has(range.templateId)) throw notFound('Template');
  const counts = await countEventsByType(db, actor.scope, range);
  // rows arrive ordered by step, then duration: each step's list is already sorted
  const byStep = new Map<string, number[]>();
  for (const row of await dwellDurations(db, actor.scope, range)) {
    const values = byStep.get(row.step_id) ?? [];
    values.push(row.duration_ms);
    byStep.set(row.step_id, values);
  }
  const steps: StepDwell[] = [...byStep].map(([stepId, values]) => ({
    stepId,
    samples: values.length,
    medianMs: percentile(values, 0.5),
    p90Ms: percentile(values, 0.9),
  }));
  return {
    templateId: range.templateId,
    from: range.from ?? null,
    to: range.to ?? null,
    views: counts.VIEWED ?? 0,
    edits: counts.EDITED ?? 0,
    steps,
  };
}
