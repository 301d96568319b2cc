import { z } from 'zod';
import type { Deps } from '#deps';
import type { ErpSyncRunRow } from '#db/schema';
import { isUniqueViolation } from '#db/transaction';
import { AppError, integrationNotConfigured, upstreamError } from '#errors';
import { presentStepRecord } from '#presenters/jobs';
import {
  findAssetIdBySerial,
  findLinkedWorkOrderIds,
  findTemplateIdByTitle,
  insertSyncRun,
  insertWorkOrderLink,
  listRecentSyncRuns,
  listResultsToPush,
  markResultPushed,
} from '#repos/erp';
import { loadStepRecords } from '#repos/jobs';
import type { UserActor } from '../actor';
import { createJob } from '../jobs';
import { callUpstream, upstreamJson, upstreamUrl } from './upstream';

/**
 * The enterprise-software (ERP) sync, against the contract docs/operating/integrations.md documents:
 *
 *   GET  {erpUrl}/work-orders?clientId=N          → {items: [WorkOrder]}
 *   PUT  {erpUrl}/work-orders/{id}/result         ← {workOrderId, jobId, state, completedAt, records}
 *
 * both with `Authorization: Bearer <erpToken>`. A run pulls the released work
 * orders into jobs (template by erpTemplateMap: work-order type → template
 * title; asset by serial number), then pushes the results of completed jobs
 * back. Both directions are idempotent by the upstream's work-order id: a work
 * order becomes one job (its link row is written in the job's transaction and
 * its key is (client, work-order id)), and a result is pushed until the
 * upstream accepts it, then never again. Every run is recorded with its counts
 * and errors.
 */
const WorkOrder = z.object({
  id: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/),
  type: z.string().min(1).max(100),
  title: z.string().trim().min(1).max(200),
  assetSerialNumber: z.string().min(1).max(200).nullish(),
  dueAt: z.iso.datetime({ offset: true }).nullish(),
  priority: z.enum(['HIGH', 'MEDIUM', 'LOW']).nullish(),
});
const WorkOrderList = z.object({ items: z.array(z.unknown()).max(1000) });

/** Results pushed per run (the rest follow in the next run). */
const PUSH_BATCH = 200;
const MAX_LIST_BYTES = 4 * 1024 * 1024;

export interface SyncError {
  workOrderId?: string;
  jobId?: number;
  message: string;
}

function configured(deps: Deps): { erpUrl: string; erpToken: string } {
  const { erpUrl, erpToken } = deps.config;
  if (!erpUrl || !erpToken) throw integrationNotConfigured('ERP', ['erpUrl', 'erpToken', 'erpTemplateMap']);
  return { erpUrl, erpToken };
}

/** The integration's state for GET /api/client/vendorErp: configured or not, the mapping, the last runs (never the token). */
export async function erpStatus(deps: Deps, actor: UserActor) {
  const { erpUrl, erpToken, erpTemplateMap } = deps.config;
  return {
    configured: Boolean(erpUrl && erpToken),
    upstream: erpUrl ? new URL(erpUrl).origin : null,
    templateMap: erpTemplateMap,
    lastRuns: (await listRecentSyncRuns(deps.db.kysely, actor.scope, 10)).map(presentSyncRun),
  };
}

/**
 * One sync run for the caller's client. A list that cannot be read fails the
 * run (recorded, then 502); single work orders or results that fail are named
 * in the run's errors and retried by the next run.
 * @throws AppError INTEGRATION_NOT_CONFIGURED, UPSTREAM_ERROR (details.runId)
 */
export async function synchronizeErp(deps: Deps, actor: UserActor): Promise<ReturnType<typeof presentSyncRun>> {
  const { erpUrl, erpToken } = configured(deps);
  const headers = { authorization: `Bearer ${erpToken}`, accept: 'application/json', 'user-agent': 'wip-erp-sync/1' };
  const startedAt = deps.clock.now().toISOString();
  const counts = { pulled: 0, created: 0, skipped: 0, pushed: 0 };
  const errors: SyncError[] = [];
  const record = (status: ErpSyncRunRow['status']) =>
    insertSyncRun(deps.db.kysely, actor.scope, {
      started_by: actor.userId,
      started_at: startedAt,
      finished_at: deps.clock.now().toISOString(),
      status,
      ...counts,
      errors: JSON.stringify(errors),
    });

  let items: unknown[];
  try {
    const url = upstreamUrl(erpUrl, '/work-orders');
    url.searchParams.set('clientId', String(actor.clientId));
    const response = await callUpstream(deps, 'ERP', { url, method: 'GET', headers, maxResponseBytes: MAX_LIST_BYTES });
    const list = WorkOrderList.safeParse(upstreamJson('ERP', response));
    if (!list.success) throw upstreamError('ERP', response.status, 'the work-order list is not {items: [...]} with at most 1000 items');
    items = list.data.items;
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'UPSTREAM_ERROR') throw error;
    errors.push({ message: error.message });
    const run = await record('failed');
    throw new AppError('UPSTREAM_ERROR', error.message, { ...error.details, runId: run.id });
  }

  counts.pulled = items.length;
  const orders = items.flatMap((item, index) => {
    const parsed = WorkOrder.safeParse(item);
    if (parsed.success) return [parsed.data];
    const id = (item as { id?: unknown } | null)?.id;
    errors.push({
      ...(typeof id === 'string' && { workOrderId: id.slice(0, 128) }),
      message: `work order ${index} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(item)'}: ${i.message}`).join(', ')}`,
    });
    return [];
  });
  const linked = await findLinkedWorkOrderIds(
    deps.db.kysely,
    actor.scope,
    orders.map((o) => o.id),
  );
  for (const order of orders) {
    if (linked.has(order.id)) {
      counts.skipped++;
      continue;
    }
    try {
      await createJobForWorkOrder(deps, actor, order);
      linked.add(order.id);
      counts.created++;
    } catch (error) {
      if (error instanceof LinkedMeanwhile) {
        counts.skipped++;
        continue;
      }
      if (!(error instanceof AppError)) throw error;
      errors.push({ workOrderId: order.id, message: error.message });
    }
  }

  for (const { externalId, job } of await listResultsToPush(deps.db.kysely, actor.scope, PUSH_BATCH)) {
    const records = (await loadStepRecords(deps.db.kysely, actor.scope, [job.id])).map(presentStepRecord);
    const result = { workOrderId: externalId, jobId: job.id, state: job.state, completedAt: job.completed_at, records };
    try {
      const response = await callUpstream(deps, 'ERP', {
        url: upstreamUrl(erpUrl, `/work-orders/${encodeURIComponent(externalId)}/result`),
        method: 'PUT',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(result),
        maxResponseBytes: 64 * 1024,
      });
      if (response.status < 200 || response.status >= 300)
        throw upstreamError('ERP', response.status, `it answered HTTP ${response.status}`);
      await markResultPushed(deps.db.kysely, actor.scope, externalId, deps.clock.now().toISOString());
      counts.pushed++;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      errors.push({ workOrderId: externalId, jobId: job.id, message: error.message });
    }
  }
  return presentSyncRun(await record(errors.length === 0 ? 'succeeded' : 'partial'));
}

/** @throws AppError naming why the order cannot become a job (mapping, template, asset, or createJob's own) */
async function createJobForWorkOrder(deps: Deps, actor: UserActor, order: z.infer<typeof WorkOrder>): Promise<void> {
  const db = deps.db.kysely;
  const title = deps.config.erpTemplateMap[order.type];
  if (!title) throw new AppError('VALIDATION_ERROR', `no template is mapped to work-order type "${order.type}" (erpTemplateMap)`);
  const templateId = await findTemplateIdByTitle(db, actor.scope, title);
  if (templateId === undefined) throw new AppError('NOT_FOUND', `template "${title}" (mapped from type "${order.type}") does not exist`);
  let assetId: number | null = null;
  if (order.assetSerialNumber) {
    assetId = (await findAssetIdBySerial(db, actor.scope, order.assetSerialNumber)) ?? null;
    if (assetId === null) throw new AppError('NOT_FOUND', `no asset has serial number "${order.assetSerialNumber}"`);
  }
  const nowIso = deps.clock.now().toISOString();
  await createJob(
    deps,
    actor,
    { templateId, title: order.title, assetId, dueAt: order.dueAt ?? null, priority: order.priority ?? null },
    (trx, job) =>
      insertWorkOrderLink(trx, actor.scope, order.id, job.id, nowIso).catch((error: unknown) => {
        throw isUniqueViolation(error) ? new LinkedMeanwhile() : error;
      }),
  );
}

/**
 * A concurrent run linked the work order after this run's check: its job is
 * rolled back with the link, and the order counts as skipped, as it would
 * have had the runs come one after the other.
 */
class LinkedMeanwhile extends Error {}

export function presentSyncRun(run: ErpSyncRunRow) {
  return {
    id: run.id,
    status: run.status,
    startedById: run.started_by,
    startedAt: run.started_at,
    finishedAt: run.finished_at,
    pulled: run.pulled,
    created: run.created,
    skipped: run.skipped,
    pushed: run.pushed,
    errors: JSON.parse(run.errors) as SyncError[],
  };
}
