import path from 'node:path';
import type { Deps } from '#deps';
import { conflict, notFound } from '#errors';
import type { RequestMeta } from '#services/actor';
import { recordLogEntry } from '#services/security-log';
import { BACKUP_PREFIXES, defaultBackupName, listBackupFiles, type BackupFile, type BackupPhase } from '#ops/backup-archive';
import { reportBackupFailure, writeSiteBackup } from '#ops/maintenance';
import { backupDir } from '#lib/paths';

export interface BackupJob {
  id: number;
  status: 'running' | 'succeeded' | 'failed';
  /** the step running now (database copy, hashing the files, writing the archive); null once finished */
  phase: BackupPhase | null;
  /** overall progress, 0–100 (database 0–70, files 70–90, archive 90–100) */
  percent: number;
  startedAt: string;
  finishedAt: string | null;
  startedBy: number;
  /** the archive written, once succeeded */
  backup: BackupFile | null;
  error: string | null;
}

const PHASE_SPAN: Record<BackupPhase, [number, number]> = { database: [0, 70], files: [70, 90], archive: [90, 100] };
/** finished jobs kept for polling (in memory: the archives themselves are the record) */
const KEPT = 20;

/**
 * Backups started from the API (the console's "Start a backup"): the same
 * archive as `wip backup`, run in the daemon without blocking it (SQLite's
 * online backup copies in steps between which requests are served; pg_dump is
 * a child process on one consistent snapshot; hashing and archiving are
 * streams). One at a time per node, into this node's backupDir; progress is
 * polled by job id on the node that started it (PostgreSQL: the database
 * phase is one step, 0 → 70 %, as pg_dump reports no progress).
 */
export class BackupJobs {
  private readonly jobs = new Map<number, BackupJob>();
  private nextId = 1;
  private running: Promise<void> | null = null;

  constructor(private readonly deps: Deps) {}

  /**
   * Starts a backup into backupDir and returns its job at once.
   * @throws AppError CONFLICT while another backup started here is running
   */
  start(by: { adminId: number; meta: RequestMeta }): BackupJob {
    const busy = [...this.jobs.values()].find((j) => j.status === 'running');
    if (busy) throw conflict('A backup is already running', { jobId: busy.id });
    const { deps } = this;
    const now = deps.clock.now();
    const job: BackupJob = {
      id: this.nextId++,
      status: 'running',
      phase: 'database',
      percent: 0,
      startedAt: now.toISOString(),
      finishedAt: null,
      startedBy: by.adminId,
      backup: null,
      error: null,
    };
    this.jobs.set(job.id, job);
    for (const id of [...this.jobs.keys()].slice(0, Math.max(0, this.jobs.size - KEPT))) this.jobs.delete(id);
    const dir = backupDir(deps.config);
    const output = path.join(dir, defaultBackupName(BACKUP_PREFIXES.manual, now));
    this.running = (async () => {
      try {
        const result = await writeSiteBackup(deps, output, now, ({ phase, done, total }) => {
          const [from, to] = PHASE_SPAN[phase];
          job.phase = phase;
          job.percent = Math.floor(from + (to - from) * (total > 0 ? done / total : 0));
        });
        job.backup = listBackupFiles(dir).find((f) => f.name === path.basename(result.file)) ?? null;
        job.status = 'succeeded';
        job.percent = 100;
        await recordLogEntry(deps, {
          event: 'backup.created',
          message: `Backup ${path.basename(result.file)} written (${result.bytes} bytes)`,
          adminId: by.adminId,
          meta: by.meta,
          data: { name: path.basename(result.file), bytes: result.bytes },
        });
      } catch (error) {
        job.status = 'failed';
        job.error = (error as Error).message ?? String(error);
        await recordLogEntry(deps, {
          level: 'error',
          event: 'backup.failed',
          message: `Backup failed: ${job.error}`,
          adminId: by.adminId,
          meta: by.meta,
        });
        await reportBackupFailure(deps, error);
      } finally {
        job.phase = null;
        job.finishedAt = deps.clock.now().toISOString();
        this.running = null;
      }
    })();
    return { ...job };
  }

  /** @throws AppError NOT_FOUND for an unknown (or long finished) job */
  get(id: number): BackupJob {
    const job = this.jobs.get(id);
    if (!job) throw notFound('Backup job');
    return { ...job };
  }

  /** Resolves once no backup started here is running (the database may close then). */
  async settled(): Promise<void> {
    await this.running;
  }
}
