/**
 * The offline machinery for the browser tests and the sync benchmark, which
 * bundle this file (esbuild) and evaluate it in a page of the app's origin:
 * the same IndexedDB and the same session cookie as the app. Never imported
 * by the app itself.
 */
import { offlineDb } from './db';
import { jobQuery, type JobData } from './job-data';
import {
  enqueuePhoto,
  enqueueRecord,
  enqueueTransition,
  getSyncState,
  localJobView,
  queuedItems,
  renumber,
  resolveItem,
  startSync,
  stopSync,
  storeJob,
  syncNow,
  transport,
} from './device';
import { userKey, type QueueItem } from './types';
import { requestLanguage } from '../api/client';
import type { OperatorJobQuery, OperatorJobQueryVariables } from '../api/operation-types';

async function fetchAndStoreJob(user: string, jobId: string): Promise<JobData> {
  const { job } = await transport.graphqlQuery<OperatorJobQuery, OperatorJobQueryVariables>(await jobQuery(), {
    id: jobId,
    language: requestLanguage(),
  });
  if (!job) throw new Error(`no job ${jobId} for this user`);
  await storeJob(user, job);
  return job;
}

/** Whether every item left waits for a decision, its own or an earlier one's of its job (the engine holds those). */
function onlyHeld(items: QueueItem[]): boolean {
  const held = new Set<string>();
  for (const item of items) {
    if (item.state !== 'pending') held.add(item.jobId);
    else if (!held.has(item.jobId)) return false;
  }
  return true;
}

/** Waits until the queue of the user is empty (or only holds items waiting for a decision). */
async function drained(user: string, timeoutMs = 120_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    const items = await queuedItems(user);
    if (onlyHeld(items) && !getSyncState().syncing) return;
    if (Date.now() - started > timeoutMs) throw new Error(`queue not drained after ${timeoutMs} ms: ${items.length} items`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function clearAll(): Promise<void> {
  const db = await offlineDb();
  for (const store of ['items', 'jobs', 'versions', 'blobs', 'uploads', 'resolutions'] as const) await db.clear(store);
}

(globalThis as Record<string, unknown>).wipOffline = {
  userKey,
  fetchAndStoreJob,
  enqueueRecord,
  enqueuePhoto,
  enqueueTransition,
  localJobView,
  queuedItems,
  startSync,
  stopSync,
  syncNow,
  renumber,
  resolveItem,
  getSyncState,
  requestsSent: transport.requestsSent,
  drained,
  clearAll,
};
