import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

// One file-name case: kebab-case (lower case words joined by hyphens), as in the rest of src/, test/ and scripts/.
// PascalCase components beside kebab-case modules made every import a guess.

const ROOT = path.resolve(__dirname, '..', '..', '..');
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+)*$/;

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full) : [full];
  });
}

test('every source and test file name is kebab-case', () => {
  const wrong = ['src', 'test', 'scripts']
    .flatMap((top) => files(path.join(ROOT, top)))
    .filter((file) => /\.(ts|tsx|css)$/.test(file) && !file.includes(`${path.sep}node_modules${path.sep}`))
    .filter((file) => !KEBAB.test(path.basename(file)))
    .map((file) => path.relative(ROOT, file));
  assert.equal(wrong, []);
});

test('the check tells kebab-case from the rest', () => {
  for (const good of ['job-page.tsx', 'sw.tsconfig.json', 'use-async.ts', 'app.css', 'assets.d.ts']) assert.ok(KEBAB.test(good), good);
  for (const bad of ['JobPage.tsx', 'useAsync.ts', 'job_page.ts', 'Job-page.tsx']) assert.not.ok(KEBAB.test(bad), bad);
});

test.run();
