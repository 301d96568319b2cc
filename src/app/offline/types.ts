import type { FaultSeverity, StepStatus } from '../../domain/vocabulary';
export type { StepStatus } from '../../domain/vocabulary';
/**
 * What the operator's offline queue holds. Every write an operator makes on a
 * job (a step recorded, a photo, a fault, a pause or completion) becomes one
 * queued item first, online or not: the queue is the one way writes leave the
 * device, so "offline" is only "the queue is not draining right now".
 */

/** The user a queue belongs to: `${clientId}:${userId}` (a tablet shared by a shift keeps each user's own). */
export type UserKey = string;

export function userKey(user: { clientId: number; id: number }): UserKey {
  return `${user.clientId}:${user.id}`;
}

/** A photo taken offline, referenced by the queued upload that carries it until the server gives it a file id. */
export interface LocalFileRef {
  localFile: string;
}

export function isLocalFileRef(value: unknown): value is LocalFileRef {
  return typeof value === 'object' && value !== null && typeof (value as LocalFileRef).localFile === 'string';
}

/** A value as queued: PHOTO values may hold LocalFileRefs next to file ids. */
export interface QueuedValue {
  key: string;
  value: unknown;
}

/** The step's record the operator saw when recording: what "someone else recorded it meanwhile" is judged against. */
export interface BaseRecord {
  recordedAt: string;
  recordedById: number;
  /** the record's revision (StepRecord.revision): what expectedStepRevision says the device saw */
  revision?: number;
}

export type ItemState =
  /** waiting to be sent */
  | 'pending'
  /** the server has another record of the step: the operator chooses (never resolved silently) */
  | 'conflict'
  /** the server refused it for good (e.g. the job was cancelled): shown until the operator retries or discards it */
  | 'rejected';

export type TransitionAction = 'pause' | 'resume' | 'complete';

interface ItemBase {
  /** order of the queue (IndexedDB autoIncrement): items are sent in this order */
  seq?: number;
  /** a stable id, also the Idempotency-Key's stem */
  id: string;
  user: UserKey;
  /** the job's global id (GraphQL `Job.id`) */
  jobId: string;
  /** the Idempotency-Key sent with it: the same on every retry of the same body */
  idempotencyKey: string;
  /** when the operator made the change, on the device's clock */
  createdAt: string;
  /** the same moment in the server's time (the offset measured at the last contact): sent as capturedAt */
  capturedAt?: string;
  state: ItemState;
  attempts: number;
  /**
   * The exact body once first sent: a retry after a lost answer sends these bytes with the same key, so the server
   * recognises it (Idempotency-Replayed) instead of running it twice.
   */
  sentBody?: string;
  /** `details`: the server's (e.g. SIGNOFF_MISSING's steps) */
  error?: { code: string; message: string; details?: Record<string, unknown> };
  conflict?: Conflict;
}

export interface UploadItem extends ItemBase {
  kind: 'upload';
  name: string;
  contentType: string;
}

export interface RecordItem extends ItemBase {
  kind: 'record';
  stepId: string;
  status: StepStatus;
  values: QueuedValue[];
  comment: string | null;
  reason: string | null;
  /** the job's revision this write expects (the last one the device knows, plus the writes queued before it) */
  expectedRevision: number;
  /** the step record's revision it expects (0: no record), the same way: a change of the step by anyone is a CONFLICT */
  expectedStepRevision?: number;
  base: BaseRecord | null;
}

export interface TransitionItem extends ItemBase {
  kind: 'transition';
  action: TransitionAction;
  expectedRevision: number;
}

export interface FaultItem extends ItemBase {
  kind: 'fault';
  stepId: string | null;
  description: string;
  severity: FaultSeverity;
  photos: (number | LocalFileRef)[];
}

export type QueueItem = UploadItem | RecordItem | TransitionItem | FaultItem;
/** Items that write the job at a revision (what recordStep and the transitions check). */
export type RevisionedItem = RecordItem | TransitionItem;

export function isRevisioned(item: QueueItem): item is RevisionedItem {
  return item.kind === 'record' || item.kind === 'transition';
}

/** A step recorded meanwhile (by someone else, or by the same operator on another device), as the server has it now. */
export interface Conflict {
  serverRevision: number;
  theirs: {
    status: StepStatus;
    values: { key: string; value: unknown; outOfLimits: boolean }[];
    comment: string | null;
    recordedBy: string;
    /** who: the same user as the queue's is "you, on another device" */
    recordedById?: number;
    recordedAt: string;
  } | null;
}
