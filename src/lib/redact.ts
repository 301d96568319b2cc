import fs from 'node:fs';
import path from 'node:path';
import { SECRET_CONFIG_KEYS, type Config } from '#config';
import { SECRETS_FILE } from './paths';

/**
 * Log rows and bundles that leave the appliance (support bundle, log export,
 * the console's live log tail) go through one scrubber: every secret value
 * this installation knows (secrets.json, the secret configuration keys, the
 * SMTP password) is replaced by `[redacted]` wherever it appears, and values
 * under keys that name a credential are replaced whatever they hold. A second
 * line of defence: events are recorded without secrets in the first place.
 */
export type Scrubber = (text: string) => string;

export const REDACTED = '[redacted]';
/** keys whose value is a credential (the keys of REDACT_PATHS in src/logger.ts, as one pattern) */
const CREDENTIAL_KEY = /password|secret|token|credential|cookie|authorization|licenseKey|privateKey|smtpUrl/i;

/** Settings that name a credential's policy, not a credential (a security settings change shows their values). */
const CREDENTIAL_POLICY_KEYS = new Set(['passwordMinLength']);

/** Whether a field of this name holds a credential (its value is never recorded, only that it changed). */
export function isCredentialKey(key: string): boolean {
  return CREDENTIAL_KEY.test(key) && !CREDENTIAL_POLICY_KEYS.has(key);
}

/** Every secret value this installation knows (at least 6 characters: shorter ones would scrub ordinary words). */
/**
 * `held`: the secrets the daemon holds (any object: every string in it is collected; typed loosely so the
 * bottom layer does not depend on where secrets are stored).
 */
export function knownSecretValues(config: Config, held?: object): string[] {
  const values: string[] = [];
  const collect = (v: unknown) => {
    if (typeof v === 'string') values.push(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object') Object.values(v).forEach(collect);
  };
  try {
    collect(JSON.parse(fs.readFileSync(path.join(config.dataDir, SECRETS_FILE), 'utf8')) as unknown);
  } catch {
    // no secrets file (PostgreSQL mode, or a damaged installation): nothing to scrub from it
  }
  // the secrets the daemon holds: on PostgreSQL the shared ones, read from the database, never in the file
  if (held) collect(held);
  for (const key of SECRET_CONFIG_KEYS) if (typeof config[key] === 'string') values.push(config[key]);
  if (config.smtpUrl) {
    try {
      const url = new URL(config.smtpUrl);
      if (url.password) values.push(decodeURIComponent(url.password));
    } catch {
      // not a URL: nothing more to learn from it
    }
  }
  return values.filter((v) => v.length >= 6);
}

/** A scrubber for the secret values known now (read once: build one per export or stream). */
export function secretScrubber(config: Config, held?: object): Scrubber {
  const secrets = knownSecretValues(config, held);
  return (text) => {
    let out = text;
    for (const secret of secrets) out = out.split(secret).join(REDACTED);
    return out;
  };
}

/** A value (a log row's `data`, a presented log) with credential-named keys blanked and known secrets scrubbed. */
export function redactValue<T>(value: T, scrub: Scrubber): T {
  const blank = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(blank);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v).map(([key, inner]) => [key, isCredentialKey(key) && inner !== null ? REDACTED : blank(inner)]),
      );
    }
    return v;
  };
  return JSON.parse(scrub(JSON.stringify(blank(value)))) as T;
}
