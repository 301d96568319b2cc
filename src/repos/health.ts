import { sql, type Kysely } from 'kysely';
import type { DB } from '#db/schema';

/** A round trip to the database (readiness). @throws the driver's error when it cannot answer. */
export async function pingDatabase(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}
