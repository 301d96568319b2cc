import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { JobData } from './job-data';

/** A job as kept: its version's document apart (a version is shared by many jobs, and the row is rewritten on every answer). */
export type StoredJob = Omit<JobData, 'version'> & { version: { id: string; number: number } };
import type { QueueItem, UserKey } from './types';

/**
 * The operator's IndexedDB (through idb): the write queue, the jobs opened
 * online, the photos taken offline and the file ids their uploads got. Every
 * row carries its user: a queue is bound to whoever made it, and another user
 * signing in on the same tablet neither sees nor sends it.
 */
export interface OfflineSchema extends DBSchema {
  /** the queue, in order (autoIncrement seq) */
  items: { key: number; value: QueueItem; indexes: { user: UserKey; id: string } };
  /** the last server answer for a job (what the device knows for sure) */
  jobs: { key: [UserKey, string]; value: { user: UserKey; jobId: string; job: StoredJob; fetchedAt: string } };
  /** the documents of the versions jobs run (immutable once published), by the version's global id */
  versions: { key: string; value: { id: string; content: JobData['version']['content'] } };
  /** a photo's bytes, by the id of the upload item that carries it */
  blobs: { key: string; value: { id: string; user: UserKey; jobId: string; blob: Blob; name: string; type: string } };
  /** the file id an acknowledged upload got, by the upload item's id (later items refer to it) */
  uploads: { key: string; value: { id: string; user: UserKey; fileId: number; url: string } };
  /** what the operator decided about conflicts and refusals: kept, never silently dropped */
  resolutions: {
    key: number;
    value: {
      user: UserKey;
      jobId: string;
      itemId: string;
      /** 'unapplied': acknowledged, lost with a server restore and refused when sent again (reported to the server) */
      decision: 'mine' | 'theirs' | 'discard' | 'retry' | 'unapplied';
      item: QueueItem;
      at: string;
      error?: { code: string; message: string };
    };
  };
  /**
   * Items the server confirmed, with their key and its answer, kept for the key's lifetime on the server (24 h):
   * what the job page shows as "confirmed", and how the device knows its own write when it meets it again.
   */
  acknowledged: { key: string; value: AcknowledgedItem; indexes: { user: UserKey } };
}

export interface AcknowledgedItem {
  /** the item's id */
  id: string;
  user: UserKey;
  jobId: string;
  item: QueueItem;
  /** the server's answer (the mutation's data) */
  answer: unknown;
  acknowledgedAt: string;
  /** the data epoch of the answer (Wip-Data-Epoch): another one later means a restore may have lost it */
  epoch?: string;
}

export const DB_NAME = 'wip-offline';
const DB_VERSION = 2;

let opening: Promise<IDBPDatabase<OfflineSchema>> | undefined;

export function offlineDb(): Promise<IDBPDatabase<OfflineSchema>> {
  opening ??= openDB<OfflineSchema>(DB_NAME, DB_VERSION, {
    upgrade(db, oldVersion) {
      if (oldVersion < 1) createFirstStores(db);
      if (oldVersion < 2) db.createObjectStore('acknowledged', { keyPath: 'id' }).createIndex('user', 'user');
    },
    // another tab upgrading: let it, and reopen on next use
    blocking() {
      void opening?.then((db) => db.close());
      opening = undefined;
    },
  });
  return opening;
}

function createFirstStores(db: IDBPDatabase<OfflineSchema>): void {
  const items = db.createObjectStore('items', { keyPath: 'seq', autoIncrement: true });
  items.createIndex('user', 'user');
  items.createIndex('id', 'id', { unique: true });
  db.createObjectStore('jobs', { keyPath: ['user', 'jobId'] });
  db.createObjectStore('versions', { keyPath: 'id' });
  db.createObjectStore('blobs', { keyPath: 'id' });
  db.createObjectStore('uploads', { keyPath: 'id' });
  db.createObjectStore('resolutions', { autoIncrement: true });
}
