/**
 * Signs a wip license key with a vendor private key:
 *   node dist/scripts/issue-license.js --private-key acme-2027.private.pem --kid acme-2027 \
 *     --licensee "Example GmbH" --expires 2027-12-31 --full 50 --connect 200 --max-clients 3 \
 *     [--email it@example.com] [--installation-id ID] [--features sso,graphql] [--license-id L-42] [--out example.lic]
 *   node dist/scripts/issue-license.js --private-key K.pem --from terms.json [--out example.lic]
 * terms.json holds the payload fields (licensee, expiresAt, seats, maxClients, …); flags override it.
 * Without --features every feature is on. The key is printed (and written to --out).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import { signLicense } from '#licensing/key';
import { FEATURES, LicensePayloadSchema } from '#licensing/terms';

interface Opts {
  privateKey: string;
  kid?: string;
  from?: string;
  licensee?: string;
  email?: string;
  licenseId?: string;
  installationId?: string;
  issued?: string;
  expires?: string;
  full?: string;
  connect?: string;
  maxClients?: string;
  features?: string;
  out?: string;
}

const program = new Command()
  .name('issue-license')
  .description('sign a wip license key')
  .requiredOption('--private-key <file>', 'vendor private key (PEM)')
  .option('--kid <kid>', 'key id of that private key (default: the file name up to ".private.pem")')
  .option('--from <file>', 'JSON file with payload fields')
  .option('--licensee <name>', 'licensee name')
  .option('--email <email>', 'licensee contact email')
  .option('--license-id <id>', 'license id (default: random)')
  .option('--installation-id <id>', 'bind to one installation (shown by "wip license show")')
  .option('--issued <date>', 'issue date (default now)')
  .option('--expires <date>', 'expiry date (ISO date or date-time)')
  .option('--full <n>', 'total full seats')
  .option('--connect <n>', 'total connect seats')
  .option('--max-clients <n>', 'maximum number of clients')
  .option('--features <list>', `comma-separated features (default all: ${FEATURES.join(',')})`)
  .option('--out <file>', 'also write the key to this .lic file')
  .parse();

const opts = program.opts<Opts>();
try {
  const base = opts.from ? (JSON.parse(fs.readFileSync(opts.from, 'utf8')) as Record<string, any>) : {};
  const kid = opts.kid ?? base.kid ?? path.basename(opts.privateKey).replace(/\.private\.pem$|\.pem$/, '');
  const iso = (value: string | undefined) => (value === undefined ? undefined : new Date(value).toISOString());
  const int = (value: string | undefined) => (value === undefined ? undefined : Number(value));
  const payload = LicensePayloadSchema.parse({
    v: 1,
    kid,
    licenseId: opts.licenseId ?? base.licenseId ?? randomUUID(),
    licensee: {
      name: opts.licensee ?? base.licensee?.name,
      ...((opts.email ?? base.licensee?.email) !== undefined && { email: opts.email ?? base.licensee?.email }),
    },
    installationId: opts.installationId ?? base.installationId ?? null,
    issuedAt: iso(opts.issued) ?? iso(base.issuedAt) ?? new Date().toISOString(),
    expiresAt: iso(opts.expires) ?? iso(base.expiresAt),
    seats: { full: int(opts.full) ?? base.seats?.full ?? 0, connect: int(opts.connect) ?? base.seats?.connect ?? 0 },
    maxClients: int(opts.maxClients) ?? base.maxClients,
    features:
      opts.features !== undefined
        ? opts.features
            .split(',')
            .map((f) => f.trim())
            .filter(Boolean)
        : (base.features ?? [...FEATURES]),
  });
  const key = signLicense(payload, fs.readFileSync(opts.privateKey, 'utf8'));
  if (opts.out) fs.writeFileSync(opts.out, key + '\n');
  process.stdout.write(key + '\n');
} catch (error) {
  process.stderr.write(`issue-license: ${(error as Error).message}\n`);
  process.exit(1);
}
