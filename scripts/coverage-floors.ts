import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

interface Totals {
  lines: { total: number; covered: number };
  branches: { total: number; covered: number };
}

/**
 * After a run with coverage (scripts/run-tests.ts): `c8 report` (.c8rc.json: coverage/index.html and
 * coverage/coverage-summary.json), then each folder of src/ with its line and branch coverage, and with
 * `floors`, a check that every folder .c8rc.json's `floors` names covers at least that share of its lines (only
 * the whole suite can be held to it). True when the floors hold (or were not checked).
 */
export function checkCoverageFloors(checkout: string, options: { floors: boolean }): boolean {
  const c8 = spawnSync(path.join(checkout, 'node_modules', '.bin', 'c8'), ['report'], { cwd: checkout, stdio: 'inherit' });
  if (c8.status !== 0) {
    process.stdout.write('coverage: c8 report failed\n');
    return false;
  }
  const config = JSON.parse(fs.readFileSync(path.join(checkout, '.c8rc.json'), 'utf8')) as { floors: Record<string, number> };
  const summary = JSON.parse(fs.readFileSync(path.join(checkout, 'coverage', 'coverage-summary.json'), 'utf8')) as Record<string, Totals>;
  const folders = new Map<string, Totals>();
  for (const [file, totals] of Object.entries(summary)) {
    if (file === 'total') continue;
    const parts = path.relative(checkout, file).split(path.sep);
    const folder = parts.length > 2 ? parts.slice(0, 2).join('/') : parts[0];
    const sum = folders.get(folder) ?? { lines: { total: 0, covered: 0 }, branches: { total: 0, covered: 0 } };
    for (const kind of ['lines', 'branches'] as const) {
      sum[kind].total += totals[kind].total;
      sum[kind].covered += totals[kind].covered;
    }
    folders.set(folder, sum);
  }
  const percent = (part: { total: number; covered: number }) => (part.total === 0 ? 100 : (100 * part.covered) / part.total);
  let held = true;
  process.stdout.write(`coverage (lines, branches; coverage/index.html for each file):\n`);
  for (const [folder, totals] of [...folders].sort(([a], [b]) => a.localeCompare(b))) {
    const lines = percent(totals.lines);
    const floor = config.floors[folder];
    const below = options.floors && floor !== undefined && lines < floor;
    if (below) held = false;
    process.stdout.write(
      `  ${folder.padEnd(22)} ${lines.toFixed(1).padStart(5)}%  ${percent(totals.branches).toFixed(1).padStart(5)}%` +
        `${floor === undefined ? '' : `  floor ${floor}%${below ? ' — BELOW THE FLOOR' : ''}`}\n`,
    );
  }
  return held;
}
