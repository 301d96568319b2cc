import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { Keys, OfflineStorage, Rows, Store, StoreName, Transaction } from './storage';
import type { UserKey } from './types';

/**
 * The operator's IndexedDB (through idb): the sync engine's storage in the
 * app (offline/storage.ts says what each store holds). Every row carries its
 * user: a queue is bound to whoever made it, and another user signing in on
 * the same tablet neither sees nor sends it.
 */
export interface OfflineSchema extends DBSchema {
  items: { key: number; value: Rows['items']; indexes: { user: UserKey; id: string } };
  jobs: { key: [UserKey, string]; value: Rows['jobs'] };
  versions: { key: string; value: Rows['versions'] };
  blobs: { key: string; value: Rows['blobs'] };
  uploads: { key: string; value: Rows['uploads'] };
  resolutions: { key: number; value: Rows['resolutions'] };
  acknowledged: { key: string; value: Rows['acknowledged']; indexes: { user: UserKey } };
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

/** The stores with a `user` index (the others are filtered: they are small). */
const INDEXED_BY_USER = new Set<StoreName>(['items', 'acknowledged']);

function storeOf<S extends StoreName>(name: S, store: unknown): Store<S> {
  // idb's types are per store; the port's are too, so the casts only join the two descriptions of the same rows
  const s = store as {
    get(key: unknown): Promise<Rows[S] | undefined>;
    getAll(): Promise<Rows[S][]>;
    getAllKeys(): Promise<Keys[S][]>;
    put(row: Rows[S]): Promise<unknown>;
    add(row: Rows[S]): Promise<Keys[S]>;
    delete(key: unknown): Promise<void>;
    clear(): Promise<void>;
    index(name: 'user'): { getAll(user: UserKey): Promise<Rows[S][]> };
  };
  return {
    get: (key) => s.get(key),
    getAll: () => s.getAll(),
    async entries() {
      const keys = await s.getAllKeys();
      const rows = await s.getAll();
      return keys.map((key, i) => [key, rows[i]]);
    },
    async ofUser(user) {
      if (INDEXED_BY_USER.has(name)) return s.index('user').getAll(user);
      return (await s.getAll()).filter((row) => (row as { user?: UserKey }).user === user);
    },
    put: async (row) => void (await s.put(row)),
    add: (row) => s.add(row),
    delete: (key) => s.delete(key),
    clear: () => s.clear(),
  };
}

/** The sync engine's storage in the browser: IndexedDB, one IndexedDB transaction per storage transaction. */
export function indexedDbStorage(): OfflineStorage {
  return {
    async transaction(stores, mode, work) {
      const db = await offlineDb();
      const tx = db.transaction([...stores], mode);
      const access = (<S extends StoreName>(name: S) => storeOf(name, tx.objectStore(name))) as Transaction;
      try {
        const result = await work(access);
        await tx.done;
        return result;
      } catch (error) {
        try {
          tx.abort();
        } catch {
          // already finished
        }
        throw error;
      }
    },
  };
}
