import fs from 'node:fs';
import type { Command } from 'commander';
import { verifyAuditTrailAcrossClients, type AuditVerification } from '#services/audit';
import { CliError, output, withDeps } from './context';
import { checkpointChains, exportCheckpoint, listClientCheckpoints } from '#services/checkpoints';
import type { CheckpointFile } from '#lib/record-bundle-format';
import { positiveId } from './logs';

function describe(result: AuditVerification): string {
  if (result.clients.length === 0 && result.checkpoints.length === 0) return 'No audit chains yet';
  const lines = result.clients.map(({ clientId, entries, broken }) =>
    broken
      ? `client ${clientId}: BROKEN at entry ${broken.seq}${broken.entryId !== null ? ` (row id ${broken.entryId})` : ''}: ${broken.reason}`
      : `client ${clientId}: ${entries} entries, chain intact`,
  );
  for (const problem of result.checkpoints) {
    lines.push(
      `client ${problem.clientId}: CHECKPOINT${problem.checkpointId !== null ? ` ${problem.checkpointId}` : ' (given file)'} NOT MATCHED: ${problem.reason}`,
    );
  }
  const broken = result.clients.filter((c) => c.broken).length;
  lines.push(broken === 0 ? `All ${result.clients.length} chains intact` : `${broken} of ${result.clients.length} chains broken`);
  if (result.checkpoints.length > 0)
    lines.push(`${result.checkpoints.length} checkpoint(s) not matched: the chain was cut short or rewritten after they were signed`);
  return lines.join('\n');
}

function readCheckpointFiles(paths: string[]): CheckpointFile[] {
  return paths.map((file) => {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as CheckpointFile;
    } catch (error) {
      throw new CliError(`cannot read the checkpoint ${file}: ${(error as Error).message}`);
    }
  });
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerAudit(program: Command): void {
  const audit = program.command('audit').description('the hash-chained audit trail of the work-instruction domain');

  audit
    .command('verify')
    .description(
      "walk every client's audit chain (or one) and exit 1 naming the first broken entry when a row was edited, deleted or reordered, or when the chain no longer matches a signed checkpoint (cut short or rewritten)",
    )
    .option('--client-id <id>', "verify only this client's chain", positiveId)
    .option('--checkpoint <file>', 'also hold the chain against this exported checkpoint (repeatable)', collect)
    .action(async (opts: { clientId?: number; checkpoint?: string[] }, command: Command) => {
      const checkpointFiles = readCheckpointFiles(opts.checkpoint ?? []);
      await withDeps(command, async (deps) => {
        const result = await verifyAuditTrailAcrossClients(deps, { clientId: opts.clientId, checkpointFiles });
        output(command, describe(result), result);
        if (!result.ok) process.exitCode = 1;
      });
    });

  audit
    .command('checkpoint')
    .description(
      "sign every client's chain head now (or one's) with the appliance key, time-stamped when timestampAuthorityUrl is set; the daemon also does it daily",
    )
    .option('--client-id <id>', "only this client's chain", positiveId)
    .option('--export <file>', 'with --client-id: write the newest checkpoint to this file (for an outsider to keep) instead of making one')
    .option('--list', 'with --client-id: list the stored checkpoints instead of making one')
    .action(async (opts: { clientId?: number; export?: string; list?: boolean }, command: Command) => {
      if ((opts.export || opts.list) && opts.clientId === undefined) throw new CliError('--export and --list need --client-id');
      await withDeps(command, async (deps) => {
        if (opts.export) {
          const file = await exportCheckpoint(deps, opts.clientId!);
          fs.writeFileSync(opts.export, JSON.stringify(file, null, 2) + '\n');
          output(command, `wrote the newest checkpoint of client ${opts.clientId} to ${opts.export}`, file);
          return;
        }
        if (opts.list) {
          const list = await listClientCheckpoints(deps, opts.clientId!);
          output(
            command,
            list
              .map((c) => `${c.id}  ${c.createdAt}  entry ${c.seq}  ${c.hash}  key ${c.kid}${c.timestamped ? '  time-stamped' : ''}`)
              .join('\n') || 'No checkpoints yet',
            list,
          );
          return;
        }
        const made = await checkpointChains(deps, { clientId: opts.clientId });
        output(
          command,
          made.length === 0
            ? 'No audit chains yet'
            : made
                .map(
                  (c) =>
                    `client ${c.clientId}: checkpoint ${c.id} at entry ${c.seq} (${c.hash}), key ${c.kid}${c.timestamped ? ', time-stamped' : ''}`,
                )
                .join('\n'),
          made,
        );
      });
    });
}
