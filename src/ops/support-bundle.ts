import fs from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';
import { version } from '../../package.json';
import { migrations } from '../../migrations';
import { SECRET_CONFIG_KEYS, type Config } from '#config';
import { presentLog } from '#presenters';
import { listAppliedMigrationNames } from '#repos/maintenance';
import { listNewestLogs } from '#services/logs';
import { formatDoctor, runDoctor } from './doctor';
import { runtimeInfo } from '#lib/node-runtime';
import { DB_FILE } from '#lib/paths';
import { secretScrubber } from '#lib/redact';
import { integrityProblems, openReadonly } from './sqlite';

export interface SupportBundleOptions {
  config: Config;
  output: string;
  now: Date;
  /** how many of the newest log rows to include */
  logLines: number;
}

export interface SupportBundleResult {
  file: string;
  bytes: number;
  entries: string[];
}

// Besides the declared secret keys, any key whose name says it holds a
// password or secret (a key added without being declared). Not "token" or
// "key": accessTokenTtl or tlsKey (a path) are what support needs to see.
const SECRET_NAME = /password|secret|credential/i;

/**
 * The effective configuration with every secret removed: secret keys are
 * `[removed]`, URLs lose their user and password; everything else is kept.
 */
export function sanitizeConfig(config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if ((SECRET_CONFIG_KEYS as readonly string[]).includes(key) || SECRET_NAME.test(key)) {
      out[key] = value === undefined ? undefined : '[removed]';
    } else if (typeof value === 'string' && /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
      out[key] = stripCredentials(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function stripCredentials(value: string): string {
  try {
    const url = new URL(value);
    if (url.username || url.password) {
      url.username = '';
      url.password = '';
    }
    url.search = url.search ? '?[removed]' : '';
    return url.toString();
  } catch {
    return '[removed]';
  }
}

/**
 * Writes a ZIP for the vendor's support: version, sanitized configuration,
 * migration status, doctor output and the newest log rows. Never secrets: the
 * configuration is sanitized and every known secret value is scrubbed from
 * every entry. Works on a damaged installation (what cannot be read is said so).
 */
export async function createSupportBundle(options: SupportBundleOptions): Promise<SupportBundleResult> {
  const { config, now } = options;
  const scrub = secretScrubber(config);
  const files: [string, string][] = [];
  files.push([
    'version.json',
    // runtime: as GET /api/client/version reports it (with the end of life of the Node.js line)
    JSON.stringify(
      {
        version,
        node: process.version,
        runtime: runtimeInfo(),
        platform: process.platform,
        arch: process.arch,
        createdAt: now.toISOString(),
      },
      null,
      2,
    ),
  ]);
  files.push(['config.json', JSON.stringify(sanitizeConfig(config), null, 2)]);

  const doctor = await runDoctor(config, { now });
  files.push(['doctor.json', JSON.stringify(doctor, null, 2)]);
  files.push(['doctor.txt', formatDoctor(doctor)]);

  const dbFile = path.join(config.dataDir, DB_FILE);
  if (fs.existsSync(dbFile) && integrityProblems(dbFile, config.dataDir).length === 0) {
    const db = openReadonly(dbFile, config.dataDir);
    try {
      const applied = await listAppliedMigrationNames(db.kysely);
      const known = Object.keys(migrations);
      files.push([
        'migrations.json',
        JSON.stringify(
          {
            applied,
            pending: known.filter((n) => !applied.includes(n)),
            unknown: applied.filter((n) => !known.includes(n)),
          },
          null,
          2,
        ),
      ]);
      let logs = '';
      try {
        const rows = await listNewestLogs({ db }, options.logLines);
        logs = rows
          .reverse()
          .map((row) => JSON.stringify(presentLog(row)))
          .join('\n');
      } catch (error) {
        logs = JSON.stringify({ error: `cannot read logs: ${(error as Error).message}` });
      }
      files.push(['logs.ndjson', logs]);
    } finally {
      await db.close();
    }
  } else {
    files.push(['migrations.json', JSON.stringify({ error: 'database missing or damaged; see doctor.txt' })]);
    files.push(['logs.ndjson', '']);
  }

  const output = path.resolve(options.output);
  fs.mkdirSync(path.dirname(output), { recursive: true });
  const zip = new yazl.ZipFile();
  for (const [name, text] of files) {
    zip.addBuffer(Buffer.from(scrub(text) + '\n', 'utf8'), `wip-support/${name}`, { mtime: now, mode: 0o100600 });
  }
  zip.end();
  const partial = `${output}.partial`;
  await new Promise<void>((resolve, reject) => {
    const out = fs.createWriteStream(partial, { mode: 0o600 });
    zip.outputStream
      .on('error', reject)
      .pipe(out)
      .on('error', reject)
      .on('close', () => resolve());
  });
  fs.renameSync(partial, output);
  return { file: output, bytes: fs.statSync(output).size, entries: files.map(([name]) => `wip-support/${name}`) };
}
