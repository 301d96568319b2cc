import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The test files a change concerns, for `npm run test:quick` and `npm run test:watch`: a changed test file itself,
 * and for a changed source file, the test files whose name contains its name (src/services/jobs.ts →
 * test/services/jobs.test.ts, test/http/job-*.test.ts; an index.ts counts by its folder's name). `changed` and
 * `tests` are paths relative to the checkout (`tests`: test/…/*.test.ts); the answer is a part of `tests`.
 */
export function relatedTests(changed: string[], tests: string[]): string[] {
  const names = new Set<string>();
  const direct = new Set<string>();
  for (const file of changed) {
    if (!/\.tsx?$/.test(file)) continue;
    if (tests.includes(file)) direct.add(file);
    else if (file.startsWith('src/') || file.startsWith('migrations/')) {
      const base = path.basename(file).replace(/\.tsx?$/, '');
      const name = base === 'index' ? path.basename(path.dirname(file)) : base;
      names.add(name);
      if (/[a-z]{4}s$/.test(name)) names.add(name.slice(0, -1)); // schedules.ts → schedule-limits.test.ts too
    }
  }
  return tests.filter((test) => direct.has(test) || [...names].some((name) => path.basename(test).includes(name)));
}

/**
 * The files changed since the branch left main (committed or not, and new files git does not ignore); without a
 * main branch, since HEAD. Paths relative to the checkout.
 */
export function changedSinceMain(root: string): string[] {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  let base = 'HEAD';
  try {
    base = git('merge-base', 'HEAD', 'main')[0] ?? 'HEAD';
  } catch {
    // no main branch here: what is not committed yet
  }
  return [...new Set([...git('diff', '--name-only', base), ...git('ls-files', '--others', '--exclude-standard')])];
}
