import fs from 'node:fs';
import path from 'node:path';
import { PID_FILE, SERVED_FILE } from '#lib/paths';

// The daemon holds <data-dir>/wip.pid while it serves. Offline operations
// (restore) refuse to run while that process is alive; a stale file from a
// crashed daemon is ignored.

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user — still alive
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of the live daemon serving `dataDir`, or null. */
export function runningDaemonPid(dataDir: string): number | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dataDir, PID_FILE), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return isAlive(pid) ? pid : null;
}

/**
 * Claims the data directory for this process.
 * @throws Error when another live daemon already serves it.
 */
export function writePidFile(dataDir: string): void {
  const other = runningDaemonPid(dataDir);
  if (other !== null && other !== process.pid) {
    throw new Error(`another wip daemon (pid ${other}) is serving ${dataDir}; stop it first`);
  }
  fs.writeFileSync(path.join(dataDir, PID_FILE), `${process.pid}\n`, { mode: 0o600 });
}

/** Removes the pid file (and the served address beside it) if it is still ours. */
export function removePidFile(dataDir: string): void {
  const file = path.join(dataDir, PID_FILE);
  try {
    if (Number(fs.readFileSync(file, 'utf8').trim()) === process.pid) {
      fs.rmSync(path.join(dataDir, SERVED_FILE), { force: true });
      fs.rmSync(file, { force: true });
    }
  } catch {
    // already gone
  }
}

/**
 * Where the daemon really listens. Flags (--host/--port), port 0 and TLS all
 * change it, so the configuration alone cannot tell other processes (doctor).
 */
export interface ServedAddress {
  pid: number;
  scheme: 'http' | 'https';
  host: string;
  port: number;
  /** with TLS: the plain-HTTP port that redirects */
  redirectPort?: number;
}

export function writeServedAddress(dataDir: string, address: ServedAddress): void {
  fs.writeFileSync(path.join(dataDir, SERVED_FILE), JSON.stringify(address) + '\n', { mode: 0o600 });
}

/** What the live daemon of `dataDir` listens on, or null (none running, or a file left by another process). */
export function readServedAddress(dataDir: string): ServedAddress | null {
  const pid = runningDaemonPid(dataDir);
  if (pid === null) return null;
  try {
    const address = JSON.parse(fs.readFileSync(path.join(dataDir, SERVED_FILE), 'utf8')) as ServedAddress;
    return address.pid === pid ? address : null;
  } catch {
    return null;
  }
}
