import { createHash } from 'node:crypto';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { AppError } from '#errors';

/**
 * Reading ZIP archives someone else made (yauzl does the format), refusing
 * the known attacks before a byte is used: names that climb out of the
 * archive (zip-slip) or are absolute, symbolic links and other special
 * files, encrypted entries, duplicates, too many entries, and expansion past a
 * limit — declared sizes are checked first, and the bytes actually inflated
 * are counted while reading, because headers lie in a zip bomb.
 */

export type ZipRefusal =
  | 'NOT_A_ZIP'
  | 'TOO_MANY_ENTRIES'
  | 'TOO_LARGE'
  | 'ZIP_SLIP'
  | 'ABSOLUTE_PATH'
  | 'SYMLINK'
  | 'SPECIAL_FILE'
  | 'ENCRYPTED'
  | 'DUPLICATE_ENTRY'
  | 'UNEXPECTED_ENTRY'
  | 'MISSING_ENTRY'
  | 'CHECKSUM_MISMATCH'
  | 'MANIFEST_INVALID';

/** 422 ARCHIVE_INVALID with `details.reason` (and the entry at fault). */
export function archiveInvalid(reason: ZipRefusal, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('ARCHIVE_INVALID', message, { reason, ...details });
}

export interface ZipLimits {
  maxEntries: number;
  /** the whole archive, inflated */
  maxUnzippedBytes: number;
}

export interface SafeZip {
  /** file entries (directories left out), in archive order */
  readonly names: readonly string[];
  /** inflates one entry into `sink` and returns its SHA-256 and size (the inflated bytes of every read count against the limit) */
  read(name: string, sink?: Writable): Promise<{ sha256: string; size: number }>;
  /** one entry in memory, refused past `maxBytes` */
  readBuffer(name: string, maxBytes: number): Promise<Buffer>;
  close(): void;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** "version made by" hosts whose external attributes carry a Unix mode: Unix, macOS */
const UNIX_HOSTS = new Set([3, 19]);

/** Why a name is not a safe relative path inside the archive, or null. */
function unsafeName(name: string): ZipRefusal | null {
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.startsWith('\\')) return 'ABSOLUTE_PATH';
  if (name.includes('\\') || name.includes('\0') || name.split('/').some((part) => part === '..')) return 'ZIP_SLIP';
  return null;
}

/**
 * Opens a ZIP file on disk and checks its central directory.
 * @throws AppError ARCHIVE_INVALID (NOT_A_ZIP, TOO_MANY_ENTRIES, TOO_LARGE, ZIP_SLIP, ABSOLUTE_PATH, SYMLINK, SPECIAL_FILE, ENCRYPTED, DUPLICATE_ENTRY)
 */
export async function openSafeZip(file: string, limits: ZipLimits): Promise<SafeZip> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(file, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (error, z) =>
        error ? reject(error) : resolve(z),
      ),
    );
  } catch (error) {
    throw archiveInvalid('NOT_A_ZIP', `Not a readable ZIP archive: ${(error as Error).message}`);
  }
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw archiveInvalid('TOO_MANY_ENTRIES', `The archive has ${zip.entryCount} entries; at most ${limits.maxEntries} are accepted`, {
        limit: limits.maxEntries,
      });
    }
    const entries = await scan(zip, limits);
    return reader(zip, entries, limits);
  } catch (error) {
    zip.close();
    throw error;
  }
}

async function scan(zip: yauzl.ZipFile, limits: ZipLimits): Promise<Map<string, yauzl.Entry>> {
  const entries = new Map<string, yauzl.Entry>();
  let declared = 0;
  let count = 0;
  await new Promise<void>((resolve, reject) => {
    zip.on('error', (error: Error) =>
      reject(error instanceof AppError ? error : archiveInvalid('NOT_A_ZIP', `Not a readable ZIP archive: ${error.message}`)),
    );
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      try {
        // the end record's count can be wrong: count what the directory really holds
        if (++count > limits.maxEntries)
          throw archiveInvalid('TOO_MANY_ENTRIES', `The archive has more than ${limits.maxEntries} entries`, { limit: limits.maxEntries });
        const name = (entry.fileName as unknown as Buffer).toString('utf8');
        const unsafe = unsafeName(name);
        if (unsafe) throw archiveInvalid(unsafe, `Unsafe entry name "${name}"`, { entry: name });
        const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
        const isDirectory = name.endsWith('/');
        if (UNIX_HOSTS.has(entry.versionMadeBy >> 8) && mode !== 0) {
          if (mode === S_IFLNK) throw archiveInvalid('SYMLINK', `Entry "${name}" is a symbolic link`, { entry: name });
          if (mode !== (isDirectory ? S_IFDIR : S_IFREG))
            throw archiveInvalid('SPECIAL_FILE', `Entry "${name}" is not a regular file`, { entry: name });
        }
        if (entry.isEncrypted()) throw archiveInvalid('ENCRYPTED', `Entry "${name}" is encrypted`, { entry: name });
        if (entries.has(name)) throw archiveInvalid('DUPLICATE_ENTRY', `Entry "${name}" appears twice`, { entry: name });
        declared += entry.uncompressedSize;
        if (declared > limits.maxUnzippedBytes) throw tooLarge(limits);
        if (!isDirectory) entries.set(name, entry);
        zip.readEntry();
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    zip.readEntry();
  });
  return entries;
}

const tooLarge = (limits: ZipLimits) =>
  archiveInvalid('TOO_LARGE', `The archive expands past ${limits.maxUnzippedBytes} bytes`, { limit: limits.maxUnzippedBytes });

function reader(zip: yauzl.ZipFile, entries: Map<string, yauzl.Entry>, limits: ZipLimits): SafeZip {
  let inflated = 0;
  const read = async (name: string, sink?: Writable, maxBytes = Infinity) => {
    const entry = entries.get(name);
    if (!entry) throw archiveInvalid('MISSING_ENTRY', `The archive has no entry "${name}"`, { entry: name });
    let stream: Readable;
    try {
      stream = await zip.openReadStreamPromise(entry);
    } catch (error) {
      throw archiveInvalid('NOT_A_ZIP', `Entry "${name}" cannot be read: ${(error as Error).message}`, { entry: name });
    }
    const hash = createHash('sha256');
    let size = 0;
    const counter = async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        size += chunk.length;
        inflated += chunk.length;
        if (inflated > limits.maxUnzippedBytes) throw tooLarge(limits);
        if (size > maxBytes)
          throw archiveInvalid('TOO_LARGE', `Entry "${name}" is larger than ${maxBytes} bytes`, { entry: name, limit: maxBytes });
        hash.update(chunk);
        yield chunk;
      }
    };
    try {
      if (sink) await pipeline(stream, counter, sink);
      else
        await pipeline(stream, counter, async function (source) {
          for await (const _ of source);
        });
    } catch (error) {
      stream.destroy();
      if (error instanceof AppError) throw error;
      // yauzl's validateEntrySizes: more bytes than the header declared is a lying header, the zip bomb's trick
      if (/too many bytes/i.test((error as Error).message))
        throw archiveInvalid('TOO_LARGE', `Entry "${name}" inflates past its declared size`, { entry: name });
      throw archiveInvalid('NOT_A_ZIP', `Entry "${name}" is corrupt: ${(error as Error).message}`, { entry: name });
    }
    return { sha256: hash.digest('hex'), size };
  };
  return {
    names: [...entries.keys()],
    read: (name, sink) => read(name, sink),
    async readBuffer(name, maxBytes) {
      const chunks: Buffer[] = [];
      await read(
        name,
        new Writable({
          write(chunk: Buffer, _enc, done) {
            chunks.push(chunk);
            done();
          },
        }),
        maxBytes,
      );
      return Buffer.concat(chunks);
    },
    close: () => zip.close(),
  };
}

/** One entry of a ZIP being written: bytes at hand, or a stream opened when yazl reaches it. */
export type ZipSource = { path: string; data: Buffer } | { path: string; open: () => Promise<Readable> };

/**
 * Writes a ZIP (yazl) as a stream: entries whose bytes come from streams are
 * opened one at a time as the archive reaches them, so a large export holds
 * one file open and nothing in memory. Already-compressed media would gain
 * little from deflate; everything is deflated anyway for one simple rule.
 */
export function writeZip(entries: readonly ZipSource[], mtime: Date): Readable {
  const zip = new yazl.ZipFile();
  for (const entry of entries) {
    if ('data' in entry) zip.addBuffer(entry.data, entry.path, { mtime });
    else
      zip.addReadStreamLazy(
        entry.path,
        { mtime },
        (callback) =>
          void entry.open().then(
            (stream) => callback(null, stream),
            (error: Error) => callback(error, undefined as never),
          ),
      );
  }
  zip.end();
  return zip.outputStream as Readable;
}
