import fs from 'node:fs';
import path from 'node:path';
import { PID_FILE, SERVED_FILE } from '#lib/paths';

// The daemon holds <data-dir>/wip.pid while it serves: its pid, then (Linux)
// its start time, so the file names that very process. Offline operations
// (restore) refuse to run while that process is alive; a stale file — a
// crashed daemon, whose pid may be a zombie by now or reused by another
// process — never blocks anything.

/**
 * The start time of process `pid` in clock ticks since boot (field 22 of
 * /proc/<pid>/stat) and its state, or undefined where /proc is not there.
 * The command name (field 2) may hold spaces and parentheses: fields are
 * counted after its closing one.
 */
function procStat(pid: number): { state: string; startTime: string } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], startTime: fields[19] };
}

/** This process's start time, as written into the pid file (empty where /proc is not there). */
function ownStartTime(): string {
  return procStat(process.pid)?.startTime ?? '';
}

/**
 * Whether the process a pid file names still runs: it exists, is no zombie,
 * and — when the file recorded a start time — started then (not a later
 * process that got the same pid). An older file without a start time counts
 * only for a process whose command line is a daemon's (`serve`).
 */
function isDaemonAlive(pid: number, startTime: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user — still alive
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(pid);
  if (!stat) return true; // no /proc (macOS): the pid alone must do
  if (stat.state === 'Z' || stat.state === 'X') return false;
  if (startTime) return stat.startTime === startTime;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('serve');
  } catch {
    return true;
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
  const [first, startTime] = text.split('\n').map((line) => line.trim());
  const pid = Number(first);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return isDaemonAlive(pid, startTime || undefined) ? pid : null;
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
  fs.writeFileSync(path.join(dataDir, PID_FILE), `${process.pid}\n${ownStartTime()}\n`, { mode: 0o600 });
}

/** Removes the pid file (and the served address beside it) if it is still ours. */
export function removePidFile(dataDir: string): void {
  const file = path.join(dataDir, PID_FILE);
  try {
    if (Number(fs.readFileSync(file, 'utf8').split('\n')[0].trim()) === process.pid) {
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
