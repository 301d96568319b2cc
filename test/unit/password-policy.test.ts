import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commonPasswords, COMMON_PASSWORDS, MIN_PASSWORD_LENGTH_FLOOR, passwordProblems } from '#policies/password';

const LIST = path.resolve(__dirname, '..', '..', '..', 'config', 'common-passwords.txt');

test('the blocklist is config/common-passwords.txt, read at load: every entry of the file, nothing else', () => {
  const entries = fs
    .readFileSync(LIST, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'));
  assert.ok(entries.length > 300, `${entries.length} entries`);
  assert.equal([...COMMON_PASSWORDS].sort(), [...new Set(entries)].sort());
});

test('entries shorter than the length floor would be dead weight: there are none', () => {
  const short = [...COMMON_PASSWORDS].filter((password) => password.length < MIN_PASSWORD_LENGTH_FLOOR);
  assert.equal(short, []);
});

test('comment and blank lines are skipped, CRLF tolerated, entries lower-cased', () => {
  assert.equal([...commonPasswords('# a comment\n\nSecretSecret12\r\nanother-one-here\n')], ['secretsecret12', 'another-one-here']);
});

test('a listed password is refused whatever its case; an unlisted one of the same length is not', () => {
  assert.ok(passwordProblems('QwertyUiop123', { minLength: 12 }).some((problem) => problem.includes('too common')));
  assert.equal(passwordProblems('violet-harbor-lamp', { minLength: 12 }), []);
});

test.run();
