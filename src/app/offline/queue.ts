import type { JobData, StepRecordData } from './job-types';
import { inStore, type AcknowledgedItem, type OfflineStorage, type StoredJob } from './storage';
import type { Signals } from './signals';
import {
  type BaseRecord,
  isLocalFileRef,
  isRevisioned,
  type FaultItem,
  type LocalFileRef,
  type QueueItem,
  type QueuedValue,
  type RecordItem,
  type StepStatus,
  type TransitionAction,
  type TransitionItem,
  type UserKey,
} from './types';
import type { FaultSeverity } from '../../domain/vocabulary';

/**
 * The write queue in the engine's storage (IndexedDB in the app). Enqueueing computes what the item will ask
 * the server for: its Idempotency-Key (fixed for the life of the item's body)
 * and, for writes on the job's revision, the revision the job will be at when
 * it applies — the last revision the server gave the device plus the writes
 * queued before it on that job. If nobody else writes the job meanwhile, every
 * item applies in order; if somebody does, the server answers CONFLICT and the
 * sync engine (offline/sync.ts) tells a harmless change from a real conflict.
 */

export function newId(): string {
  return crypto.randomUUID();
}

export interface RecordInput {
  stepId: string;
  status: StepStatus;
  values: QueuedValue[];
  comment?: string | null;
  reason?: string | null;
}

/**
 * The job as the operator sees it: what the server confirmed (`job`, `state`) and, apart, what is still on the
 * device (queued records, faults, transitions). Nothing queued is shown as done: the screens say what waits.
 */
export interface LocalJobView {
  job: JobData;
  /** queued records by step: values may hold LocalFileRefs */
  pendingRecords: Map<string, RecordItem>;
  pendingFaults: FaultItem[];
  /** the job's state as the server confirmed it (what the badge shows) */
  state: JobData['state'];
  /** the state once the queued writes apply (what the screens allow next: no recording after a queued completion) */
  queuedState: JobData['state'];
  /** the last transition still waiting to be sent (a refused one did not happen and is not here) */
  pendingTransition: TransitionAction | null;
  items: QueueItem[];
  /** the job's items the server confirmed (kept a day), newest first */
  confirmed: AcknowledgedItem[];
  /** the operator's records set aside by "keep theirs": kept on the device until the operator discards them */
  setAside: SetAside[];
  /** changes the server had confirmed, lost with a restore and refused when sent again (reported: a deviation) */
  lost: Lost[];
}

export interface SetAside {
  /** the resolution's key (what discarding it names) */
  key: number;
  item: RecordItem;
  at: string;
}

export interface Lost {
  key: number;
  item: QueueItem;
  at: string;
  error: { code: string; message: string };
}

export interface QueueDeps {
  storage: OfflineStorage;
  signals: Signals;
  /** the device's clock, in ms (createdAt) */
  now: () => number;
  /** now on the server's clock as last measured (capturedAt: offline/server-clock.ts) */
  serverNow: () => string;
}

/** The queue of the engine's storage: what the screens enqueue and read. */
export function createQueue({ storage, signals, now: deviceNow, serverNow }: QueueDeps) {
  const now = () => new Date(deviceNow()).toISOString();

  async function queuedItems(user: UserKey): Promise<QueueItem[]> {
    return inStore(storage, 'items', (items) => items.ofUser(user));
  }

  async function queuedItemsOfJob(user: UserKey, jobId: string): Promise<QueueItem[]> {
    return (await queuedItems(user)).filter((item) => item.jobId === jobId);
  }

  /** The job as the server last answered it, kept for offline use. */
  async function storedJob(user: UserKey, jobId: string): Promise<JobData | undefined> {
    return storage.transaction(['jobs', 'versions'], 'readonly', async (tx) => {
      const row = await tx('jobs').get([user, jobId]);
      return row && withContent(row.job, await tx('versions').get(row.job.version.id));
    });
  }

  async function storeJob(user: UserKey, job: JobData): Promise<void> {
    const { content, ...version } = job.version;
    await storage.transaction(['jobs', 'versions'], 'readwrite', async (tx) => {
      await tx('versions').put({ id: version.id, content });
      await tx('jobs').put({ user, jobId: job.id, job: { ...job, version }, fetchedAt: now() });
    });
  }

  /** Every job the user opened on this device (for the job list offline). */
  async function storedJobs(user: UserKey): Promise<JobData[]> {
    return storage.transaction(['jobs', 'versions'], 'readonly', async (tx) => {
      const jobs: JobData[] = [];
      for (const row of await tx('jobs').ofUser(user)) {
        const job = withContent(row.job, await tx('versions').get(row.job.version.id));
        if (job) jobs.push(job);
      }
      return jobs;
    });
  }

  /**
   * Adds an item at the end of the queue, its expectedRevision computed in the
   * same transaction (two quick taps cannot both expect the same revision).
   */
  async function enqueue<T extends QueueItem>(
    user: UserKey,
    jobId: string,
    build: (nextRevision: number, queued: { job: StoredJob; before: QueueItem[] }) => T,
    blob?: { blob: Blob; name: string; type: string },
  ): Promise<T> {
    const item = await storage.transaction(['items', 'jobs', 'blobs'], 'readwrite', async (tx) => {
      const stored = await tx('jobs').get([user, jobId]);
      if (!stored) throw new Error(`The job ${jobId} is not on this device: open it online first`);
      const before = (await tx('items').ofUser(user)).filter((i) => i.jobId === jobId && isRevisioned(i));
      const built = build(stored.job.revision + before.length, { job: stored.job, before });
      if (blob) await tx('blobs').put({ id: built.id, user, jobId: built.jobId, ...blob });
      await tx('items').add(built);
      return built;
    });
    signals.notifyQueueChanged();
    return item;
  }

  function baseItem(user: UserKey, jobId: string) {
    const id = newId();
    return { id, user, jobId, idempotencyKey: id, createdAt: now(), capturedAt: serverNow(), state: 'pending' as const, attempts: 0 };
  }

  /** A photo for a PHOTO field or a fault: its bytes stay on the device until the queued upload is acknowledged. */
  async function enqueuePhoto(user: UserKey, jobId: string, blob: Blob, name: string): Promise<LocalFileRef> {
    const type = blob.type || 'image/jpeg';
    const item = await enqueue(user, jobId, () => ({ ...baseItem(user, jobId), kind: 'upload' as const, name, contentType: type }), {
      blob,
      name,
      type,
    });
    return { localFile: item.id };
  }

  async function enqueueRecord(user: UserKey, job: JobData, input: RecordInput): Promise<RecordItem> {
    const seen = job.records.find((r) => r.stepId === input.stepId);
    return enqueue(user, job.id, (expectedRevision, queued) => ({
      ...baseItem(user, job.id),
      kind: 'record' as const,
      stepId: input.stepId,
      status: input.status,
      values: input.values,
      comment: input.comment?.trim() || null,
      reason: input.reason?.trim() || null,
      expectedRevision,
      expectedStepRevision: stepRevisionAfter(queued.job, queued.before, input.stepId),
      base: seen ? baseOf(seen) : null,
    }));
  }

  async function enqueueTransition(user: UserKey, jobId: string, action: TransitionAction): Promise<TransitionItem> {
    return enqueue(user, jobId, (expectedRevision) => ({
      ...baseItem(user, jobId),
      kind: 'transition' as const,
      action,
      expectedRevision,
    }));
  }

  async function enqueueFault(
    user: UserKey,
    jobId: string,
    input: { stepId: string | null; description: string; severity: FaultSeverity; photos: (number | LocalFileRef)[] },
  ): Promise<FaultItem> {
    return enqueue(user, jobId, () => ({
      ...baseItem(user, jobId),
      kind: 'fault' as const,
      ...input,
      description: input.description.trim(),
    }));
  }

  /** The photo's bytes (a photo taken offline, or one whose upload is acknowledged but kept). */
  async function localPhotoBlob(ref: LocalFileRef): Promise<Blob | undefined> {
    return (await inStore(storage, 'blobs', (blobs) => blobs.get(ref.localFile)))?.blob;
  }

  /** The server's file id for a local photo whose upload was acknowledged. */
  async function uploadedFileId(ref: LocalFileRef): Promise<number | undefined> {
    return (await inStore(storage, 'uploads', (uploads) => uploads.get(ref.localFile)))?.fileId;
  }

  /** Values with every LocalFileRef replaced by the file id its acknowledged upload got. */
  async function resolveLocalFiles<T>(value: T): Promise<T> {
    if (Array.isArray(value)) return (await Promise.all(value.map((v) => resolveLocalFiles(v)))) as T;
    if (isLocalFileRef(value)) {
      const fileId = await uploadedFileId(value);
      if (fileId === undefined) throw new Error(`the photo ${value.localFile} has not been uploaded yet`);
      return fileId as T;
    }
    return value;
  }

  async function localJobView(user: UserKey, jobId: string): Promise<LocalJobView | undefined> {
    const job = await storedJob(user, jobId);
    if (!job) return undefined;
    const items = await queuedItemsOfJob(user, jobId);
    const pendingRecords = new Map<string, RecordItem>();
    const pendingFaults: FaultItem[] = [];
    let queuedState = job.state;
    let pendingTransition: TransitionAction | null = null;
    for (const item of items) {
      if (item.kind === 'record') {
        pendingRecords.set(item.stepId, item);
        if (queuedState === 'OPEN' || queuedState === 'PAUSED') queuedState = 'IN_PROGRESS';
      } else if (item.kind === 'fault') pendingFaults.push(item);
      // a transition the server refused did not happen (e.g. completing with a sign-off missing): the job stays as it was
      else if (item.kind === 'transition' && item.state !== 'rejected') {
        pendingTransition = item.action;
        queuedState = item.action === 'pause' ? 'PAUSED' : item.action === 'complete' ? 'COMPLETED' : 'IN_PROGRESS';
      }
    }
    return storage.transaction(['acknowledged', 'resolutions'], 'readonly', async (tx) => {
      const confirmed = (await tx('acknowledged').ofUser(user))
        .filter((a) => a.jobId === jobId)
        .sort((a, b) => b.acknowledgedAt.localeCompare(a.acknowledgedAt));
      const setAside: SetAside[] = [];
      const lost: Lost[] = [];
      for (const [key, r] of await tx('resolutions').entries()) {
        if (r.user === user && r.jobId === jobId && r.decision === 'theirs' && r.item.kind === 'record')
          setAside.push({ key, item: r.item, at: r.at });
        if (r.user === user && r.jobId === jobId && r.decision === 'unapplied' && r.error)
          lost.push({ key, item: r.item, at: r.at, error: r.error });
      }
      return { job, pendingRecords, pendingFaults, state: job.state, queuedState, pendingTransition, items, confirmed, setAside, lost };
    });
  }

  /** The operator discards a record they set aside, or a lost change they have seen: only now does it leave the device. */
  async function discardSetAside(user: UserKey, key: number): Promise<void> {
    const discarded = await inStore(storage, 'resolutions', async (resolutions) => {
      const row = await resolutions.get(key);
      if (!row || row.user !== user || (row.decision !== 'theirs' && row.decision !== 'unapplied')) return false;
      await resolutions.delete(key);
      return true;
    });
    if (discarded) signals.notifyQueueChanged();
  }

  /**
   * Signing out of a shared device: what the device kept for the user to read
   * goes — the jobs as the server answered them, the documents of versions no
   * other user on the device keeps, the photos whose uploads the server has
   * acknowledged. What stays is the user's unsent work: their queued items, the
   * photos those carry and the file ids of uploads they refer to, and their
   * decisions on conflicts — bound to them, listed and sent only when they sign
   * in again.
   */
  async function forgetUser(user: UserKey): Promise<void> {
    await storage.transaction(['items', 'jobs', 'versions', 'blobs'], 'readwrite', async (tx) => {
      const kept = new Set<string>();
      for (const row of await tx('jobs').getAll()) {
        if (row.user === user) await tx('jobs').delete([row.user, row.jobId]);
        else kept.add(row.job.version.id);
      }
      for (const version of await tx('versions').getAll()) if (!kept.has(version.id)) await tx('versions').delete(version.id);
      // a photo stays only while the upload that carries it is queued
      const queued = new Set((await tx('items').ofUser(user)).map((item) => item.id));
      for (const blob of await tx('blobs').ofUser(user)) if (!queued.has(blob.id)) await tx('blobs').delete(blob.id);
    });
  }

  /** The users other than `current` whose jobs the device still keeps. */
  async function otherUsers(current: UserKey): Promise<UserKey[]> {
    const rows = await inStore(storage, 'jobs', (jobs) => jobs.getAll());
    return [...new Set(rows.map((row) => row.user).filter((user) => user !== current))];
  }

  return {
    queuedItems,
    queuedItemsOfJob,
    storedJob,
    storeJob,
    storedJobs,
    enqueuePhoto,
    enqueueRecord,
    enqueueTransition,
    enqueueFault,
    localPhotoBlob,
    uploadedFileId,
    resolveLocalFiles,
    localJobView,
    discardSetAside,
    forgetUser,
    otherUsers,
  };
}

function withContent(job: StoredJob, version: { content: JobData['version']['content'] } | undefined): JobData | undefined {
  return version && { ...job, version: { ...job.version, content: version.content } };
}

/** What the operator saw of a step's record when recording it. */
export function baseOf(record: StepRecordData): BaseRecord {
  return { recordedAt: record.recordedAt, recordedById: record.recordedBy.databaseId, revision: record.revision };
}

/** Whether the server's record is the one the operator saw: the same revision (or, without one, time and author). */
export function sameRecord(base: BaseRecord, record: StepRecordData): boolean {
  if (base.revision !== undefined && record.revision !== undefined) return base.revision === record.revision;
  return base.recordedAt === record.recordedAt && base.recordedById === record.recordedBy.databaseId;
}

/**
 * The step record's revision a new recording of the step expects: the one the
 * device last got from the server plus the recordings of the step queued
 * before it; undefined (not checked) when the device's copy predates revisions.
 */
export function stepRevisionAfter(job: Pick<StoredJob, 'records'>, before: readonly QueueItem[], stepId: string): number | undefined {
  const known = job.records.find((r) => r.stepId === stepId);
  if (known && known.revision === undefined) return undefined;
  return (known?.revision ?? 0) + before.filter((i) => i.kind === 'record' && i.stepId === stepId).length;
}

/** A record as the server answered it, merged into the stored job. */
export function withRecord<J extends Pick<JobData, 'records'>>(job: J, record: StepRecordData): J {
  return { ...job, records: [...job.records.filter((r) => r.stepId !== record.stepId), record] };
}
