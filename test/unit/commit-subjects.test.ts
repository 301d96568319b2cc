import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { overlongSubjects, subjectLength } from '../../scripts/check-commit-subjects';

/** scripts/check-commit-subjects.ts, as .ci/run runs it, on a scratch repository. */
const script = path.resolve(__dirname, '..', '..', 'scripts', 'check-commit-subjects.js');
const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-subjects-'));
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.test',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.test',
    },
  }).trim();
const commit = (subject: string) =>
  git('commit', '--allow-empty', '--quiet', '-m', subject, '-m', 'the body may be as long as it needs to be '.repeat(5));
const check = (base: string) => spawnSync(process.execPath, [script, '--base', base, '--cwd', repo], { encoding: 'utf8' });

const LONG = 'An old subject that says everything at once, far more than one line can hold';
git('-c', 'init.defaultBranch=main', 'init', '--quiet');
commit(LONG);
const base = git('rev-parse', 'HEAD');

test.after(() => fs.rmSync(repo, { recursive: true, force: true }));

test('72 characters pass, 73 do not; counted in characters, not bytes', () => {
  assert.is(subjectLength('→'.repeat(72)), 72);
  const subjects = ['x'.repeat(72), 'y'.repeat(73), `${'é'.repeat(71)}→`].map((subject, i) => ({ hash: String(i), subject }));
  assert.equal(
    overlongSubjects(subjects).map((c) => c.hash),
    ['1'],
  );
});

test('the commits before the base are not checked; short subjects after it pass', () => {
  commit('A short subject');
  const result = check(base);
  assert.is(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /1 commits since/);
});

test('a long subject after the base fails the check, named with its hash and length', () => {
  const subject = 'Lint and format: a subject that tells the whole story instead of a body does';
  commit(subject);
  const hash = git('rev-parse', '--short', 'HEAD');
  const result = check(base);
  assert.is(result.status, 1, result.stdout + result.stderr);
  assert.match(result.stdout, `${hash} (${subject.length} characters): ${subject}`);
  assert.not.match(result.stdout, LONG);
});

test('a base that is not in the history fails with its reason', () => {
  const result = check('0123456789abcdef0123456789abcdef01234567');
  assert.is(result.status, 2);
  assert.match(result.stderr, /not in this repository's history/);
});

test.run();
