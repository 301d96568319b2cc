import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where uploaded and generated files live. Content-addressed: the key is the
 * SHA-256 of the bytes, so storing the same document twice keeps one copy and
 * a key can never name another tenant's file by accident of naming. Routes and
 * services only see this interface, so an S3-compatible store can replace the
 * local disk without touching them.
 */
export interface FileStore {
  /**
   * Stores bytes (a stream is consumed as it arrives, never held in memory):
   * when `put` resolves the content is durable under its key. A stream that
   * fails (e.g. an upload over the limit) leaves nothing behind.
   */
  put(data: Buffer | Readable): Promise<{ key: string; size: number }>;
  /** streams a stored file, or the inclusive byte range. @throws Error with code ENOENT when missing */
  get(key: string, range?: ByteRange): Promise<{ stream: Readable; size: number }>;
  /** size and last modification of a stored file; null when missing */
  stat(key: string): Promise<{ size: number; modifiedAt: Date } | null>;
  delete(key: string): Promise<void>;
}

/**
 * Store files written or touched more recently than this may belong to work in
 * progress (an upload between its store write and its row commit — `put`
 * touches content it finds already stored — or a backup): neither garbage
 * collection nor `wip doctor --fix` removes them yet.
 */
export const IN_PROGRESS_GRACE_MS = 60 * 60_000;

/** Inclusive byte offsets, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

const KEY = /^[a-f0-9]{64}$/;
/** Temporary files of uploads in progress; `wip doctor --fix` removes leftovers of interrupted ones. */
export const TEMP_DIR = 'tmp';

/**
 * Local disk under <data-dir>/files/<first two hex>/<sha256>. A put streams to
 * files/tmp/, fsyncs, renames onto the key (atomic: a reader never sees half a
 * file) and fsyncs the folder so the rename survives a power cut; only then
 * may the caller commit a row that references the key.
 */
export function createFileStore(dataDir: string): FileStore {
  const root = path.join(dataDir, 'files');
  const fileFor = (key: string) => {
    if (!KEY.test(key)) throw Object.assign(new Error(`invalid file key "${key}"`), { code: 'ENOENT' });
    return path.join(root, key.slice(0, 2), key);
  };
  return {
    async put(data) {
      const tempDir = path.join(root, TEMP_DIR);
      await fs.promises.mkdir(tempDir, { recursive: true, mode: 0o750 });
      const temp = path.join(tempDir, `${Date.now()}-${randomBytes(8).toString('hex')}.part`);
      const counter = contentAddress();
      try {
        const source = Buffer.isBuffer(data) ? Readable.from([data]) : data;
        await pipeline(source, counter.stream, fs.createWriteStream(temp, { mode: 0o640 }));
        await syncFile(temp);
      } catch (error) {
        await fs.promises.rm(temp, { force: true });
        throw error;
      }
      const { key, size } = counter.result();
      const file = fileFor(key);
      try {
        await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o750 });
        if (fs.existsSync(file)) {
          // same content already stored: keep it, and mark it recently used so
          // garbage collection (doctor --fix, which spares young files) leaves it
          // alone while the row that references it is committed
          const now = new Date();
          await fs.promises.utimes(file, now, now);
          await fs.promises.rm(temp, { force: true });
        } else {
          await fs.promises.rename(temp, file);
        }
        await syncFile(path.dirname(file));
      } catch (error) {
        await fs.promises.rm(temp, { force: true });
        throw error;
      }
      return { key, size };
    },
    async get(key, range) {
      const file = fileFor(key);
      const stat = await fs.promises.stat(file);
      const stream = range ? fs.createReadStream(file, { start: range.start, end: range.end }) : fs.createReadStream(file);
      return { stream, size: stat.size };
    },
    async stat(key) {
      try {
        const stat = await fs.promises.stat(fileFor(key));
        return { size: stat.size, modifiedAt: stat.mtime };
      } catch (error) {
        // only "not there" is an answer; a store that cannot be read (a broken mount) is an error, never "missing"
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async delete(key) {
      await fs.promises.rm(fileFor(key), { force: true });
    },
  };
}

/** A pass-through that hashes and counts what streams through it: the key (SHA-256) and size of the content. */
export function contentAddress(): { stream: Transform; result(): { key: string; size: number } } {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  return { stream, result: () => ({ key: hash.digest('hex'), size }) };
}

/** fsync: the bytes (or a folder's entries) are on disk, not only in the page cache. */
async function syncFile(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Deletes temporary files of uploads a previous run was writing when it
 * stopped (crash, kill -9). Called at daemon start, after the pid file is
 * claimed: no other process writes there then.
 */
export function removeInterruptedUploads(dataDir: string): number {
  const dir = path.join(dataDir, 'files', TEMP_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) fs.rmSync(path.join(dir, name), { force: true, recursive: true });
  return names.length;
}
