import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import { openDatabase } from '#db/connection';
import { migrateToLatest } from '#db/migrator';
import { tenantScope } from '#db/tenant';
import type { DB } from '#db/schema';
import { countActiveUsers, countEvents, countJobs, countStepsRecorded, sumStorageAdded } from '#repos/usage';
import { listUserReportRows, listUserReportRowsAcrossClients } from '#repos/user-report';

// The reports must stay fast on large histories: every statement they run is
// an index search bounded by the tenant and the time range (or a key), never a
// pass over a history table or over all of a tenant's history. Checked on SQLite's own query plans, so it holds for any size.

const test = suite('report queries use the report indexes');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-report-plans-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Tables that grow with history (users and templates are bounded by seats and authoring, and looked up by key). */
const HISTORY_TABLES = [
  'sessions',
  'step_records',
  'usage_step_days',
  'usage_job_days',
  'jobs',
  'template_versions',
  'job_members',
  'file_blobs',
];

/** A full scan, or a search bounded by the tenant alone (every row the client ever had). */
function unbounded(detail: string): boolean {
  const table = HISTORY_TABLES.find((t) => new RegExp(`^(SCAN|SEARCH) ${t}\\b`).test(detail));
  return table !== undefined && (detail.startsWith('SCAN') || /\(client_id=\?\)$/.test(detail));
}

test('no report statement scans a history table', async () => {
  const db = openDatabase(dir);
  try {
    await migrateToLatest(db);
    const statements: CompiledQuery[] = [];
    const k = new Kysely<DB>({ dialect: new SqliteDialect({ database: db.sqlite }), log: (e) => void statements.push(e.query) });
    const scope = tenantScope(1);
    const range = { from: '2030-01-01T00:00:00.000Z', to: '2030-02-01T00:00:00.000Z' };
    const filtered = { ...range, userId: 3, licenseType: 'full', templateId: 2, organizationId: 4 };
    // without a template filter, steps and recorders come from the per-day counts (usage_step_days); unfiltered jobs from usage_job_days
    const byUser = { ...range, userId: 3, licenseType: 'full' };
    for (const f of [range, filtered, byUser]) {
      for (const grouping of ['day', 'week', 'month', null] as const) {
        await countActiveUsers(k, scope, grouping, f);
        await countJobs(k, scope, 'started_at', grouping, f);
        await countJobs(k, scope, 'completed_at', grouping, f);
        await countStepsRecorded(k, scope, grouping, f);
        await sumStorageAdded(k, scope, grouping, f);
      }
    }
    for (const event of ['signIns', 'templatesCreated', 'versionsPublished'] as const) await countEvents(k, scope, event, range);
    await listUserReportRows(k, scope, { role: 'admin', status: 'active' }, { limit: 50 });
    await listUserReportRowsAcrossClients(k, {}, { limit: 50 });
    assert.ok(statements.length > 30);
    for (const statement of statements) {
      const plan = (
        db.sqlite.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...(statement.parameters as unknown[])) as { detail: string }[]
      ).map((r) => r.detail);
      assert.equal(plan.filter(unbounded), [], `${statement.sql}\n${plan.join('\n')}`);
    }
  } finally {
    await db.close();
  }
});

test.run();
