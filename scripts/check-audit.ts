/**
 * The dependency audit of CI (docs/development.md "Dependency audit"): `npm audit` of the production dependencies
 * (what the appliance ships; the dev tools never reach a plant), judged by one policy:
 * - a high or critical advisory in a production dependency fails the run (exit 1), naming each package;
 * - low and moderate ones are listed and pass;
 * - no answer from the advisory service (no network, a timeout, a registry or mirror without the advisory endpoint)
 *   is a warning, not a failure (exit 0): the code under test did not change, and CI must not depend on a third
 *   party's uptime. The warning says the audit did not run.
 *
 *   node dist/scripts/check-audit.js [--registry URL]
 */
import { spawnSync } from 'node:child_process';

export const FAILING_SEVERITIES = ['high', 'critical'] as const;

export interface AuditVerdict {
  /** 0: passes, 1: fails */
  exitCode: 0 | 1;
  lines: string[];
}

interface AuditReport {
  vulnerabilities?: Record<string, { name: string; severity: string; range?: string; via?: unknown[] }>;
  metadata?: { vulnerabilities?: Record<string, number> };
  error?: { code?: string; summary?: string };
  message?: string;
  statusCode?: number;
}

/** What npm audit's JSON output means under the policy; `output` is its stdout. */
export function auditVerdict(output: string): AuditVerdict {
  let report: AuditReport;
  try {
    report = JSON.parse(output) as AuditReport;
  } catch {
    return {
      exitCode: 0,
      lines: [`WARNING: npm audit gave no report (${oneLine(output) || 'no output'}): the dependency audit did not run`],
    };
  }
  if (!report.metadata?.vulnerabilities || !report.vulnerabilities) {
    const why = report.message ?? report.error?.summary ?? report.error?.code ?? 'no answer from the advisory service';
    return { exitCode: 0, lines: [`WARNING: the advisory service did not answer (${oneLine(why)}): the dependency audit did not run`] };
  }
  const found = Object.values(report.vulnerabilities).sort((a, b) => a.name.localeCompare(b.name));
  const failing = found.filter((v) => (FAILING_SEVERITIES as readonly string[]).includes(v.severity));
  const lines = found.map((v) => `${v.severity.padEnd(8)} ${v.name}${v.range ? ` ${v.range}` : ''}${advisories(v.via)}`);
  const counts = report.metadata.vulnerabilities;
  lines.push(
    `npm audit (production dependencies): ${counts.critical ?? 0} critical, ${counts.high ?? 0} high, ${counts.moderate ?? 0} moderate, ${counts.low ?? 0} low` +
      (failing.length > 0 ? ` — fails: fix or update ${failing.map((v) => v.name).join(', ')}` : ' — passes'),
  );
  return { exitCode: failing.length > 0 ? 1 : 0, lines };
}

/** The advisories' addresses a vulnerability names (`via` holds advisories, or names of the packages it comes through). */
function advisories(via: unknown[] | undefined): string {
  const urls = (via ?? []).flatMap((v) => (typeof v === 'object' && v !== null && 'url' in v && typeof v.url === 'string' ? [v.url] : []));
  return urls.length > 0 ? ` (${urls.join(', ')})` : '';
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}

function main(): number {
  const at = process.argv.indexOf('--registry');
  const registry = at >= 0 ? ['--registry', process.argv[at + 1]] : [];
  // bounded: one retry, a minute per request, so an unreachable service costs CI a minute at most
  const result = spawnSync('npm', ['audit', '--omit=dev', '--json', '--fetch-retries=1', '--fetch-timeout=60000', ...registry], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  const verdict = auditVerdict(result.stdout);
  for (const line of verdict.lines) process.stdout.write(`${line}\n`);
  return verdict.exitCode;
}

// run as a program, not when a test imports it
if (/check-audit\.[jt]s$/.test(process.argv[1] ?? '')) process.exitCode = main();
