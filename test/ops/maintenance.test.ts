import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '#config';
import { closeDeps, createDeps } from '#composition';
import type { AppDeps as Deps } from '#workers';
import { ManualClock } from '#lib/clock';
import { startServer } from '#cli/serve';
import { bootstrap } from '#ops/bootstrap';
import { recordLogEntry } from '#services/security-log';
import { countLogs } from '#services/logs';
import { startMaintenance } from '#ops/maintenance';

const DAY = 86_400_000;

function makeDeps(env: Record<string, string> | ((root: string) => Record<string, string>) = {}): {
  deps: Deps;
  clock: ManualClock;
  root: string;
} {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-maint-'));
  if (typeof env === 'function') env = env(root);
  const config = loadConfig({
    env: {
      WIP_ENV: 'test',
      WIP_HOST: '127.0.0.1',
      WIP_PORT: '0',
      WIP_BCRYPT_COST: '4',
      WIP_LOG_LEVEL: 'silent',
      WIP_ADMIN_PASSWORD: 'maint-admin-pw',
      WIP_DATA_DIR: path.join(root, 'data'),
      ...env,
    },
  });
  const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
  return { deps: createDeps(config, { clock }), clock, root };
}

/** Records an event dated `ageMs` before the clock's now. */
async function eventAged(deps: Deps, clock: ManualClock, ageMs: number, event: string) {
  const now = clock.now();
  clock.set(new Date(now.getTime() - ageMs));
  await recordLogEntry(deps, { event, message: event });
  clock.set(now);
}

const retention = suite('log retention (logRetention, default 90d)');

retention('the daemon prunes rows older than the retention when it starts', async () => {
  const { deps, clock, root } = makeDeps();
  await bootstrap(deps);
  await eventAged(deps, clock, 100 * DAY, 'test.old');
  await eventAged(deps, clock, 10 * DAY, 'test.recent');
  const running = await startServer(deps);
  try {
    assert.is(await countLogs(deps, { event: 'test.old' }), 0);
    assert.is(await countLogs(deps, { event: 'test.recent' }), 1);
  } finally {
    await running.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

retention('then once a day: rows that age past the retention go at the next daily round, not before', async () => {
  const { deps, clock, root } = makeDeps({ WIP_LOG_RETENTION: '30d' });
  await bootstrap(deps);
  const maintenance = startMaintenance(deps, { intervalMs: 3_600_000 });
  try {
    await maintenance.runOnce();
    await eventAged(deps, clock, 29 * DAY + 23 * 3_600_000, 'test.aging');
    clock.advance(2 * 3_600_000); // now 30d+1h old, but the last prune was 2h ago
    await maintenance.runOnce();
    assert.is(await countLogs(deps, { event: 'test.aging' }), 1);
    clock.advance(DAY);
    await maintenance.runOnce();
    assert.is(await countLogs(deps, { event: 'test.aging' }), 0);
  } finally {
    await maintenance.stop();
    await closeDeps(deps);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

retention.run();

const scheduled = suite('scheduled backups (backupSchedule=daily, backupRetention)');

scheduled('one backup a day into backupDir, keeping the newest backupRetention', async () => {
  const { deps, clock, root } = makeDeps((r) => ({
    WIP_BACKUP_SCHEDULE: 'daily',
    WIP_BACKUP_RETENTION: '2',
    WIP_BACKUP_DIR: path.join(r, 'elsewhere'),
  }));
  const dir = path.join(root, 'elsewhere');
  await bootstrap(deps);
  const maintenance = startMaintenance(deps);
  const list = () =>
    fs.existsSync(dir)
      ? fs
          .readdirSync(dir)
          .filter((n) => n.endsWith('.tar.gz'))
          .sort()
      : [];
  try {
    await maintenance.runOnce();
    assert.equal(list(), ['wip-scheduled-2026-06-01T12-00-00-000Z.tar.gz']);
    clock.advance(23 * 3_600_000);
    await maintenance.runOnce();
    assert.is(list().length, 1, 'not due yet');
    clock.advance(3_600_000);
    await maintenance.runOnce();
    clock.advance(DAY);
    await maintenance.runOnce();
    assert.equal(list(), ['wip-scheduled-2026-06-02T12-00-00-000Z.tar.gz', 'wip-scheduled-2026-06-03T12-00-00-000Z.tar.gz']);
    assert.is(fs.statSync(path.join(dir, list()[0])).mode & 0o777, 0o600);
  } finally {
    await maintenance.stop();
    await closeDeps(deps);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

scheduled('the daemon itself takes the due backup after it starts', async () => {
  const { deps, root } = makeDeps({ WIP_BACKUP_SCHEDULE: 'daily' });
  const running = await startServer(deps);
  await running.stop(); // waits for the background round
  const names = fs.readdirSync(path.join(root, 'data', 'backups'));
  assert.equal(names, ['wip-scheduled-2026-06-01T12-00-00-000Z.tar.gz']);
  fs.rmSync(root, { recursive: true, force: true });
});

scheduled('off by default: no backups', async () => {
  const { deps, root } = makeDeps();
  await bootstrap(deps);
  const maintenance = startMaintenance(deps);
  try {
    await maintenance.runOnce();
    assert.not.ok(fs.existsSync(path.join(deps.config.dataDir, 'backups')));
  } finally {
    await maintenance.stop();
    await closeDeps(deps);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

scheduled.run();

const garbage = suite('deleted file contents (file_garbage) collected on maintenance rounds');

interface MaintenanceRig {
  deps: Deps;
  maintenance: ReturnType<typeof startMaintenance>;
  /** where the local store keeps a content */
  onDisk: (key: string) => string;
}

/** Runs `body` with a bootstrapped data directory and its maintenance, and removes both after. */
async function withMaintenance(body: (rig: MaintenanceRig) => Promise<void>): Promise<void> {
  const { deps, root } = makeDeps();
  await bootstrap(deps);
  const maintenance = startMaintenance(deps);
  try {
    await body({ deps, maintenance, onDisk: (key) => path.join(deps.config.dataDir, 'files', key.slice(0, 2), key) });
  } finally {
    await maintenance.stop();
    await closeDeps(deps);
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const TWO_HOURS_AGO = () => new Date(Date.now() - 2 * 3_600_000);

garbage(
  'a queue left by a crash after the deleting commit is collected: unreferenced old bytes removed, referenced ones kept and dequeued, young ones wait',
  () =>
    withMaintenance(async ({ deps, maintenance, onDisk }) => {
      const db = deps.db.kysely;
      const stored = async (text: string, ageMs: number) => {
        const { key } = await deps.storage.put(Buffer.from(text));
        const at = new Date(Date.now() - ageMs);
        fs.utimesSync(onDisk(key), at, at);
        return key;
      };
      const orphan = await stored('deleted, then the daemon crashed', 2 * 3_600_000);
      const shared = await stored('still an agreement of the system', 2 * 3_600_000);
      const young = await stored('deleted a minute after its upload', 60_000);
      await db
        .insertInto('system_files')
        .values({
          name: 'a.pdf',
          description: '',
          sha256: shared,
          size: 1,
          content_type: 'application/pdf',
          uploaded_by_admin: null,
          created_at: '2026-06-01T00:00:00.000Z',
        })
        .execute();
      await db
        .insertInto('file_garbage')
        .values([orphan, shared, young].map((sha256) => ({ sha256, queued_at: '2026-06-01T11:00:00.000Z' })))
        .execute();
      await maintenance.runOnce({ backups: false });
      assert.equal([fs.existsSync(onDisk(orphan)), fs.existsSync(onDisk(shared)), fs.existsSync(onDisk(young))], [false, true, true]);
      assert.equal(
        (await db.selectFrom('file_garbage').select('sha256').execute()).map((r) => r.sha256),
        [young],
      );
    }),
);

garbage('content the store cannot delete is skipped and retried later, not in the way of the contents queued after it', () =>
  withMaintenance(async ({ deps, maintenance, onDisk }) => {
    const db = deps.db.kysely;
    const old = TWO_HOURS_AGO();
    // a directory where the content should be: rm refuses it (EISDIR), as a store refuses an object it may not delete
    const stuck = createHash('sha256').update('a content the store cannot delete').digest('hex');
    fs.mkdirSync(onDisk(stuck), { recursive: true });
    fs.utimesSync(onDisk(stuck), old, old);
    const { key: orphan } = await deps.storage.put(Buffer.from('deleted after the stuck one'));
    fs.utimesSync(onDisk(orphan), old, old);
    await db
      .insertInto('file_garbage')
      .values([
        { sha256: stuck, queued_at: '2026-06-01T10:00:00.000Z' },
        { sha256: orphan, queued_at: '2026-06-01T11:00:00.000Z' },
      ])
      .execute();
    await maintenance.runOnce({ backups: false });
    assert.is(fs.existsSync(onDisk(orphan)), false, 'the content queued behind was removed');
    assert.equal(
      (await db.selectFrom('file_garbage').select('sha256').execute()).map((r) => r.sha256),
      [stuck],
      'the stuck one stays queued',
    );
  }),
);

garbage('a round that fails (the file store unreadable) is logged, and the next round runs as usual', () =>
  withMaintenance(async ({ deps, maintenance, onDisk }) => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { key } = await deps.storage.put(Buffer.from('deleted while the store was broken'));
      const old = TWO_HOURS_AGO();
      fs.utimesSync(onDisk(key), old, old);
      await deps.db.kysely.insertInto('file_garbage').values({ sha256: key, queued_at: '2026-06-01T11:00:00.000Z' }).execute();
      // the content's folder replaced by a file: reading the content's state fails (ENOTDIR), as on a broken mount
      const shard = path.dirname(onDisk(key));
      fs.renameSync(shard, `${shard}.away`);
      fs.writeFileSync(shard, 'not a folder');
      await maintenance.runOnce({ backups: false }); // resolves: a failed round is logged, not thrown at the timer
      fs.rmSync(shard);
      fs.renameSync(`${shard}.away`, shard);
      await maintenance.runOnce({ backups: false });
      assert.is(fs.existsSync(onDisk(key)), false, 'the next round collected it');
      await new Promise((r) => setImmediate(r));
      assert.equal(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }),
);

garbage.run();
