import type { Command } from 'commander';
import { verifyAuditTrailAcrossClients, type AuditVerification } from '#services/audit';
import { output, withDeps } from './context';
import { positiveId } from './logs';

function describe(result: AuditVerification): string {
  if (result.clients.length === 0) return 'No audit chains yet';
  const lines = result.clients.map(({ clientId, entries, broken }) =>
    broken
      ? `client ${clientId}: BROKEN at entry ${broken.seq}${broken.entryId !== null ? ` (row id ${broken.entryId})` : ''}: ${broken.reason}`
      : `client ${clientId}: ${entries} entries, chain intact`,
  );
  const broken = result.clients.filter((c) => c.broken).length;
  lines.push(broken === 0 ? `All ${result.clients.length} chains intact` : `${broken} of ${result.clients.length} chains broken`);
  return lines.join('\n');
}

export function registerAudit(program: Command): void {
  const audit = program.command('audit').description('the hash-chained audit trail of the work-instruction domain');

  audit
    .command('verify')
    .description('walk every client\'s audit chain (or one) and exit 1 naming the first broken entry when a row was edited, deleted or reordered')
    .option('--client-id <id>', 'verify only this client\'s chain', positiveId)
    .action(async (opts: { clientId?: number }, command: Command) => {
      await withDeps(command, async (deps) => {
        const result = await verifyAuditTrailAcrossClients(deps, { clientId: opts.clientId });
        output(command, describe(result), result);
        if (!result.ok) process.exitCode = 1;
      });
    });
}
