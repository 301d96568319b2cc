import type { Command } from 'commander';
import { rotateApplianceKey, signingKeySet } from '#services/signing-keys';
import type { PublishedKey } from '#lib/signing-keys';
import { output, withDeps } from './context';

/** `wip keys`: the appliance signing keys of record bundles and audit checkpoints. */

const line = (k: PublishedKey) => `${k.kid}  ${k.retiredAt ? `retired ${k.retiredAt}` : 'ACTIVE'}  (made ${k.createdAt})`;

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('the appliance signing keys (Ed25519) that sign record bundles and audit checkpoints');

  keys
    .command('list')
    .description('every signing key by fingerprint (RFC 7638 thumbprint), the active one and the retired ones still published')
    .action(async (_opts: unknown, command: Command) => {
      await withDeps(command, async (deps) => {
        const set = await signingKeySet(deps);
        output(
          command,
          set.keys.length === 0 ? 'No signing key yet: the daemon makes one at its first start' : set.keys.map(line).join('\n'),
          set,
        );
      });
    });

  keys
    .command('rotate')
    .description(
      'retire the active signing key (its public key stays published, so what it signed still verifies) and make a new one; the daemon signs with it from its next signature on',
    )
    .action(async (_opts: unknown, command: Command) => {
      await withDeps(command, async (deps) => {
        const result = await rotateApplianceKey(deps);
        output(command, `New active signing key ${result.active}\n${result.keys.map(line).join('\n')}`, result);
      });
    });
}
