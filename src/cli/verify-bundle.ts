import fs from 'node:fs';
import { createHash, X509Certificate } from 'node:crypto';
import type { Command } from 'commander';
import { parseTrustedKeys, verdictLine, verifyRecordBundle, type TrustedKeys, type Verification } from '#domain/record-verify';
import { CliError, output } from './context';

/**
 * `wip verify-bundle FILE [--key KEY] [--keys FILE]`: checks a
 * record bundle offline — no data directory, no database, no network — so it
 * runs from the single executable on any machine. Exit 0 (VERIFIED) only when
 * the record is intact AND signed by a key given here: the bundle carries its
 * own public key, which anyone re-signing a forgery replaces too.
 * Exit 1: NOT VERIFIED, naming every problem; exit 3: INTEGRITY ONLY — intact,
 * but no trusted key was given, so its origin is not verified.
 */

/** Exit code of an intact bundle whose signing key was not checked against a trusted one (2 is a usage error). */
export const INTEGRITY_ONLY_EXIT = 3;

function describe(file: string, result: Verification): string {
  const lines: string[] = [];
  if (result.summary) {
    const s = result.summary;
    lines.push(
      `${file}: job ${s.jobId} "${s.jobTitle}" (${s.jobState}) of ${s.clientName}, ${s.template} version ${s.versionNumber}; ${s.steps} steps, ${s.faults} faults, ${s.files} files (${s.attachments} included), ${s.auditEntries} audit entries; issued ${s.issuedAt}`,
    );
  }
  if (result.signer)
    lines.push(
      `signed by key ${result.signer.kid}${result.signer.trusted === true ? ' (trusted)' : result.signer.trusted === false ? ' (NOT TRUSTED)' : ' (not checked against a trusted key)'}`,
    );
  if (result.timestamp)
    lines.push(
      `time-stamped ${result.timestamp.genTime} by ${result.timestamp.tsa} (certificate SHA-256 ${result.timestamp.certificateSha256})`,
    );
  for (const note of result.notes) lines.push(`  ok: ${note}`);
  for (const problem of result.problems) lines.push(`  FAIL: ${problem}`);
  lines.push(verdictLine(result));
  return lines.join('\n');
}

/** --key: a file (JWKS, JWK, PEM, or fingerprints), or a fingerprint given inline; --keys: a file only. */
async function readKeys(flag: '--key' | '--keys', value: string): Promise<TrustedKeys> {
  let text = value;
  if (flag === '--keys' || fs.existsSync(value)) {
    try {
      text = fs.readFileSync(value, 'utf8');
    } catch (error) {
      throw new CliError(`${flag} ${value}: cannot read the file (${(error as Error).message})`);
    }
  }
  try {
    return await parseTrustedKeys(text);
  } catch (error) {
    throw new CliError(`${flag} ${value}: ${(error as Error).message}`);
  }
}

/** Every key given with --key and --keys, as one trusted set. */
async function trustedKeys(opts: { key?: string; keys?: string }): Promise<TrustedKeys | undefined> {
  const given = [...(opts.key ? [await readKeys('--key', opts.key)] : []), ...(opts.keys ? [await readKeys('--keys', opts.keys)] : [])];
  if (given.length === 0) return undefined;
  return {
    keys: given.flatMap((t) => t.keys ?? []),
    fingerprints: given.flatMap((t) => t.fingerprints ?? []),
  };
}

function tsaFingerprint(file: string): string {
  try {
    return createHash('sha256')
      .update(new X509Certificate(fs.readFileSync(file)).raw)
      .digest('hex');
  } catch (error) {
    throw new CliError(`--tsa-cert ${file}: not a readable PEM certificate (${(error as Error).message})`);
  }
}

export function registerVerifyBundle(program: Command): void {
  program
    .command('verify-bundle')
    .description(
      'verify a record bundle offline (no data directory needed): signature, every hash, the audit chain slice, the approved version, included photos. Exit 0 VERIFIED (intact, signed by a key given with --key/--keys); 1 NOT VERIFIED naming what is wrong; 3 INTEGRITY ONLY (intact, but no trusted key given: origin not verified)',
    )
    .argument('<file>', 'the bundle (job-<id>-record.json)')
    .option(
      '--key <key>',
      "a trusted signing key: its fingerprint, or a JWK or PEM public key file (or the appliance's key set, as with --keys)",
    )
    .option('--keys <file>', "the appliance's published key set, saved from /.well-known/wip-signing-keys.json")
    .option('--tsa-cert <pem>', "the plant's time-stamping authority certificate (PEM): a timestamp token signed by any other is refused")
    .action(async (file: string, opts: { key?: string; keys?: string; tsaCert?: string }, command: Command) => {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (error) {
        throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
      }
      const trusted = await trustedKeys(opts);
      const tsaCertificates = opts.tsaCert ? [tsaFingerprint(opts.tsaCert)] : undefined;
      const result = await verifyRecordBundle(text, tsaCertificates ? { ...trusted, tsaCertificates } : trusted);
      output(command, describe(file, result), result);
      if (result.verdict !== 'VERIFIED') process.exitCode = result.verdict === 'INTEGRITY_ONLY' ? INTEGRITY_ONLY_EXIT : 1;
    });
}
