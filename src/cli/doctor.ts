import path from 'node:path';
import type { Command } from 'commander';
import { formatDoctor, runDoctor } from '#ops/doctor';
import { fileStamp } from '#lib/paths';
import { createSupportBundle } from '#ops/support-bundle';
import { UsageError, configFrom, output } from './context';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description(
      'check the installation (permissions, secrets, database integrity, orphans, license, clock, port, SMTP); exit 1 on any FAIL',
    )
    .option(
      '--fix',
      'delete orphans: stored files no row references and leftovers of interrupted uploads, backups and restores (older than an hour)',
    )
    .action(async (opts: { fix?: boolean }, command: Command) => {
      const report = await runDoctor(configFrom(command), { fix: opts.fix === true });
      output(command, formatDoctor(report), report);
      if (!report.ok) process.exitCode = 1;
    });

  program
    .command('support-bundle')
    .description(
      'write a ZIP for the vendor: version, sanitized configuration, migration status, doctor output, recent log rows (no secrets)',
    )
    .option('--output <file>', 'ZIP to write (default ./wip-support-<time>.zip)')
    .option('--log-lines <n>', 'how many of the newest log rows to include', '1000')
    .action(async (opts: { output?: string; logLines: string }, command: Command) => {
      const config = configFrom(command);
      const now = new Date();
      const logLines = Number(opts.logLines);
      if (!Number.isInteger(logLines) || logLines < 0 || logLines > 1_000_000) {
        throw new UsageError('--log-lines must be a whole number between 0 and 1000000');
      }
      const result = await createSupportBundle({
        config,
        now,
        logLines,
        output: opts.output ?? path.join(process.cwd(), `wip-support-${fileStamp(now)}.zip`),
      });
      output(command, `Support bundle written to ${result.file} (${result.bytes} bytes): ${result.entries.join(', ')}`, result);
    });
}
