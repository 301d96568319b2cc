import type { Insertable, Kysely } from 'kysely';
import type { DB, LogsTable } from '../db/schema';

export async function insertLog(db: Kysely<DB>, row: Insertable<LogsTable>): Promise<void> {
  await db.insertInto('logs').values(row).execute();
}
