import type { Command } from 'commander';
import { tenantScope } from '#db/tenant';
import { getClient } from '#services/clients';
import { unlockUserByEmail } from '#services/lockout';
import { cliActor } from '#services/security-log';
import { UsageError, output, withDeps } from './context';

export function registerUser(program: Command): void {
  const user = program.command('user').description("manage client users' accounts (works while the daemon runs)");

  user
    .command('unlock')
    .description('lift the sign-in lockout of a user after repeated failed attempts')
    .requiredOption('--client-id <id>', 'the client (tenant) of the user')
    .requiredOption('--email <email>', 'the email of the user')
    .action(async (opts: { clientId: string; email: string }, command: Command) => {
      const clientId = Number(opts.clientId);
      if (!Number.isInteger(clientId) || clientId < 1) throw new UsageError('--client-id must be a client id');
      await withDeps(command, async (deps) => {
        const client = await getClient(deps, clientId);
        const scope = tenantScope(client.id);
        const result = await unlockUserByEmail(deps, scope, opts.email, { via: 'cli', actor: cliActor() });
        output(
          command,
          result.wasLocked ? `Unlocked ${result.email} (client ${client.id})` : `${result.email} was not locked; failure count cleared`,
          { clientId: client.id, ...result },
        );
      });
    });
}
