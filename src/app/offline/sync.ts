import type { JobData, StepRecordData } from './job-types';
import type { RaiseFaultMutation, RecordStepMutation, TransitionMutation } from '../api/operation-types';
import { baseOf, createQueue, newId, sameRecord, stepRevisionAfter, withRecord } from './queue';
import { createSignals } from './signals';
import { createSyncStateStore } from './sync-state';
import type { Outcome, SyncTransport } from './transport';
import type { ServerClock } from './server-clock';
import { inStore, type AcknowledgedItem, type OfflineStorage, type StoredJob } from './storage';
import { isRevisioned, userKey, type Conflict, type QueueItem, type RecordItem, type UserKey } from './types';

/**
 * The sync engine: drains the signed-in user's queue in order whenever the
 * device is online, each item exactly once.
 *
 * - An item's body is frozen (stored) before its first send, with its
 *   Idempotency-Key: when an answer is lost the same bytes go again with the
 *   same key and the server answers with the first answer
 *   (src/http/middleware/idempotency.ts) instead of writing a second record.
 * - An acknowledged item leaves the queue in the same IndexedDB transaction
 *   that stores what the server answered; a crash before that only means the
 *   next send is a replay.
 * - Items of one job go strictly in order; a job whose head item waits for the
 *   operator (a conflict, a refusal) holds its later items back, other jobs go on.
 * - CONFLICT (the job's revision moved on): the job is read again. If nobody
 *   else recorded the item's step since the operator saw it, the job's queued
 *   items expect the new revision and go again (nothing the operator needs to
 *   see). Otherwise the item becomes a conflict with both values, for the
 *   operator to resolve — never dropped, never overwritten silently.
 */

const RETRY_OFFLINE_MS = 5_000;
const SESSION_CHECK_MS = 60_000;
/** the server keeps an Idempotency-Key's answer this long (IDEMPOTENCY_TTL_MS): the device keeps its confirmed items as long */
const ACKNOWLEDGED_KEPT_MS = 24 * 3_600_000;

const RECORD_FIELDS = `stepId status values { key value outOfLimits error files { databaseId name contentType url } } comment reason
  recordedBy { databaseId firstName lastName email } recordedAt capturedAt receivedAt revision`;
// the job's applicability and sign-offs come back with every record: a record can change which steps apply and
// invalidates the step's signatures (docs/execution-rules.md), and the server's answer is what the device then shows
const RULES_FIELDS =
  'steps { stepId applies reason } signoffs { stepId signer { databaseId firstName lastName email } signerName meaning signedAt invalidatedAt }';
export const RECORD_STEP = `mutation RecordStep($input: RecordStepInput!) { recordStep(input: $input) { revision job { id state revision ${RULES_FIELDS} } record { ${RECORD_FIELDS} } } }`;
const FAULT_FIELDS = 'id databaseId stepId description severity state raisedAt';
export const RAISE_FAULT = `mutation RaiseFault($input: RaiseFaultInput!) { raiseFault(input: $input) { fault { ${FAULT_FIELDS} } } }`;
const TRANSITIONS = { pause: 'pauseJob', resume: 'resumeJob', complete: 'completeJob' } as const;
export const transitionMutation = (field: (typeof TRANSITIONS)[keyof typeof TRANSITIONS]) =>
  `mutation Transition($input: JobTransitionInput!) { ${field}(input: $input) { revision job { id state revision } } }`;

export type Decision = 'mine' | 'theirs' | 'retry' | 'discard';

/** Whether the device has a network (navigator.onLine and its events in the app). */
export interface Network {
  online: () => boolean;
  /** calls `online`/`offline` when the device's network comes or goes; returns the unsubscribe */
  subscribe: (listeners: { online(): void; offline(): void }) => () => void;
}

export interface SyncEngineDeps {
  storage: OfflineStorage;
  transport: SyncTransport;
  serverClock: ServerClock;
  network: Network;
  /** the device's clock, in ms */
  now: () => number;
  /**
   * One drainer at a time across the tabs of the device (navigator.locks in the app): runs `work` if no other
   * tab drains, else `elsewhere`. Absent: this engine is the only one.
   */
  exclusive?: (work: () => Promise<void>, elsewhere: () => Promise<void>) => Promise<void>;
}

export type SyncEngine = ReturnType<typeof createSyncEngine>;

/** A sync engine over the given storage and transport: the app makes one (offline/device.ts), Node tests several. */
export function createSyncEngine({ storage, transport, serverClock, network, now, exclusive }: SyncEngineDeps) {
  const signals = createSignals();
  const state = createSyncStateStore(network.online());
  const queue = createQueue({ storage, signals, now, serverNow: () => serverClock.serverNow() });

  let user: UserKey | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;
  let sessionCheckedAt = 0;
  /** whether the server answered since this page started syncing, or since it last did not */
  let serverReached = false;
  /** the CSRF cookie the last good session check saw: it changes with the session (another sign-in, in any tab) */
  let checkedSession: string | null = null;
  let unsubscribe: (() => void) | undefined;

  /** Starts (or restarts, after a sign-in) draining the queue of this user. */
  function startSync(signedIn: { id: number; clientId: number }): void {
    user = userKey(signedIn);
    checkedSession = null;
    serverReached = false;
    state.set({ signInNeeded: false, online: network.online() });
    if (!unsubscribe) {
      const kick = () => schedule(0);
      const offline = () => {
        serverReached = false;
        state.set({ online: false, unreachable: false });
      };
      const stopNetwork = network.subscribe({ online: kick, offline });
      const stopQueue = signals.onQueueChanged(kick);
      // another data epoch: the server may have lost what it acknowledged (a restore), the next round looks
      const stopEpoch = serverClock.onEpochNoted(kick);
      unsubscribe = () => {
        stopNetwork();
        stopQueue();
        stopEpoch();
      };
    }
    schedule(0);
  }

  /** Signing out: the queue stays on the device for its user; nothing is sent until they sign in again. */
  function stopSync(): void {
    unsubscribe?.();
    unsubscribe = undefined;
    user = null;
    clearTimeout(timer);
  }

  /** The user whose queue is being drained (null when nobody is signed in). */
  const syncUser = (): UserKey | null => user;

  /** Drain now (e.g. the operator tapped "sync"); resolves when this round is over. */
  function syncNow(): Promise<void> {
    return run();
  }

  function schedule(delayMs: number): void {
    clearTimeout(timer);
    timer = setTimeout(() => void run(), delayMs);
  }

  async function run(): Promise<void> {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      // one tab drains at a time: two tabs sending the same item would only be replays, but need not happen
      if (exclusive) await exclusive(drain, elsewhere);
      else await drain();
    } finally {
      running = false;
      if (again) {
        again = false;
        schedule(0);
      }
    }
  }

  /**
   * Another tab (or the page this one replaced, still letting go) drains: this
   * one only counts, so its indicator says what waits, and looks again later.
   */
  async function elsewhere(): Promise<void> {
    if (user) await refreshCounts(user);
    schedule(RETRY_OFFLINE_MS);
  }

  async function refreshCounts(current: UserKey): Promise<QueueItem[]> {
    const items = await queue.queuedItems(current);
    state.set({
      counted: true,
      waiting: items.length,
      conflicts: items.filter((i) => i.state === 'conflict').length,
      refused: items.filter((i) => i.state === 'rejected').length,
      requests: transport.requestsSent(),
    });
    return items;
  }

  /** Whether the session still belongs to the queue's user (checked after reconnecting and now and then). */
  async function sessionIsTheQueues(current: UserKey): Promise<boolean | 'unreachable'> {
    if (checkedSession !== null && checkedSession === transport.sessionMark() && now() - sessionCheckedAt < SESSION_CHECK_MS) return true;
    const who = await transport.sessionUser();
    if (who === 'unreachable') return 'unreachable';
    if (who === 'signed-out' || userKey(who) !== current) return false;
    checkedSession = transport.sessionMark();
    sessionCheckedAt = now();
    return true;
  }

  async function drain(): Promise<void> {
    const current = user;
    if (!current) return;
    let items = await refreshCounts(current);
    if (!network.online()) {
      state.set({ online: false, unreachable: false, syncing: false });
      return;
    }
    const stale = await staleAcknowledged(current);
    if (!items.some((i) => i.state === 'pending') && stale.length === 0) {
      // nothing to send, but the indicator says "Online" only once the server has answered this page: a network
      // without the server (or a page reloaded offline, whose network.online() may still say true) is not online
      if (!serverReached) {
        if ((await transport.sessionUser()) === 'unreachable') return offlineFor(RETRY_OFFLINE_MS);
        serverReached = true;
        state.set({ online: true, unreachable: false });
      }
      state.set({ syncing: false });
      return;
    }
    const session = await sessionIsTheQueues(current);
    if (session === 'unreachable') return offlineFor(RETRY_OFFLINE_MS);
    if (!session) return signInNeeded();
    state.set({ online: true, unreachable: false, syncing: true, signInNeeded: false });
    try {
      // what the server acknowledged under an earlier epoch goes again first, in its order (the queue builds on it)
      if (!(await resendAfterRestore(current))) return;
      items = await queue.queuedItems(current);
      let restart = true;
      while (restart && user === current) {
        restart = false;
        const held = new Set<string>();
        for (const item of items) {
          if (user !== current) return;
          if (item.state !== 'pending') held.add(item.jobId);
          if (held.has(item.jobId)) continue;
          const next = await sendItem(item);
          if (next === 'stop') return;
          if (next === 'held') held.add(item.jobId);
          if (next === 'restart') {
            restart = true;
            items = await queue.queuedItems(current);
            break;
          }
        }
      }
      state.set({ lastSyncedAt: new Date(now()).toISOString() });
    } finally {
      state.set({ syncing: false });
      await refreshCounts(current);
    }
  }

  function offlineFor(ms: number): void {
    serverReached = false;
    // back online, the session is checked again first: it may have ended meanwhile
    checkedSession = null;
    // a network but no answer: the server is down or unreachable, which the indicator says as such
    state.set({ online: false, unreachable: network.online(), syncing: false });
    schedule(ms);
  }

  function signInNeeded(): void {
    checkedSession = null;
    state.set({ signInNeeded: true, syncing: false });
  }

  /** The GraphQL body of an item (its photos resolved to the file ids their uploads got), or undefined for an upload. */
  async function bodyOf(item: QueueItem): Promise<string | undefined> {
    switch (item.kind) {
      case 'upload':
        return undefined;
      case 'record': {
        const values = await Promise.all(item.values.map(async (v) => ({ key: v.key, value: await queue.resolveLocalFiles(v.value) })));
        const input = {
          jobId: item.jobId,
          stepId: item.stepId,
          status: item.status,
          values,
          comment: item.comment,
          reason: item.reason,
          expectedRevision: item.expectedRevision,
          ...(item.expectedStepRevision !== undefined && { expectedStepRevision: item.expectedStepRevision }),
          ...(item.capturedAt && { capturedAt: item.capturedAt }),
        };
        return JSON.stringify({ query: RECORD_STEP, variables: { input } });
      }
      case 'transition':
        return JSON.stringify({
          query: transitionMutation(TRANSITIONS[item.action]),
          variables: {
            input: { jobId: item.jobId, expectedRevision: item.expectedRevision, ...(item.capturedAt && { capturedAt: item.capturedAt }) },
          },
        });
      case 'fault': {
        const input = {
          jobId: item.jobId,
          stepId: item.stepId,
          description: item.description,
          severity: item.severity,
          photos: await queue.resolveLocalFiles(item.photos),
          ...(item.capturedAt && { capturedAt: item.capturedAt }),
        };
        return JSON.stringify({ query: RAISE_FAULT, variables: { input } });
      }
    }
  }

  async function putItem(item: QueueItem): Promise<void> {
    await inStore(storage, 'items', (items) => items.put(item));
  }

  type Step = 'next' | 'held' | 'restart' | 'stop';

  async function sendItem(item: QueueItem): Promise<Step> {
    let outcome: Outcome;
    if (item.kind === 'upload') {
      const photo = await inStore(storage, 'blobs', (blobs) => blobs.get(item.id));
      if (!photo) return refuse(item, { code: 'PHOTO_MISSING', message: 'The photo is no longer on this device' });
      item.attempts++;
      await putItem(item);
      outcome = await transport.sendUpload(photo.blob, photo.name, item.idempotencyKey);
    } else {
      if (item.sentBody === undefined) {
        try {
          item.sentBody = await bodyOf(item);
        } catch (error) {
          // a photo it refers to never reached the server (its upload was discarded): the operator decides
          return refuse(item, { code: 'PHOTO_MISSING', message: error instanceof Error ? error.message : String(error) });
        }
      }
      item.attempts++;
      // stored before it leaves: a retry after a lost answer must send exactly these bytes
      await putItem(item);
      outcome = await transport.sendMutation(item.sentBody!, item.idempotencyKey, fieldOf(item));
    }
    state.set({ requests: transport.requestsSent() });
    switch (outcome.kind) {
      case 'ok':
        state.set({ busy: false });
        await acknowledge(item, outcome.data);
        state.set({ waiting: Math.max(0, state.get().waiting - 1) });
        return 'next';
      case 'network':
        offlineFor(RETRY_OFFLINE_MS);
        return 'stop';
      case 'signin':
        signInNeeded();
        return 'stop';
      case 'retry':
        state.set({ busy: true });
        if (outcome.newKey) await freshKey(item);
        schedule(outcome.afterMs);
        return 'stop';
      case 'conflict':
        return isRevisioned(item) ? onConflict(item) : refuse(item, outcome);
      case 'refused':
        return refuse(item, outcome);
    }
  }

  /** The server's answer said nothing applied: the item may change (or be resent) under a new key. */
  async function freshKey(item: QueueItem): Promise<void> {
    item.idempotencyKey = newId();
    delete item.sentBody;
    await putItem(item);
  }

  async function refuse(item: QueueItem, outcome: { code: string; message: string; details?: Record<string, unknown> }): Promise<Step> {
    item.state = 'rejected';
    item.error = { code: outcome.code, message: outcome.message, ...(outcome.details && { details: outcome.details }) };
    await freshKey(item);
    signals.notifyQueueChanged();
    signals.notifyItemSettled(item, 'refused');
    return 'held';
  }

  /** The server took the item: it leaves the queue, and what the server answered is what the device now knows. */
  async function acknowledge(item: QueueItem, data: unknown): Promise<void> {
    await storage.transaction(['items', 'jobs', 'uploads', 'acknowledged'], 'readwrite', async (tx) => {
      const row = await tx('jobs').get([item.user, item.jobId]);
      let job: StoredJob | undefined = row?.job;
      if (item.kind === 'upload') {
        const file = (data as { files: { id: number; url?: string }[] }).files[0];
        await tx('uploads').put({ id: item.id, user: item.user, fileId: file.id, url: file.url ?? `/api/client/files/${file.id}` });
      } else if (job && item.kind === 'fault') {
        const { fault } = data as RaiseFaultMutation['raiseFault'];
        job = { ...job, faults: { nodes: [...job.faults.nodes.filter((f) => f.id !== fault.id), fault] } };
      } else if (job && isRevisioned(item)) {
        const applied = data as TransitionMutation['completeJob'];
        job = { ...job, revision: applied.revision, state: applied.job.state };
        if (item.kind === 'record') {
          const recorded = data as RecordStepMutation['recordStep'];
          // a body frozen by an older app (replayed with its key) may not have asked for the steps and sign-offs
          job = {
            ...withRecord(job, recorded.record),
            ...(recorded.job.steps && { steps: recorded.job.steps, signoffs: recorded.job.signoffs }),
          };
        }
      }
      if (row && job) await tx('jobs').put({ ...row, job });
      await tx('items').delete(item.seq!);
      const acknowledged = tx('acknowledged');
      await acknowledged.put({
        id: item.id,
        user: item.user,
        jobId: item.jobId,
        item,
        answer: data,
        acknowledgedAt: new Date(now()).toISOString(),
        ...(serverClock.serverEpoch() && { epoch: serverClock.serverEpoch()! }),
      });
      // kept as long as the server keeps the key's answer, no longer
      const expired = new Date(now() - ACKNOWLEDGED_KEPT_MS).toISOString();
      for (const old of await acknowledged.ofUser(item.user)) if (old.acknowledgedAt < expired) await acknowledged.delete(old.id);
    });
    signals.notifyQueueChanged();
    signals.notifyItemSettled(item, 'confirmed');
  }

  /** Reads the job from the server and keeps it as what the device knows. */
  async function fetchJob(current: UserKey, jobId: string): Promise<JobData | undefined> {
    try {
      const job = await transport.readJob(jobId);
      if (!job) return undefined;
      await queue.storeJob(current, job);
      return job;
    } catch {
      return undefined;
    }
  }

  /** Whether the server's record of the step is the write this body sent (same user, status, comment and values). */
  function isSentRecord(item: RecordItem, sentBody: string, record: StepRecordData): boolean {
    if (userKey({ clientId: Number(item.user.split(':')[0]), id: record.recordedBy.databaseId }) !== item.user) return false;
    const input = (
      JSON.parse(sentBody) as {
        variables: { input: { status: string; comment: string | null; values: { key: string; value: unknown }[] } };
      }
    ).variables.input;
    if (input.status !== record.status || (input.comment ?? null) !== (record.comment ?? null)) return false;
    return input.values.every((v) => {
      const kept = record.values.find((r) => r.key === v.key);
      return kept !== undefined && JSON.stringify(kept.value) === JSON.stringify(v.value);
    });
  }

  /**
   * What the server's record of the item's step is to this item: nothing to
   * decide (what the operator saw, or a write this device made and the server
   * confirmed), the item's own write that applied although its answer never came
   * back ('own': it is done), or a record made meanwhile — by someone else or by
   * the same operator on another device — for the operator to decide.
   */
  function conflictOf(item: RecordItem, job: JobData, ownWrites: Set<string>, sentBody?: string): Conflict | 'own' | undefined {
    const theirs = job.records.find((r) => r.stepId === item.stepId);
    if (!theirs) return undefined;
    if (item.base !== null && sameRecord(item.base, theirs)) return undefined;
    // an earlier item of this device, confirmed since: the operator's own queue, in order
    if (ownWrites.has(`${theirs.stepId}@${theirs.recordedAt}`)) return undefined;
    if (sentBody !== undefined && item.attempts > 0 && isSentRecord(item, sentBody, theirs)) return 'own';
    return {
      serverRevision: job.revision,
      theirs: {
        status: theirs.status,
        values: theirs.values.map((v) => ({ key: v.key, value: v.value, outOfLimits: v.outOfLimits })),
        comment: theirs.comment,
        recordedBy: [theirs.recordedBy.firstName, theirs.recordedBy.lastName].filter(Boolean).join(' ') || theirs.recordedBy.email,
        recordedById: theirs.recordedBy.databaseId,
        // when they entered it (older servers: when it was stored)
        recordedAt: theirs.capturedAt ?? theirs.recordedAt,
      },
    };
  }

  /** The records this device's confirmed writes made ("step@recordedAt"), as the server answered them. */
  async function ownWritesOf(current: UserKey, jobId: string): Promise<Set<string>> {
    const own = new Set<string>();
    for (const a of await inStore(storage, 'acknowledged', (acknowledged) => acknowledged.ofUser(current))) {
      const record =
        a.jobId === jobId && a.item.kind === 'record' ? (a.answer as Partial<RecordStepMutation['recordStep']>).record : undefined;
      if (record) own.add(`${record.stepId}@${record.recordedAt}`);
    }
    return own;
  }

  /**
   * CONFLICT on a write at a revision: the job is read again. Every queued
   * recording of the job whose step was recorded meanwhile (by anyone, the same
   * operator on another device included) since the operator saw it becomes a
   * conflict now (all the decisions at once, none sent meanwhile). The head item
   * whose own earlier send applied (its answer lost, its key forgotten) is done,
   * not a conflict with itself. Otherwise the change was harmless and the job's
   * queue goes on at the new revision.
   */
  async function onConflict(item: QueueItem & { expectedRevision: number }): Promise<Step> {
    const sentBody = item.sentBody;
    await freshKey(item);
    const job = await fetchJob(item.user, item.jobId);
    if (!job) {
      offlineFor(RETRY_OFFLINE_MS);
      return 'stop';
    }
    const ownWrites = await ownWritesOf(item.user, item.jobId);
    if (item.kind === 'record' && conflictOf(item, job, ownWrites, sentBody) === 'own') {
      const record = job.records.find((r) => r.stepId === item.stepId)!;
      await acknowledge(item, { revision: job.revision, job: { state: job.state, steps: job.steps, signoffs: job.signoffs }, record });
      await renumber(item.user, item.jobId);
      return 'restart';
    }
    let headConflicts = false;
    for (const queued of await queue.queuedItems(item.user)) {
      if (
        queued.jobId !== item.jobId ||
        queued.kind !== 'record' ||
        queued.state !== 'pending' ||
        (queued.sentBody !== undefined && queued.id !== item.id)
      )
        continue;
      const found = conflictOf(queued.id === item.id ? (item as RecordItem) : queued, job, ownWrites);
      if (!found || found === 'own') continue;
      const marked: RecordItem = { ...(queued.id === item.id ? (item as RecordItem) : queued), state: 'conflict', conflict: found };
      await putItem(marked);
      if (queued.id === item.id) headConflicts = true;
    }
    signals.notifyQueueChanged();
    if (headConflicts) {
      signals.notifyItemSettled(item, 'conflict');
      return 'held';
    }
    await renumber(item.user, item.jobId);
    return 'restart';
  }

  /**
   * The job's queued writes expect the revision the device now knows, one after
   * another. Only items never sent, or whose answer said they did not apply, are
   * here (the engine stops at a job's first unacknowledged item), so changing
   * their bodies cannot write anything twice.
   */
  async function renumber(current: UserKey, jobId: string): Promise<void> {
    await storage.transaction(['items', 'jobs'], 'readwrite', async (tx) => {
      const row = await tx('jobs').get([current, jobId]);
      if (row) {
        let next = row.job.revision;
        const before: QueueItem[] = [];
        for (const item of await tx('items').ofUser(current)) {
          if (item.jobId !== jobId || !isRevisioned(item)) continue;
          const step = item.kind === 'record' ? stepRevisionAfter(row.job, before, item.stepId) : undefined;
          if (
            item.sentBody === undefined &&
            (item.expectedRevision !== next || (item.kind === 'record' && item.expectedStepRevision !== step))
          ) {
            item.expectedRevision = next;
            if (item.kind === 'record') item.expectedStepRevision = step;
            await tx('items').put(item);
          }
          before.push(item);
          next++;
        }
      }
    });
  }

  /**
   * The operator's decision on a conflict (keep mine: recorded over theirs, which
   * stays in the job's audit history; keep theirs: mine is set aside) or on a
   * refused item (try again, or discard). Every decision is kept on the device.
   */
  async function resolveItem(current: UserKey, itemId: string, decision: Decision): Promise<void> {
    const item = await storage.transaction(['items', 'jobs', 'resolutions'], 'readwrite', async (tx) => {
      const found = (await tx('items').ofUser(current)).find((i) => i.id === itemId);
      if (!found) return undefined;
      await tx('resolutions').add({ user: current, jobId: found.jobId, itemId, decision, item: found, at: new Date(now()).toISOString() });
      if (decision === 'theirs' || decision === 'discard') {
        await tx('items').delete(found.seq!);
      } else {
        if (found.kind === 'record' && found.conflict?.theirs) {
          // what the operator has now seen: a further change by someone else is a new conflict
          const seen = (await tx('jobs').get([current, found.jobId]))?.job.records.find((r) => r.stepId === found.stepId);
          if (seen) found.base = baseOf(seen);
        }
        found.state = 'pending';
        delete found.conflict;
        delete found.error;
        found.idempotencyKey = newId();
        delete found.sentBody;
        await tx('items').put(found);
      }
      return found;
    });
    if (!item) return;
    await renumber(current, item.jobId);
    signals.notifyQueueChanged();
  }

  /** The GraphQL field an item's mutation answers under (what a report of it names as its operation). */
  function fieldOf(item: Exclude<QueueItem, { kind: 'upload' }>): string {
    return item.kind === 'record' ? 'recordStep' : item.kind === 'fault' ? 'raiseFault' : TRANSITIONS[item.action];
  }

  /** Items acknowledged under another data epoch than the server's now: a restore may have lost them. */
  async function staleAcknowledged(current: UserKey): Promise<AcknowledgedItem[]> {
    const epoch = serverClock.serverEpoch();
    if (!epoch) return [];
    return (await inStore(storage, 'acknowledged', (acknowledged) => acknowledged.ofUser(current)))
      .filter((a) => a.epoch !== undefined && a.epoch !== epoch)
      .sort((a, b) => a.acknowledgedAt.localeCompare(b.acknowledgedAt));
  }

  /** The file ids a frozen body refers to (photos of records and faults). */
  function fileIdsOf(body: string): number[] {
    const input = (JSON.parse(body) as { variables?: { input?: { values?: { value: unknown }[]; photos?: unknown } } }).variables?.input;
    const values = [...(input?.values ?? []).map((v) => v.value), input?.photos];
    return values.flatMap((v) => (Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : []));
  }

  /**
   * After a restore (the server announces another data epoch), every item the
   * device kept as acknowledged under an earlier epoch goes again, in its order,
   * with its key and its exact body: the server answers with the first answer
   * if it still has it, or applies it now. One it refuses (someone else wrote
   * the step since, the job was lost or closed) is reported to the server, which
   * makes it a deviation for supervisors, and kept for the operator to see.
   * False when the round must stop (no network, sign-in, the server busy).
   */
  async function resendAfterRestore(current: UserKey): Promise<boolean> {
    // photos uploaded again under a new id: a body naming the old one would attach whatever has that id now
    const changedFiles = new Set<number>();
    for (const kept of await staleAcknowledged(current)) {
      if (user !== current) return false;
      const item = kept.item;
      let outcome: Outcome;
      if (item.kind === 'upload') {
        const photo = await inStore(storage, 'blobs', (blobs) => blobs.get(item.id));
        outcome = photo
          ? await transport.sendUpload(photo.blob, photo.name, item.idempotencyKey)
          : { kind: 'refused', code: 'PHOTO_MISSING', message: 'The photo is no longer on this device' };
      } else if (item.sentBody === undefined) continue;
      else if (fileIdsOf(item.sentBody).some((id) => changedFiles.has(id)))
        outcome = { kind: 'refused', code: 'PHOTO_CHANGED', message: 'A photo it refers to was lost with the restore and uploaded again' };
      else outcome = await transport.sendMutation(item.sentBody, item.idempotencyKey, fieldOf(item));
      state.set({ requests: transport.requestsSent() });
      if (outcome.kind === 'ok') {
        if (item.kind === 'upload') {
          const before = (kept.answer as { files: { id: number }[] }).files[0].id;
          const file = (outcome.data as { files: { id: number; url?: string }[] }).files[0];
          if (file.id !== before) changedFiles.add(before);
          const upload = { id: item.id, user: item.user, fileId: file.id, url: file.url ?? `/api/client/files/${file.id}` };
          await inStore(storage, 'uploads', (uploads) => uploads.put(upload));
        }
        await inStore(storage, 'acknowledged', (acknowledged) =>
          acknowledged.put({ ...kept, answer: outcome.data, epoch: serverClock.serverEpoch() ?? kept.epoch }),
        );
        continue;
      }
      if (outcome.kind === 'refused' || outcome.kind === 'conflict') {
        if (!(await reportUnapplied(kept, outcome))) return false;
        continue;
      }
      if (outcome.kind === 'network') offlineFor(RETRY_OFFLINE_MS);
      else if (outcome.kind === 'signin') signInNeeded();
      else schedule(outcome.afterMs);
      return false;
    }
    return true;
  }

  /** A summary of an item for people (the deviation's detail). */
  function summaryOf(item: QueueItem): string {
    switch (item.kind) {
      case 'record':
        return `Step ${item.stepId} ${item.status}: ${item.values.map((v) => `${v.key} = ${JSON.stringify(v.value)}`).join(', ') || '(no values)'}`;
      case 'transition':
        return `Job ${item.action}`;
      case 'fault':
        return `Fault (${item.severity}): ${item.description}`.slice(0, 2000);
      case 'upload':
        return `Photo ${item.name}`;
    }
  }

  /** Reports a write lost with a restore and refused again, then keeps it for the operator (resolutions: 'unapplied'). */
  async function reportUnapplied(kept: AcknowledgedItem, error: { code: string; message: string }): Promise<boolean> {
    const item = kept.item;
    const jobId = Number(item.jobId.split(':')[1]);
    const report = {
      idempotencyKey: item.idempotencyKey,
      operation: item.kind === 'upload' ? 'upload' : fieldOf(item),
      jobId: Number.isInteger(jobId) && jobId > 0 ? jobId : null,
      stepId: item.kind === 'record' ? item.stepId : null,
      acknowledgedAt: kept.acknowledgedAt,
      acknowledgedEpoch: kept.epoch,
      error: { code: error.code, message: error.message.slice(0, 2000) },
      summary: summaryOf(item).slice(0, 2000),
      payload: item.sentBody && item.sentBody.length < 60_000 ? (JSON.parse(item.sentBody) as unknown) : null,
    };
    const sent = await transport.sendUnappliedReport(JSON.stringify(report), `unapplied:${item.idempotencyKey}`);
    state.set({ requests: transport.requestsSent() });
    if (sent.kind === 'network') offlineFor(RETRY_OFFLINE_MS);
    else if (sent.kind === 'signin') signInNeeded();
    else if (sent.kind === 'retry') schedule(sent.afterMs);
    if (sent.kind !== 'ok' && sent.kind !== 'refused') return false;
    // refused (a report the server cannot take): still shown to the operator, never dropped silently
    await storage.transaction(['acknowledged', 'resolutions'], 'readwrite', async (tx) => {
      await tx('resolutions').add({
        user: item.user,
        jobId: item.jobId,
        itemId: item.id,
        decision: 'unapplied',
        item,
        at: new Date(now()).toISOString(),
        error: report.error,
      });
      await tx('acknowledged').delete(kept.id);
    });
    signals.notifyQueueChanged();
    return true;
  }

  return {
    queue,
    signals,
    state,
    start: startSync,
    stop: stopSync,
    syncNow,
    syncUser,
    resolveItem,
    renumber,
  };
}
