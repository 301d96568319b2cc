/**
 * Makes a vendor license-signing key pair (RSA 3072):
 *   node dist/scripts/license-keygen.js --kid acme-2027 [--public-dir config/license-keys] [--private-out acme-2027.private.pem]
 * The public key goes to config/license-keys/<kid>.pem (baked into the build:
 * the appliance trusts exactly the keys in that folder); the private key is
 * written with mode 0600 and must never leave the vendor's signing machine.
 * A kid starting with "dev-" marks a development key, trusted only when the
 * appliance runs with WIP_ENV=development or test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import forge from 'node-forge';

const program = new Command()
  .name('license-keygen')
  .description('make an RSA 3072 key pair for signing wip license keys')
  .requiredOption('--kid <kid>', 'key id, e.g. acme-2027 (letters, digits, . _ -)')
  .option('--public-dir <dir>', 'where the public key goes', path.resolve(__dirname, '..', '..', 'config', 'license-keys'))
  .option('--private-out <file>', 'private key file (default ./<kid>.private.pem)')
  .option('--force', 'overwrite existing files')
  .parse();

const opts = program.opts<{ kid: string; publicDir: string; privateOut?: string; force?: boolean }>();
if (!/^[A-Za-z0-9._-]{1,64}$/.test(opts.kid)) {
  process.stderr.write('license-keygen: --kid may hold only letters, digits, ".", "_" and "-"\n');
  process.exit(2);
}
const publicFile = path.join(opts.publicDir, `${opts.kid}.pem`);
const privateFile = path.resolve(opts.privateOut ?? `${opts.kid}.private.pem`);
for (const file of [publicFile, privateFile]) {
  if (fs.existsSync(file) && !opts.force) {
    process.stderr.write(`license-keygen: ${file} exists (use --force to overwrite)\n`);
    process.exit(1);
  }
}
// forge uses Node's native generator when available: seconds, not minutes.
const pair = forge.pki.rsa.generateKeyPair({ bits: 3072, e: 0x10001 });
fs.mkdirSync(opts.publicDir, { recursive: true });
fs.writeFileSync(publicFile, forge.pki.publicKeyToPem(pair.publicKey));
fs.writeFileSync(privateFile, forge.pki.privateKeyToPem(pair.privateKey), { mode: 0o600 });
process.stdout.write(`public key:  ${publicFile}\nprivate key: ${privateFile} (keep it secret; never commit it)\n`);
