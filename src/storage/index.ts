import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where uploaded and generated files live. Content-addressed: the key is the
 * SHA-256 of the bytes, so storing the same document twice keeps one copy and
 * a key can never name another tenant's file by accident of naming.
 */
export interface FileStore {
  /** stores bytes; returns their key and size */
  put(data: Buffer): Promise<{ key: string; size: number }>;
  /** streams a stored file. @throws Error with code ENOENT when missing */
  open(key: string): Promise<{ stream: Readable; size: number }>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
}

const KEY = /^[a-f0-9]{64}$/;

/** Local disk under <data-dir>/files/<first two hex>/<sha256>. */
export function createFileStore(dataDir: string): FileStore {
  const root = path.join(dataDir, 'files');
  const fileFor = (key: string) => {
    if (!KEY.test(key)) throw Object.assign(new Error(`invalid file key "${key}"`), { code: 'ENOENT' });
    return path.join(root, key.slice(0, 2), key);
  };
  return {
    async put(data) {
      const key = createHash('sha256').update(data).digest('hex');
      const file = fileFor(key);
      if (!fs.existsSync(file)) {
        await fs.promises.mkdir(path.dirname(file), { recursive: true });
        // write then rename: a reader never sees half a file
        const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
        await fs.promises.writeFile(temp, data, { mode: 0o640 });
        await fs.promises.rename(temp, file);
      }
      return { key, size: data.length };
    },
    async open(key) {
      const file = fileFor(key);
      const stat = await fs.promises.stat(file);
      return { stream: fs.createReadStream(file), size: stat.size };
    },
    async exists(key) {
      try {
        await fs.promises.access(fileFor(key));
        return true;
      } catch {
        return false;
      }
    },
    async delete(key) {
      await fs.promises.rm(fileFor(key), { force: true });
    },
  };
}
