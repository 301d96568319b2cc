import fs from 'node:fs';
import { createHash, X509Certificate } from 'node:crypto';
import type { Command } from 'commander';
import { parseTrustedKeys, verifyRecordBundle, type TrustedKeys, type Verification } from '#domain/record-verify';
import { CliError, output } from './context';

/**
 * `wip verify-bundle FILE [--key KEY]` (issue 34): checks a record bundle
 * offline — no data directory, no database, no network — so it runs from the
 * single executable on any machine. Exit 0: the record is intact (and signed
 * by a trusted key when one was given); exit 1 naming every problem.
 */

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
  lines.push(result.ok ? 'VERIFIED: the record is intact' : `NOT VERIFIED: ${result.problems.length} problem(s)`);
  return lines.join('\n');
}

async function readKeys(value: string): Promise<TrustedKeys> {
  // a file (JWKS, JWK, PEM, or fingerprints), or a fingerprint given inline
  const text = fs.existsSync(value) ? fs.readFileSync(value, 'utf8') : value;
  try {
    return await parseTrustedKeys(text);
  } catch (error) {
    throw new CliError(`--key ${value}: ${(error as Error).message}`);
  }
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
      'verify a record bundle offline (no data directory needed): signature, every hash, the audit chain slice, the approved version, included photos; exit 1 naming what is wrong',
    )
    .argument('<file>', 'the bundle (job-<id>-record.json)')
    .option(
      '--key <key>',
      "the appliance's published keys (/.well-known/wip-signing-keys.json), a JWK or PEM public key file, or a key fingerprint",
    )
    .option('--tsa-cert <pem>', "the plant's time-stamping authority certificate (PEM): a timestamp token signed by any other is refused")
    .action(async (file: string, opts: { key?: string; tsaCert?: string }, command: Command) => {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (error) {
        throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
      }
      const trusted: TrustedKeys | undefined = opts.key ? await readKeys(opts.key) : undefined;
      const tsaCertificates = opts.tsaCert ? [tsaFingerprint(opts.tsaCert)] : undefined;
      const result = await verifyRecordBundle(text, tsaCertificates ? { ...trusted, tsaCertificates } : trusted);
      output(command, describe(file, result), result);
      if (!result.ok) process.exitCode = 1;
    });
}
