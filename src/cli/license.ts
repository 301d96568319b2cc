import fs from 'node:fs';
import type { Command } from 'commander';
import { installLicense, licenseOverview } from '#services/licensing/index';
import { presentLicenseOverview } from '#presenters/licensing';
import { changedByCli } from '#services/security-log';
import { CliError, output, withDeps } from './context';

type Overview = ReturnType<typeof presentLicenseOverview>;

function describe(o: Overview): string {
  const lines = [
    o.evaluation
      ? 'Evaluation mode (no license key installed)'
      : `License ${o.licenseId} for ${o.licensee?.name ?? '?'}${o.licensee?.email ? ` <${o.licensee.email}>` : ''}`,
    `  status:          ${o.status}${o.readOnly ? ' (READ-ONLY: install a new key)' : o.warning ? ' (WARNING: renew the key)' : ''}`,
    ...(o.evaluation ? [] : [`  expires:         ${o.expiresAt} (${o.daysToExpiry} days; read-only from ${o.readOnlyAt})`]),
    `  clients:         ${o.usage.clients.count} of ${o.usage.clients.max}`,
    ...Object.entries(o.usage.seats).map(
      ([type, s]) => `  ${(type + ' seats:').padEnd(16)} ${s.allocated} of ${s.total} allocated to clients, ${s.used} in use`,
    ),
    `  features:        ${o.features.join(', ') || '(none)'}`,
    `  installation id: ${o.installationId}${o.boundToInstallation ? ' (the key is bound to it)' : ''}`,
    ...(o.problem ? [`  problem:         the installed key is not honoured (${o.problem})`] : []),
  ];
  return lines.join('\n');
}

/** A key given on the command line, in a .lic file, or on standard input ("-"). */
async function readKey(source: string): Promise<string> {
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8').trim();
  }
  if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(source.trim()) && source.length > 100) return source.trim();
  try {
    return fs.readFileSync(source, 'utf8').trim();
  } catch (error) {
    throw new CliError(`cannot read license file ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

export function registerLicense(program: Command): void {
  const license = program
    .command('license')
    .description('on-premise license key (works while the daemon runs: it picks the change up at once)');

  license
    .command('install')
    .description('validate and install a license key; an invalid key is refused and the current one kept')
    .argument('<key-or-file>', 'the key itself, a .lic file holding it, or - for standard input')
    .action(async (source: string, _opts: unknown, command: Command) => {
      const key = await readKey(source);
      await withDeps(command, async (deps) => {
        const overview = presentLicenseOverview(await installLicense(deps, key, changedByCli()));
        output(command, `License key installed\n${describe(overview)}`, overview);
      });
    });

  license
    .command('show')
    .description("the license in force, its status and days to expiry, usage, and this installation's id")
    .action(async (_opts: unknown, command: Command) => {
      await withDeps(command, async (deps) => {
        const overview = presentLicenseOverview(await licenseOverview(deps));
        output(command, describe(overview), overview);
      });
    });
}
