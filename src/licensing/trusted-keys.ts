import fs from 'node:fs';
import path from 'node:path';
import { isSingleExecutable } from '#lib/executable';
import { embeddedKeys } from './embedded-keys';
import { trustedKeyFromPem, type TrustedKey, type TrustedKeys } from './key';

/**
 * The vendor public keys this build trusts (not a configurable path: an
 * operator who could add a key could sign their own license). A vendor builds
 * with its own key by putting its public key in config/license-keys/<kid>.pem;
 * development keys are named dev-*.
 *
 * - Without `dir`, from the source tree: every config/license-keys/<kid>.pem
 *   shipped with the program.
 * - Without `dir`, in the single executable: only the keys embedded at build
 *   time (embedded-keys.ts), never a file; none at all if the build embedded
 *   none (fail closed).
 * - With `dir` (tests, vendor scripts): the .pem files of that directory.
 */
export function loadTrustedKeys(dir?: string): TrustedKeys {
  if (dir !== undefined) return keysFromDirectory(dir);
  if (embeddedKeys) return keysFromPems(embeddedKeys);
  if (isSingleExecutable()) return new Map();
  return keysFromDirectory(defaultKeysDir());
}

function keysFromPems(pems: Readonly<Record<string, string>>): TrustedKeys {
  const keys = new Map<string, TrustedKey>();
  for (const kid of Object.keys(pems).sort()) keys.set(kid, trustedKeyFromPem(kid, pems[kid]));
  return keys;
}

function keysFromDirectory(dir: string): TrustedKeys {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return new Map();
  }
  return keysFromPems(
    Object.fromEntries(
      names.filter((n) => n.endsWith('.pem')).map((name) => [name.slice(0, -'.pem'.length), fs.readFileSync(path.join(dir, name), 'utf8')]),
    ),
  );
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
