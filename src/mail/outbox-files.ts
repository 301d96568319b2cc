import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '#db/connection';
import { existingOutboxIds } from '#repos/outbox';

/** <data-dir>/outbox: where mail is stored as .eml files when no SMTP server is configured. */
export function outboxDir(dataDir: string): string {
  return path.join(dataDir, 'outbox');
}

/**
 * Deletes the <data-dir>/outbox/<id>.eml files whose outbox row is gone (pruned
 * after outboxRetention, by whichever node), so the folder keeps what `wip mail
 * outbox` lists and no more. By the row, not the file's age: on PostgreSQL
 * another node may have pruned the row, and a file's row exists from before the
 * file is written until it is pruned. Returns how many files were deleted.
 */
export async function removeMailFilesWithoutRow(dataDir: string, db: Database): Promise<number> {
  const dir = outboxDir(dataDir);
  if (!fs.existsSync(dir)) return 0;
  const files = new Map<number, string>();
  for (const name of fs.readdirSync(dir)) {
    const match = /^(\d+)\.eml$/.exec(name);
    if (match) files.set(Number(match[1]), name);
  }
  const ids = [...files.keys()];
  let deleted = 0;
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const kept = await existingOutboxIds(db.kysely, chunk);
    for (const id of chunk) {
      if (kept.has(id)) continue;
      fs.rmSync(path.join(dir, files.get(id)!), { force: true });
      deleted++;
    }
  }
  return deleted;
}
