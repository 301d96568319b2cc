import type { Command } from 'commander';
import { createAdmin, deleteAdmin, listAdmins, resetAdminPassword } from '#services/admins';
import { presentSystemAdmin } from '#presenters';
import { changedByCli } from '#services/security-log';
import { output, readPassword, withDeps } from './context';

interface PasswordOpts {
  username: string;
  password?: string;
  passwordStdin?: boolean;
}

export function registerAdmin(program: Command): void {
  const admin = program.command('admin').description('manage system administrators (works while the daemon runs)');

  admin
    .command('create')
    .description('create a system administrator')
    .requiredOption('--username <name>', 'sign-in name')
    .option('--password <password>', 'password (visible in shell history; prefer --password-stdin)')
    .option('--password-stdin', 'read the password from standard input')
    .action(async (opts: PasswordOpts, command: Command) => {
      const password = await readPassword(opts);
      await withDeps(command, async (deps) => {
        const row = await createAdmin(deps, opts.username, password, changedByCli());
        output(command, `Created system administrator "${row.username}"`, presentSystemAdmin(row));
      });
    });

  admin
    .command('list')
    .description('list system administrators')
    .action(async (_opts: unknown, command: Command) => {
      await withDeps(command, async (deps) => {
        const rows = (await listAdmins(deps)).map(presentSystemAdmin);
        output(command, rows.map((r) => `${r.id}\t${r.username}\t${r.createdAt}`).join('\n'), rows);
      });
    });

  admin
    .command('reset-password')
    .description("set a system administrator's password and end their sessions")
    .requiredOption('--username <name>', 'sign-in name')
    .option('--password <password>', 'new password (prefer --password-stdin)')
    .option('--password-stdin', 'read the new password from standard input')
    .action(async (opts: PasswordOpts, command: Command) => {
      const password = await readPassword(opts);
      await withDeps(command, async (deps) => {
        await resetAdminPassword(deps, opts.username, password, changedByCli());
        output(command, `Password of "${opts.username}" reset`, { username: opts.username, reset: true });
      });
    });

  admin
    .command('delete')
    .description('delete a system administrator (never the last one)')
    .requiredOption('--username <name>', 'sign-in name')
    .action(async (opts: { username: string }, command: Command) => {
      await withDeps(command, async (deps) => {
        await deleteAdmin(deps, opts.username, changedByCli());
        output(command, `Deleted system administrator "${opts.username}"`, { username: opts.username, deleted: true });
      });
    });
}
