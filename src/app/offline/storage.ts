import type { JobData } from './job-types';
import type { QueueItem, UserKey } from './types';

/**
 * Where the sync engine keeps the operator's queue and what the server
 * answered: the port the engine is given (offline/sync.ts createSyncEngine).
 * The app gives it IndexedDB (offline/db.ts); Node tests give it
 * memoryStorage() below. Every row carries its user: a queue is bound to
 * whoever made it, and another user signing in on the same tablet neither
 * sees nor sends it.
 */

/** A job as kept: its version's document apart (a version is shared by many jobs, and the row is rewritten on every answer). */
export type StoredJob = Omit<JobData, 'version'> & { version: { id: string; number: number } };

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

export interface Resolution {
  user: UserKey;
  jobId: string;
  itemId: string;
  /** 'unapplied': acknowledged, lost with a server restore and refused when sent again (reported to the server) */
  decision: 'mine' | 'theirs' | 'discard' | 'retry' | 'unapplied';
  item: QueueItem;
  at: string;
  error?: { code: string; message: string };
}

/** The stores, their rows and their keys. */
export interface Rows {
  /** the queue, in order (key: the autoIncrement `seq`) */
  items: QueueItem;
  /** the last server answer for a job (what the device knows for sure) */
  jobs: { user: UserKey; jobId: string; job: StoredJob; fetchedAt: string };
  /** the documents of the versions jobs run (immutable once published), by the version's global id */
  versions: { id: string; content: JobData['version']['content'] };
  /** a photo's bytes, by the id of the upload item that carries it */
  blobs: { id: string; user: UserKey; jobId: string; blob: Blob; name: string; type: string };
  /** the file id an acknowledged upload got, by the upload item's id (later items refer to it) */
  uploads: { id: string; user: UserKey; fileId: number; url: string };
  /** what the operator decided about conflicts and refusals: kept, never silently dropped (key: autoIncrement) */
  resolutions: Resolution;
  /**
   * Items the server confirmed, with their key and its answer, kept for the key's lifetime on the server (24 h):
   * what the job page shows as "confirmed", and how the device knows its own write when it meets it again.
   */
  acknowledged: AcknowledgedItem;
}

export interface Keys {
  items: number;
  jobs: [UserKey, string];
  versions: string;
  blobs: string;
  uploads: string;
  resolutions: number;
  acknowledged: string;
}

export type StoreName = keyof Rows;
const STORE_NAMES: readonly StoreName[] = ['items', 'jobs', 'versions', 'blobs', 'uploads', 'resolutions', 'acknowledged'];

/** One store inside a transaction. Rows are copies: changing one changes nothing until it is put. */
export interface Store<S extends StoreName> {
  get(key: Keys[S]): Promise<Rows[S] | undefined>;
  /** every row, in key order */
  getAll(): Promise<Rows[S][]>;
  /** every row with its key, in key order */
  entries(): Promise<[Keys[S], Rows[S]][]>;
  /** the rows of a user, in key order (versions have no user: none) */
  ofUser(user: UserKey): Promise<Rows[S][]>;
  put(row: Rows[S]): Promise<void>;
  /** adds a row under a new key (autoIncrement stores: the next number; `items` get it as their `seq`) */
  add(row: Rows[S]): Promise<Keys[S]>;
  delete(key: Keys[S]): Promise<void>;
  clear(): Promise<void>;
}

export type Transaction = <S extends StoreName>(name: S) => Store<S>;

export interface OfflineStorage {
  /**
   * Runs `work` on the named stores in one transaction: all of its writes or none. `work` awaits only the
   * stores' own promises (IndexedDB commits a transaction that waits on anything else).
   */
  transaction<T>(stores: readonly StoreName[], mode: 'readonly' | 'readwrite', work: (tx: Transaction) => Promise<T>): Promise<T>;
}

/** A single read or write in its own transaction. */
export function inStore<S extends StoreName, T>(storage: OfflineStorage, name: S, work: (store: Store<S>) => Promise<T>): Promise<T> {
  return storage.transaction([name], 'readwrite', (tx) => work(tx(name)));
}

/** The key of a row, where the row holds it (in-line keys); undefined for out-of-line ones (resolutions). */
function keyOf<S extends StoreName>(name: S, row: Rows[S]): Keys[S] | undefined {
  switch (name) {
    case 'items':
      return (row as Rows['items']).seq as Keys[S] | undefined;
    case 'jobs':
      return [(row as Rows['jobs']).user, (row as Rows['jobs']).jobId] as Keys[S];
    case 'resolutions':
      return undefined;
    default:
      return (row as { id: string }).id as Keys[S];
  }
}

/** IndexedDB's key order for the keys used here: numbers, strings, arrays of them. */
function compareKeys(a: unknown, b: unknown): number {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareKeys(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

type Table = Map<string, { key: unknown; row: unknown }>;

/**
 * The stores in memory, with what IndexedDB guarantees that the engine relies
 * on: rows are copies (structured clones), keys in order, autoIncrement, and
 * transactions that run one at a time and keep all their writes or none.
 */
export function memoryStorage(): OfflineStorage {
  const tables = new Map<StoreName, Table>(STORE_NAMES.map((name) => [name, new Map()]));
  const counters = new Map<StoreName, number>();
  let queue: Promise<unknown> = Promise.resolve();

  async function run<T>(stores: readonly StoreName[], work: (tx: Transaction) => Promise<T>): Promise<T> {
    const working = new Map(stores.map((name) => [name, new Map(tables.get(name))]));
    const nextCounters = new Map(counters);
    const tx = (<S extends StoreName>(name: S): Store<S> => {
      const table = working.get(name);
      if (!table) throw new Error(`the store ${name} is not in this transaction`);
      const sorted = () => [...table.values()].sort((a, b) => compareKeys(a.key, b.key));
      const put = (key: unknown, row: unknown) => table.set(JSON.stringify(key), { key, row: structuredClone(row) });
      const store: Store<S> = {
        get: async (key) => structuredClone(table.get(JSON.stringify(key))?.row as Rows[S] | undefined),
        getAll: async () => sorted().map((e) => structuredClone(e.row as Rows[S])),
        entries: async () => sorted().map((e) => [e.key as Keys[S], structuredClone(e.row as Rows[S])]),
        ofUser: async (user) => (await store.getAll()).filter((row) => (row as { user?: UserKey }).user === user),
        put: async (row) => {
          const key = keyOf(name, row);
          if (key === undefined) throw new Error(`a row of ${name} needs its key`);
          put(key, row);
        },
        add: async (row) => {
          let key = keyOf(name, row);
          if (key === undefined) {
            const next = (nextCounters.get(name) ?? 0) + 1;
            nextCounters.set(name, next);
            key = next as Keys[S];
            // IndexedDB sets the key on its copy of the row, not on the caller's
            if (name === 'items') row = { ...row, seq: next };
          }
          if (table.has(JSON.stringify(key))) throw new Error(`${name}: the key ${JSON.stringify(key)} exists`);
          if (name === 'items' && [...table.values()].some((e) => (e.row as QueueItem).id === (row as QueueItem).id))
            throw new Error(`items: the id ${(row as QueueItem).id} exists`);
          put(key, row);
          return key;
        },
        delete: async (key) => void table.delete(JSON.stringify(key)),
        clear: async () => table.clear(),
      };
      return store;
    }) as Transaction;
    const result = await work(tx);
    for (const [name, table] of working) tables.set(name, table);
    for (const [name, value] of nextCounters) counters.set(name, value);
    return result;
  }

  return {
    transaction(stores, _mode, work) {
      const result = queue.then(() => run(stores, work));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}
