import type { Deps } from '#deps';
import { appendAudit } from '#repos/audit';
import { findFilesByIds, insertFile, type StoredContent } from '#repos/files';
import { assertWithinQuota, cleanFileName, openFile, putContent, uploadBudget } from './files';
import type { PackageFiles } from './template-package';

/**
 * The client file store as template packages (ZIP export/import, copies
 * between clients), PDFs and reports see it: describe and open a client's
 * files, put bytes within the upload limit and the client's quota, and write
 * the rows inside the importing transaction (quota checked exactly there).
 */
export function packageFiles(deps: Deps): PackageFiles {
  return {
    async describe(scope, ids) {
      if (ids.length === 0) return [];
      const rows = await findFilesByIds(deps.db.kysely, scope, ids);
      return rows.map((f) => ({ id: f.id, name: f.name, size: f.size, sha256: f.sha256, contentType: f.content_type }));
    },
    async open(scope, id) {
      return (await openFile(deps, scope, id)).stream;
    },
    async put(scope, file, bytes) {
      return putContent(deps, bytes, cleanFileName(file.name), await uploadBudget(deps, scope));
    },
    async insert(trx, author, items) {
      const contents = items.map((item) => item.content as StoredContent);
      await assertWithinQuota(trx, author.scope, contents);
      const nowIso = deps.clock.now().toISOString();
      const ids: number[] = [];
      for (const [i, item] of items.entries()) {
        const row = await insertFile(trx, author.scope, {
          name: cleanFileName(item.name),
          description: '',
          content: contents[i],
          uploadedBy: author.userId,
          nowIso,
        });
        await appendAudit(trx, author.scope, {
          actor: { userId: author.userId, email: author.email },
          action: 'file.imported',
          entityType: 'file',
          entityId: row.id,
          after: { name: row.name, sha256: row.sha256, size: row.size, contentType: row.content_type },
          at: nowIso,
        });
        ids.push(row.id);
      }
      return ids;
    },
  };
}
