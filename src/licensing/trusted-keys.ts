import fs from 'node:fs';
import path from 'node:path';
import { trustedKeyFromPem, type TrustedKey, type TrustedKeys } from './key';

/**
 * The vendor public keys this build trusts: every config/license-keys/<kid>.pem
 * shipped with the program (not a configurable path: an operator who could add
 * a key could sign their own license). A vendor builds with its own key by
 * putting its public key there; development keys are named dev-*.
 */
export function loadTrustedKeys(dir: string = defaultKeysDir()): TrustedKeys {
  const keys = new Map<string, TrustedKey>();
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return keys;
  }
  for (const name of names.filter((n) => n.endsWith('.pem')).sort()) {
    const kid = name.slice(0, -'.pem'.length);
    keys.set(kid, trustedKeyFromPem(kid, fs.readFileSync(path.join(dir, name), 'utf8')));
  }
  return keys;
}

/** config/license-keys of the installed program (found upwards from the compiled module). */
export function defaultKeysDir(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'config', 'license-keys');
    if (fs.existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return path.resolve(__dirname, '..', '..', '..', 'config', 'license-keys');
}
