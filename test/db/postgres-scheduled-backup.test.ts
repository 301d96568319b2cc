import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { migrations } from '../../migrations';
import { loadConfig } from '#config';
import { closeDeps, createDeps } from '#composition';
import type { AppDeps as Deps } from '#workers';
import { ManualClock } from '#lib/clock';
import { startMaintenance, type Maintenance } from '#ops/maintenance';
import { restorePostgresBackup } from '#ops/postgres-backup';
import { bootstrap } from '#ops/bootstrap';
import { adminToken } from '../helpers/factories';
import { startTestServer, testDaemonEnv, TEST_MASTER_KEY } from '../helpers/server';
import { testPostgres } from '../helpers/postgres';
import { waitFor } from '../helpers/wait';

// PostgreSQL 15: the client tools of this machine and CI are 15, and pg_dump refuses a newer server.
// Nodes here are daemons' dependencies with their own data directory, backupDir
// and clock on one database, whose maintenance rounds the test runs.

const DAY = 86_400_000;
const START = new Date('2026-06-01T12:00:00Z');

interface Node {
  deps: Deps;
  clock: ManualClock;
  maintenance: Maintenance;
  backupDir: string;
}

async function startNode(root: string, name: string, databaseUrl: string, env: Record<string, string> = {}): Promise<Node> {
  const backupDir = path.join(root, name, 'backups');
  const config = loadConfig({
    env: {
      ...testDaemonEnv(path.join(root, name, 'data')),
      WIP_DATABASE_URL: databaseUrl,
      WIP_MASTER_KEY: TEST_MASTER_KEY,
      WIP_BACKUP_SCHEDULE: 'daily',
      WIP_BACKUP_DIR: backupDir,
      ...env,
    },
  });
  const clock = new ManualClock(START);
  const deps = createDeps(config, { clock });
  await bootstrap(deps);
  return { deps, clock, maintenance: startMaintenance(deps), backupDir };
}

const archives = (node: Node) =>
  fs.existsSync(node.backupDir)
    ? fs
        .readdirSync(node.backupDir)
        .filter((n) => n.endsWith('.tar.gz'))
        .sort()
    : [];

test('two nodes with backupSchedule=daily take one scheduled backup a day between them (a restorable pg_dump archive naming its node); a node whose pg_dump fails reports backup.failed and leaves the day to the others', async () => {
  const pg = await testPostgres({ release: 15 });
  const url = await pg.freshDatabaseUrl();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-pg-sched-'));
  const noTools = path.join(root, 'no-tools');
  fs.mkdirSync(noTools);
  const nodes: Node[] = [];
  try {
    const failing = await startNode(root, 'failing', url, { WIP_PG_TOOLS_DIR: noTools });
    nodes.push(failing);
    const a = await startNode(root, 'a', url);
    nodes.push(a);
    const b = await startNode(root, 'b', url);
    nodes.push(b);

    // the first round of the day runs on a node without pg_dump: reported, nothing written, the day still open
    await failing.maintenance.runOnce();
    assert.equal(archives(failing), []);
    const failed = await failing.deps.db.kysely.selectFrom('events').select('payload').where('type', '=', 'backup.failed').execute();
    assert.is(failed.length, 1);
    assert.match(JSON.parse(failed[0].payload).data.error, /pg_dump was not found in pgToolsDir/);
    assert.is(
      await failing.deps.db.kysely.selectFrom('maintenance_runs').selectAll().where('name', '=', 'scheduled-backup').executeTakeFirst(),
      undefined,
    );

    // both healthy nodes at the same time, twice: one archive in total
    await Promise.all([a.maintenance.runOnce(), b.maintenance.runOnce()]);
    await Promise.all([a.maintenance.runOnce(), b.maintenance.runOnce(), failing.maintenance.runOnce()]);
    const first = [...archives(a), ...archives(b)];
    assert.equal(first, ['wip-scheduled-2026-06-01T12-00-00-000Z.tar.gz']);
    const winner = archives(a).length === 1 ? a : b;
    const run = await a.deps.db.kysely
      .selectFrom('maintenance_runs')
      .selectAll()
      .where('name', '=', 'scheduled-backup')
      .executeTakeFirstOrThrow();
    assert.equal({ name: run.name, last_run_at: run.last_run_at }, { name: 'scheduled-backup', last_run_at: START.toISOString() });
    assert.match(run.last_node, `/${process.pid}`);
    assert.is(
      (await failing.deps.db.kysely.selectFrom('events').select('id').where('type', '=', 'backup.failed').execute()).length,
      1,
      'the failing node found the day taken',
    );

    // not due again until a day after the last one, then one more between them
    for (const node of nodes) node.clock.set(new Date(START.getTime() + DAY - 60_000));
    await Promise.all([a.maintenance.runOnce(), b.maintenance.runOnce()]);
    assert.is(archives(a).length + archives(b).length, 1);
    for (const node of nodes) node.clock.set(new Date(START.getTime() + DAY));
    await Promise.all([b.maintenance.runOnce(), a.maintenance.runOnce()]);
    await Promise.all([b.maintenance.runOnce(), a.maintenance.runOnce()]);
    assert.is(archives(a).length + archives(b).length, 2);
    assert.ok([...archives(a), ...archives(b)].includes('wip-scheduled-2026-06-02T12-00-00-000Z.tar.gz'));

    // the archive restores into a new database (checksums, pg_restore, migrations, secrets, audit chains verified)
    const archive = path.join(winner.backupDir, first[0]);
    const target = await pg.freshDatabaseUrl({ empty: true });
    const restored = await restorePostgresBackup({
      archive,
      config: { ...winner.deps.config, databaseUrl: target, dataDir: path.join(root, 'restored') },
      knownMigrations: Object.keys(migrations),
      replace: false,
      now: new Date(),
    });
    assert.is(restored.manifest.database, 'postgresql');
    assert.is(restored.manifest.createdAt, START.toISOString());
    assert.match(restored.manifest.node ?? '', `/${process.pid}`);
    assert.equal(restored.pendingMigrations, []);
  } finally {
    for (const node of nodes) {
      await node.maintenance.stop();
      await closeDeps(node.deps);
    }
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a backup started over the API on PostgreSQL runs pg_dump with progress to 100 and is listed', async () => {
  const url = await (await testPostgres({ release: 15 })).freshDatabaseUrl();
  const server = await startTestServer({ env: { WIP_DATABASE_URL: url, WIP_MASTER_KEY: TEST_MASTER_KEY } });
  try {
    const token = await adminToken(server);
    const started = await server.request('POST', '/api/admin/backups', { token });
    assert.is(started.status, 202, started.text);
    const percents: number[] = [];
    let job = started.body.data;
    await waitFor(
      'the backup to end',
      async () => {
        const res = await server.request('GET', `/api/admin/backups/jobs/${job.id}`, { token });
        assert.is(res.status, 200, res.text);
        job = res.body.data;
        percents.push(job.percent);
        return job.status !== 'running';
      },
      30_000,
    );
    assert.is(job.status, 'succeeded', job.error);
    assert.is(job.percent, 100);
    assert.equal(
      percents,
      [...percents].sort((x, y) => x - y),
      'progress never goes back',
    );
    assert.match(job.backup.name, /^wip-backup-.*\.tar\.gz$/);
    const listed = await server.request('GET', '/api/admin/backups?limit=1', { token });
    assert.is(listed.body.data.items[0].name, job.backup.name);
    assert.is(listed.body.data.items[0].bytes, job.backup.bytes);
  } finally {
    await server.stop();
  }
});

test.run();
