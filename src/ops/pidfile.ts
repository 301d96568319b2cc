import fs from 'node:fs';
import path from 'node:path';
import { PID_FILE } from './paths';

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

/** Removes the pid file if it is still ours. */
export function removePidFile(dataDir: string): void {
  const file = path.join(dataDir, PID_FILE);
  try {
    if (Number(fs.readFileSync(file, 'utf8').trim()) === process.pid) fs.rmSync(file, { force: true });
  } catch {
    // already gone
  }
}
