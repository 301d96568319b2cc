import fs from 'node:fs';
import { pipeline, Readable, Transform } from 'node:stream';
import type { Deps } from '#deps';
import type { Kysely } from 'kysely';
import type { DB, FileRow, SystemFileRow } from '#db/schema';
import type { Content } from '#domain/content';
import type { TenantScope } from '#db/tenant';
import { withTransaction } from '#db/transaction';
import { AppError, forbidden, notFound, validationFailed } from '#errors';
import { maxUploadBytes } from '#config';
import { appendAudit } from '#repos/audit';
import {
  deleteFileRow,
  dropFileGarbage,
  requeueFileGarbage,
  findFileReferences,
  listFileGarbage,
  findFilesByIds,
  findStorageQuota,
  getFileById,
  getSystemFileById,
  insertFile,
  insertSystemFile,
  listNewBlobs,
  replaceFileContent,
  sumClientStorage,
  updateStorageQuota,
  type StoredContent,
} from '#repos/files';
import { getClientById } from '#repos/clients';
import { tenantScope } from '#db/tenant';
import { ensureClientSettingsRow } from './security-settings';
import { logActorOf, recordChange, recordLogEntry, type ChangedBy } from './security-log';
import type { Actor, RequestMeta } from './actor';
import { detectContentType, SNIFF_BYTES } from '#storage/content-type';
import { isJudgedImage } from '#lib/images';
import { IN_PROGRESS_GRACE_MS, type ByteRange } from '#storage';
import { isFileKeyReferenced } from '#repos/maintenance';
import { deserializeContent, findStep } from '#domain/content';
import { recordedFileIds } from '#domain/recording';

// Files: bytes go to the content-addressed store first (streamed, fsynced,
// renamed), and only then is the row that references them committed, so a
// crash at any point leaves either the old state or the new one; content that
// no row references (a crash between the two, a refused upload) is removed by
// `wip doctor --fix`, never in the request path, where it could race another
// upload of the same bytes.

export type { StoredContent } from '#repos/files';

/** Who stored a file and how it is described. */
export interface FileMeta {
  name: string;
  description?: string;
  /** the user who uploaded it; null for the system (imports, generated reports) */
  uploadedBy: { userId: number; email: string } | null;
}

/**
 * The bytes an upload may still bring (shared by all files of one request:
 * each stream spends from it), and the error when it brings more.
 */
export interface ByteBudget {
  remaining: number;
  tooLarge: () => AppError;
}

export const payloadTooLarge = (limit: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `The upload is larger than the limit of ${limit} bytes`, { limit });
export const quotaExceeded = (quota: number, used: number) =>
  new AppError('STORAGE_QUOTA_EXCEEDED', "The upload would exceed the client's storage quota", { quota, used });

/**
 * How much one upload may bring: the appliance limit (WIP_MAX_UPLOAD), or less
 * when the client's storage quota has less room. The quota is checked again
 * exactly (deduplicated content is free) when the rows are committed.
 */
export async function uploadBudget(deps: Deps, scope: TenantScope | null): Promise<ByteBudget> {
  const limit = maxUploadBytes(deps.config);
  const byLimit = { remaining: limit, tooLarge: () => payloadTooLarge(limit) };
  if (!scope) return byLimit;
  const quota = await findStorageQuota(deps.db.kysely, scope);
  if (quota === null) return byLimit;
  const used = await sumClientStorage(deps.db.kysely, scope);
  const room = Math.max(0, quota - used);
  return room < limit ? { remaining: room, tooLarge: () => quotaExceeded(quota, used) } : byLimit;
}

/**
 * Streams bytes into the store (never buffered whole), counting them against
 * the budget and detecting the content type from the first bytes. Over budget:
 * the stream fails with the budget's error and no content is kept.
 */
export async function putContent(deps: Deps, source: Buffer | Readable, name: string, budget?: ByteBudget): Promise<StoredContent> {
  const head: Buffer[] = [];
  let headBytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (budget) {
        budget.remaining -= chunk.length;
        if (budget.remaining < 0) return callback(budget.tooLarge());
      }
      if (headBytes < SNIFF_BYTES) {
        head.push(chunk.subarray(0, SNIFF_BYTES - headBytes));
        headBytes += Math.min(chunk.length, SNIFF_BYTES - headBytes);
      }
      callback(null, chunk);
    },
  });
  const input = Buffer.isBuffer(source) ? Readable.from([source]) : source;
  // pipeline, not pipe: a source that fails (a multipart body cut short) fails the store's write, which removes its temporary file
  const stored = await deps.storage.put(pipeline(input, meter, () => undefined));
  const content = { sha256: stored.key, size: stored.size, contentType: detectContentType(Buffer.concat(head), name) };
  await assertImageReadable(deps, content, Buffer.concat(head), name);
  return content;
}

/** PNG and JPEG files past this size are refused: they are read whole to be judged (GIF and WebP by their head). */
export const MAX_IMAGE_FILE_BYTES = 64 * 1024 * 1024;

/** What an upload refused as an unreadable image answers: 422 naming the file, `details.decompressionBomb` when it declares more than the limits. */
export function imageRefused(name: string, problem: string, bomb = false): AppError {
  return validationFailed(
    { fields: [{ path: 'file', message: `${name}: the image ${problem}` }], file: name, ...(bomb && { decompressionBomb: true }) },
    `The image "${name}" cannot be used: it ${problem}`,
  );
}

/**
 * An upload refused as an unreadable image, on the security log (event
 * `file.image_refused`, a warning): a corrupt image or a decompression bomb is
 * how an appliance is attacked through its uploads. Other errors pass.
 */
export async function recordImageRefused(deps: Deps, actor: Actor | undefined, meta: RequestMeta, error: unknown): Promise<void> {
  if (!(error instanceof AppError) || error.code !== 'VALIDATION_ERROR' || typeof error.details?.file !== 'string') return;
  const bomb = error.details.decompressionBomb === true;
  await recordLogEntry(deps, {
    level: 'warn',
    event: 'file.image_refused',
    message: `Upload of "${error.details.file}" refused: ${bomb ? 'a decompression bomb' : 'an image that cannot be read'}`,
    clientId: actor?.kind === 'user' ? actor.clientId : null,
    userId: actor?.kind === 'user' ? actor.userId : null,
    adminId: actor?.kind === 'admin' ? actor.adminId : null,
    actor: actor ? logActorOf(actor) : null,
    meta,
    data: { file: error.details.file, reason: error.message, decompressionBomb: bomb },
  });
}

/**
 * An image (by its detected type, whatever its name or the client's header
 * says) must be one the appliance can show: decoded (PNG) or its structure
 * checked (JPEG) in the image worker, its declared size within the limits
 * (lib/images.ts). The bytes are already in the store; refused, they are
 * left to `wip doctor --fix` like any refused upload's. A check that runs past
 * `imageJobTimeout` refuses the image as too costly to check.
 * @throws AppError VALIDATION_ERROR naming the file; SERVICE_UNAVAILABLE when `imageQueueMax` images already wait
 */
async function assertImageReadable(deps: Deps, content: StoredContent, head: Buffer, name: string): Promise<void> {
  if (!isJudgedImage(content.contentType)) return;
  let load = () => Promise.resolve(head);
  if (content.contentType === 'image/png' || content.contentType === 'image/jpeg') {
    if (content.size > MAX_IMAGE_FILE_BYTES)
      throw imageRefused(name, `is larger than the ${MAX_IMAGE_FILE_BYTES / 1024 / 1024} MiB an image may be`);
    // read once the image has its place in the worker's queue: a full queue holds no more bytes
    load = async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of (await deps.storage.get(content.sha256)).stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    };
  }
  const verdict = await deps.images.inspect(load, content.contentType);
  if (!verdict.ok) throw imageRefused(name, verdict.problem, verdict.bomb);
}

/**
 * Commits the rows of contents already in the store, in one transaction, after
 * checking the quota exactly (content the client already holds costs nothing).
 * @throws AppError STORAGE_QUOTA_EXCEEDED
 */
export async function commitFiles(
  deps: Deps,
  scope: TenantScope,
  items: { content: StoredContent; name: string; description: string }[],
  by: FileMeta['uploadedBy'],
  /** rows that refer to the new files, written in the same transaction */
  alsoWrite?: (trx: Kysely<DB>, rows: FileRow[]) => Promise<void>,
): Promise<FileRow[]> {
  await holdBeforeCommitForTests(deps);
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx) => {
    await assertWithinQuota(
      trx,
      scope,
      items.map((i) => i.content),
    );
    const rows: FileRow[] = [];
    for (const item of items) {
      const row = await insertFile(trx, scope, {
        name: item.name,
        description: item.description,
        content: item.content,
        uploadedBy: by?.userId ?? null,
        nowIso,
      });
      await appendAudit(trx, scope, {
        actor: by ?? { label: 'system' },
        action: 'file.uploaded',
        entityType: 'file',
        entityId: row.id,
        after: { name: row.name, sha256: row.sha256, size: row.size, contentType: row.content_type },
        at: nowIso,
      });
      rows.push(row);
    }
    if (alsoWrite) await alsoWrite(trx, rows);
    return rows;
  });
}

export async function assertWithinQuota(
  trx: Parameters<typeof findStorageQuota>[0],
  scope: TenantScope,
  contents: StoredContent[],
): Promise<void> {
  const quota = await findStorageQuota(trx, scope);
  if (quota === null) return;
  const added = (await listNewBlobs(trx, scope, contents)).reduce((sum, c) => sum + c.size, 0);
  if (added === 0) return;
  const used = await sumClientStorage(trx, scope);
  if (used + added > quota) throw quotaExceeded(quota, used);
}

/**
 * New bytes under the same id (every reference keeps pointing at it); the
 * previous content stays as a prior revision.
 * @throws AppError NOT_FOUND (also another client's file), PAYLOAD_TOO_LARGE, STORAGE_QUOTA_EXCEEDED
 */
export async function replaceFile(
  deps: Deps,
  scope: TenantScope,
  fileId: number,
  content: StoredContent,
  meta: FileMeta,
): Promise<FileRow> {
  await holdBeforeCommitForTests(deps);
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx) => {
    const file = await getFileById(trx, scope, fileId);
    await assertWithinQuota(trx, scope, [content]);
    const row = await replaceFileContent(trx, scope, file, {
      name: cleanFileName(meta.name),
      content,
      uploadedBy: meta.uploadedBy?.userId ?? null,
      nowIso,
    });
    await appendAudit(trx, scope, {
      actor: meta.uploadedBy ?? { label: 'system' },
      action: 'file.replaced',
      entityType: 'file',
      entityId: row.id,
      before: { revision: file.revision, sha256: file.sha256, size: file.size },
      after: { revision: row.revision, sha256: row.sha256, size: row.size, contentType: row.content_type },
      at: nowIso,
    });
    return row;
  });
}

/** @throws AppError NOT_FOUND (also another client's file) */
export async function getFile(deps: Deps, scope: TenantScope, id: number): Promise<FileRow> {
  return getFileById(deps.db.kysely, scope, id);
}

/**
 * A client's file and its bytes (or the inclusive byte range).
 * @throws AppError NOT_FOUND (also another client's file, or content missing from the store)
 */
export async function openFile(
  deps: Deps,
  scope: TenantScope,
  id: number,
  range?: ByteRange,
): Promise<{ file: FileRow; stream: Readable; size: number }> {
  const file = await getFileById(deps.db.kysely, scope, id);
  return { file, ...(await openContent(deps, file, range)) };
}

/** The bytes of a file row already read (system or client). @throws AppError NOT_FOUND when the content is missing from the store */
export async function openContent(deps: Deps, file: { sha256: string }, range?: ByteRange): Promise<{ stream: Readable; size: number }> {
  const key = file.sha256;
  try {
    return await deps.storage.get(key, range);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      deps.logger.error({ key }, 'a file row references content missing from the store; run "wip doctor"');
      throw notFound('File');
    }
    throw error;
  }
}

/**
 * Every id must name a file of this client; the failures are reported as
 * VALIDATION_ERROR at `field` (another client's id is indistinguishable from
 * none). Takes a db handle so it also runs inside a transaction.
 */
export async function assertFilesOfClient(db: Kysely<DB>, scope: TenantScope, ids: readonly number[], field: string): Promise<void> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return;
  const found = new Set((await findFilesByIds(db, scope, unique)).map((f) => f.id));
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length) throw validationFailed({ fields: missing.map((id) => ({ path: field, message: `file ${id} does not exist` })) });
}

/** The file ids a version's content refers to: step media and 3D models. */
export function contentFileIds(content: Content): number[] {
  return content.sections.flatMap((section) =>
    section.steps.flatMap((step) => [...step.media, ...(step.model ? [step.model.fileId] : [])]),
  );
}

/** How the reference check reads the JSON documents that may name files (the domain's own rules). */
const REFERENCE_RULES = {
  contentFileIds: (json: string) => contentFileIds(deserializeContent(json)),
  recordedFileIds(contentJson: string, stepId: string, valuesJson: string) {
    const step = findStep(deserializeContent(contentJson), stepId);
    return step ? recordedFileIds(step, JSON.parse(valuesJson)) : [];
  },
};

/**
 * Deletes a client's file (and its prior revisions). A file still used — by a
 * template version of any state, a recorded value, a fault photo or alignment
 * data — is refused with FILE_IN_USE listing where, so nothing that refers to
 * it ever breaks. Content the client no longer references frees its quota at
 * once; its bytes leave the store after commit (collectFileGarbage).
 * @throws AppError NOT_FOUND (also another client's file), FORBIDDEN (`onlyOwn` and uploaded by someone else), FILE_IN_USE
 */
export async function deleteFile(
  deps: Deps,
  scope: TenantScope,
  fileId: number,
  by: { userId: number; email: string; onlyOwn: boolean },
): Promise<void> {
  const nowIso = deps.clock.now().toISOString();
  await withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const file = await getFileById(trx, scope, fileId);
    if (by.onlyOwn && file.uploaded_by !== by.userId) throw forbidden('Only files you uploaded can be deleted with your roles');
    const references = await findFileReferences(trx, scope, file.id, REFERENCE_RULES);
    if (references.length) throw new AppError('FILE_IN_USE', 'The file is still used; remove it from these first', { references });
    await deleteFileRow(trx, scope, file, nowIso);
    await appendAudit(trx, scope, {
      actor: { userId: by.userId, email: by.email },
      action: 'file.deleted',
      entityType: 'file',
      entityId: file.id,
      before: { name: file.name, sha256: file.sha256, size: file.size, revision: file.revision },
      at: nowIso,
    });
    afterCommit(async () => void (await collectFileGarbage(deps)));
  });
}

/** Queued contents looked at per collection (the rest waits for the next one). */
const GARBAGE_BATCH = 200;

/**
 * Removes from the store the bytes of deleted content (file_garbage), after
 * the deleting commit and on every maintenance round (so a crash in between
 * only delays it): content some row references again (re-uploaded, or held by
 * another client or the system) leaves the queue and stays; content written
 * or touched within IN_PROGRESS_GRACE_MS waits (an upload of the same bytes
 * may be about to commit); the rest is deleted, then dequeued. Never throws:
 * a failure is logged and retried next round.
 * @returns how many contents were removed from the store
 */
export async function collectFileGarbage(deps: Deps): Promise<number> {
  let removed = 0;
  try {
    for (const key of await listFileGarbage(deps.db.kysely, GARBAGE_BATCH)) {
      if (await isFileKeyReferenced(deps.db.kysely, key)) {
        await dropFileGarbage(deps.db.kysely, key);
        continue;
      }
      // file times are the disk's, so compared with the wall clock
      const stat = await deps.storage.stat(key);
      if (stat && Date.now() - stat.modifiedAt.getTime() < IN_PROGRESS_GRACE_MS) continue;
      if (stat) {
        try {
          await deps.storage.delete(key);
        } catch (error) {
          // one content the store refuses to delete (permissions, an object lock) must not hold
          // up those queued after it, round after round: it goes to the back of the queue and is
          // tried again next round (dropped, its bytes would stay in the store for good)
          deps.logger.warn(
            { err: error, key },
            'could not remove deleted file content from the store; retried on a later maintenance round',
          );
          await requeueFileGarbage(deps.db.kysely, key, deps.clock.now().toISOString());
          continue;
        }
        removed++;
      }
      await dropFileGarbage(deps.db.kysely, key);
    }
  } catch (error) {
    deps.logger.error({ err: error }, 'file garbage collection failed; retried on the next maintenance round');
  }
  return removed;
}

/** A system administrator's upload (agreement PDFs, branding): not tenant data. @throws AppError PAYLOAD_TOO_LARGE */
export async function commitSystemFiles(
  deps: Deps,
  items: { content: StoredContent; name: string; description: string }[],
  adminId: number | null,
): Promise<SystemFileRow[]> {
  await holdBeforeCommitForTests(deps);
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, async (trx) => {
    const rows: SystemFileRow[] = [];
    for (const item of items) rows.push(await insertSystemFile(trx, { ...item, adminId, nowIso }));
    return rows;
  });
}

/** @throws AppError NOT_FOUND */
export async function getSystemFile(deps: Deps, id: number): Promise<SystemFileRow> {
  return getSystemFileById(deps.db.kysely, id);
}

export interface StorageUsage {
  /** null: unlimited */
  storageQuotaBytes: number | null;
  /** distinct content stored (what the quota counts) */
  storageUsedBytes: number;
}

/** A client's storage quota and usage. @throws AppError NOT_FOUND (no such client) */
export async function getStorageUsage(deps: Deps, clientId: number): Promise<StorageUsage> {
  const client = await getClientById(deps.db.kysely, clientId);
  const scope = tenantScope(client.id);
  return {
    storageQuotaBytes: await findStorageQuota(deps.db.kysely, scope),
    storageUsedBytes: await sumClientStorage(deps.db.kysely, scope),
  };
}

/**
 * Sets a client's storage quota (null: unlimited), a system administrator's
 * decision. Files already stored stay; only new content is refused past it.
 * @throws AppError NOT_FOUND (no such client)
 */
export async function setStorageQuota(deps: Deps, clientId: number, bytes: number | null, by: ChangedBy): Promise<StorageUsage> {
  const client = await getClientById(deps.db.kysely, clientId);
  const scope = tenantScope(client.id);
  const before = await getStorageUsage(deps, client.id);
  await ensureClientSettingsRow(deps, scope);
  await updateStorageQuota(deps.db.kysely, scope, bytes);
  await recordChange({ deps }, by, {
    event: 'client.storage_quota_changed',
    message: `Storage quota of client "${client.name}" set to ${bytes ?? 'unlimited'}`,
    clientId: client.id,
    target: { type: 'client', id: client.id },
    before: { storageQuotaBytes: before.storageQuotaBytes },
    after: { storageQuotaBytes: bytes },
    data: { bytes },
  });
  return getStorageUsage(deps, client.id);
}

/** A name to show and to put in Content-Disposition: no folders, no control characters, at most 255 characters. */
export function cleanFileName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base
    // eslint-disable-next-line no-control-regex -- control characters are what this strips
    .replace(/[\u0000-\u001f\u007f"]/g, '')
    .trim()
    .slice(0, 255);
  return clean && clean !== '.' && clean !== '..' ? clean : 'file';
}

/**
 * Test-only hook (WIP_ENV=test): with WIP_TEST_HOLD_FILE_COMMIT=<path>, the
 * process writes that file once the bytes are durable and then waits forever
 * before committing the row — the moment a crash test kills it.
 */
async function holdBeforeCommitForTests(deps: Deps): Promise<void> {
  const marker = process.env.WIP_TEST_HOLD_FILE_COMMIT;
  if (deps.config.env !== 'test' || !marker) return;
  fs.writeFileSync(marker, String(process.pid));
  await new Promise(() => undefined);
}
