import type { Kysely } from 'kysely';
import type { DB, DeploymentStateRow, InstalledLicenseRow } from '#db/schema';

// The installed on-prem license key and the deployment's singleton state row.

const STATE_ID = 1;

export async function getDeploymentState(db: Kysely<DB>): Promise<DeploymentStateRow> {
  return db.selectFrom('deployment_state').selectAll().where('id', '=', STATE_ID).executeTakeFirstOrThrow();
}

export async function findInstalledLicenseById(db: Kysely<DB>, id: number): Promise<InstalledLicenseRow | undefined> {
  return db.selectFrom('installed_licenses').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Records a key and makes it the current one. Call inside a transaction. */
export async function insertInstalledLicense(db: Kysely<DB>, values: Omit<InstalledLicenseRow, 'id'>): Promise<InstalledLicenseRow> {
  const row = await db.insertInto('installed_licenses').values(values).returningAll().executeTakeFirstOrThrow();
  await db
    .updateTable('deployment_state')
    .set({ license_row_id: row.id, updated_at: values.installed_at })
    .where('id', '=', STATE_ID)
    .execute();
  return row;
}

/** Moves the newest time seen forward (never back). */
export async function advanceNewestSeen(db: Kysely<DB>, nowIso: string): Promise<void> {
  await db
    .updateTable('deployment_state')
    .set({ newest_seen_at: nowIso })
    .where('id', '=', STATE_ID)
    .where((eb) => eb.or([eb('newest_seen_at', 'is', null), eb('newest_seen_at', '<', nowIso)]))
    .execute();
}
