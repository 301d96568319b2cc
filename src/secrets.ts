import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** Secrets generated on first start and kept in <data-dir>/secrets.json (mode 0600). */
export interface Secrets {
  jwtSecret: string;
  cookieKeys: string[];
}

export function secretsPath(dataDir: string): string {
  return path.join(dataDir, 'secrets.json');
}

/** Reads the secrets, generating them when absent. Returns whether they were created now. */
export function loadOrCreateSecrets(dataDir: string): { secrets: Secrets; created: boolean } {
  const file = secretsPath(dataDir);
  try {
    const secrets = JSON.parse(fs.readFileSync(file, 'utf8')) as Secrets;
    if (typeof secrets.jwtSecret !== 'string' || !Array.isArray(secrets.cookieKeys) || secrets.cookieKeys.length === 0) {
      throw new Error(`${file} is incomplete`);
    }
    return { secrets, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secrets: Secrets = {
    jwtSecret: randomBytes(64).toString('base64url'),
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
  // 'wx': never overwrite secrets another process created a moment ago.
  try {
    fs.writeFileSync(file, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateSecrets(dataDir);
    throw error;
  }
  return { secrets, created: true };
}
