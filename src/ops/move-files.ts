import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FileStore } from '#storage';
import { listFiles } from './backup-archive';
import { FILES_DIR } from '#lib/paths';

export interface FileMoveProgress {
  phase: 'copy' | 'verify';
  done: number;
  total: number;
}

export interface FileMoveReport {
  /** stored files in <data-dir>/files */
  files: number;
  bytes: number;
  /** uploaded by this run */
  copied: number;
  /** already in the target with the right size (an earlier, interrupted run): not uploaded again */
  present: number;
  /** in the target with the right size but the wrong content: uploaded again, then verified */
  repaired: number;
}

/** A stored file: <first two hex>/<sha256>, as the local store lays them out (not its tmp/ leftovers). */
const STORED = /^([a-f0-9]{2})\/(\1[a-f0-9]{62})$/;

/**
 * Copies every stored file of <data-dir>/files into another store, then
 * verifies it there. Streamed (one file at a time, never held in memory) and
 * resumable: a file already in the target with the right size is not uploaded
 * again, so an interrupted run is simply run again. The key is the SHA-256 of
 * the content, so the target's put (which hashes what streams through) also
 * proves the local copy intact. Verification reads every file back from the
 * target and hashes it; a file with the right size but other bytes is
 * uploaded again and read back once more.
 */
export async function moveFiles(
  dataDir: string,
  target: FileStore,
  onProgress?: (progress: FileMoveProgress) => void,
): Promise<FileMoveReport> {
  const root = path.join(dataDir, FILES_DIR);
  const keys = fs.existsSync(root) ? listFiles(root).flatMap((relative) => STORED.exec(relative)?.[2] ?? []) : [];
  const fileOf = (key: string) => path.join(root, key.slice(0, 2), key);
  const report: FileMoveReport = { files: keys.length, bytes: 0, copied: 0, present: 0, repaired: 0 };

  const upload = async (key: string) => {
    const stored = await target.put(fs.createReadStream(fileOf(key)));
    if (stored.key !== key)
      throw new Error(
        `${fileOf(key)} does not hash to its name (its content is ${stored.key}): the local file is damaged; restore it from a backup`,
      );
  };

  let done = 0;
  for (const key of keys) {
    const { size } = await fs.promises.stat(fileOf(key));
    report.bytes += size;
    if ((await target.stat(key))?.size === size) report.present++;
    else {
      await upload(key);
      report.copied++;
    }
    onProgress?.({ phase: 'copy', done: ++done, total: keys.length });
  }

  done = 0;
  for (const key of keys) {
    if ((await hashIn(target, key)) !== key) {
      await upload(key);
      const again = await hashIn(target, key);
      if (again !== key) throw new Error(`verification failed: file ${key} reads back from the target store as ${again ?? 'missing'}`);
      report.repaired++;
    }
    onProgress?.({ phase: 'verify', done: ++done, total: keys.length });
  }
  return report;
}

/** SHA-256 of a stored file as the store streams it back; null when missing. */
async function hashIn(store: FileStore, key: string): Promise<string | null> {
  let stream;
  try {
    ({ stream } = await store.get(key));
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw error;
  }
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
