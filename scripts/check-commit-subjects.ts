/**
 * Commit subjects fit one line: at most 72 characters, the story in the body
 * (docs/development.md "Commits"). .ci/run checks every commit made after
 * SUBJECT_RULE_BASE, the main head when the rule came in: the history before
 * it stays as it was written.
 *   node dist/scripts/check-commit-subjects.js [--base <commit>] [--cwd <repository>]
 * Exits 1 naming each commit whose subject is longer, 2 when the base is not
 * in the history (a shallow clone: fetch the whole history).
 */
import { spawnSync } from 'node:child_process';

export const SUBJECT_RULE_BASE = '4e443d8';
export const MAX_SUBJECT_LENGTH = 72;

export interface Commit {
  hash: string;
  subject: string;
}

/** Characters, not bytes nor UTF-16 units: "→" is one. */
export const subjectLength = (subject: string) => [...subject].length;

export function overlongSubjects(commits: readonly Commit[], max = MAX_SUBJECT_LENGTH): Commit[] {
  return commits.filter((commit) => subjectLength(commit.subject) > max);
}

function git(cwd: string, args: string[]): { ok: boolean; out: string; err: string } {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (result.error) throw result.error;
  return { ok: result.status === 0, out: result.stdout, err: result.stderr };
}

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function main(): number {
  const base = option('--base') ?? SUBJECT_RULE_BASE;
  const cwd = option('--cwd') ?? process.cwd();
  if (!git(cwd, ['rev-parse', '--verify', '--quiet', `${base}^{commit}`]).ok) {
    process.stderr.write(`check-commit-subjects: the base commit ${base} is not in this repository's history (a shallow clone?)\n`);
    return 2;
  }
  // merges included: a merge's subject is read in `git log --oneline` like any other
  const log = git(cwd, ['log', '--format=%h%x09%s', `${base}..HEAD`]);
  if (!log.ok) throw new Error(`git log failed: ${log.err}`);
  const commits = log.out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      return { hash: line.slice(0, tab), subject: line.slice(tab + 1) };
    });
  const long = overlongSubjects(commits);
  for (const commit of long) process.stdout.write(`${commit.hash} (${subjectLength(commit.subject)} characters): ${commit.subject}\n`);
  if (long.length > 0) {
    process.stdout.write(
      `check-commit-subjects: ${long.length} of ${commits.length} commits since ${base} have a subject over ${MAX_SUBJECT_LENGTH} characters: shorten it (git rebase -i, reword) and put the details in the body\n`,
    );
    return 1;
  }
  process.stdout.write(
    `check-commit-subjects: ${commits.length} commits since ${base}, every subject within ${MAX_SUBJECT_LENGTH} characters\n`,
  );
  return 0;
}

if (require.main === module) process.exitCode = main();
