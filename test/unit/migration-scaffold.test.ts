import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as prettier from 'prettier';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MigrationScaffoldError, newMigration } from '../../scripts/new-migration';

/**
 * `npm run migration:new <name>` (scripts/new-migration.ts) on a copy of the repository's migrations in a temp
 * folder: the file with the next number, its import and entry in migrations/index.ts in number order, formatted as
 * Prettier writes it; refusals change nothing.
 */

const ROOT = path.resolve(__dirname, '..', '..', '..');
const test = suite('migration scaffold');

function copyOfMigrations(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-migration-new-'));
  fs.cpSync(path.join(ROOT, 'migrations'), path.join(root, 'migrations'), { recursive: true });
  return root;
}

function highestNumber(root: string): number {
  return Math.max(...fs.readdirSync(path.join(root, 'migrations')).flatMap((f) => (/^\d{4}_/.test(f) ? [Number(f.slice(0, 4))] : [])));
}

async function formatted(file: string): Promise<boolean> {
  const options = await prettier.resolveConfig(path.join(ROOT, 'migrations', 'index.ts'));
  return prettier.check(fs.readFileSync(file, 'utf8'), { ...options, filepath: file });
}

test('writes migrations/NNNN_<name>.ts with the next number and registers it last', async () => {
  const root = copyOfMigrations();
  try {
    const next = highestNumber(root) + 1;
    const id = `${String(next).padStart(4, '0')}_add_widgets`;
    assert.is(newMigration(root, 'add_widgets'), id);
    const file = path.join(root, 'migrations', `${id}.ts`);
    const source = fs.readFileSync(file, 'utf8');
    assert.match(source, /export async function up\(_db: Kysely<any>\): Promise<void> \{\n {2}throw new Error/);
    assert.match(source, /export async function down\(/);
    const registry = fs.readFileSync(path.join(root, 'migrations', 'index.ts'), 'utf8');
    const binding = `m${id.slice(0, 4)}`;
    const imports = [...registry.matchAll(/^import \* as (m\d{4}) from/gm)].map((m) => m[1]);
    const entries = [...registry.matchAll(/^ {2}'(\d{4}_[a-z0-9_]+)': m\d{4},$/gm)].map((m) => m[1]);
    assert.is(imports.at(-1), binding);
    assert.is(entries.at(-1), id);
    assert.ok(registry.includes(`import * as ${binding} from './${id}';\n`));
    assert.ok(await formatted(file), 'the new migration is as Prettier writes it');
    assert.ok(await formatted(path.join(root, 'migrations', 'index.ts')), 'the registry is as Prettier writes it');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a given free number goes in number order among the others', () => {
  const root = copyOfMigrations();
  try {
    const free = [...Array(highestNumber(root)).keys()]
      .map((i) => i + 1)
      .find((n) => !fs.readdirSync(path.join(root, 'migrations')).some((f) => f.startsWith(String(n).padStart(4, '0'))))!;
    const id = newMigration(root, 'in_a_gap', free);
    const registry = fs.readFileSync(path.join(root, 'migrations', 'index.ts'), 'utf8');
    const entries = [...registry.matchAll(/^ {2}'(\d{4}_[a-z0-9_]+)': m\d{4},$/gm)].map((m) => m[1]);
    const imports = [...registry.matchAll(/^import \* as m\d{4} from '\.\/(\d{4}_[a-z0-9_]+)';$/gm)].map((m) => m[1]);
    assert.ok(entries.includes(id));
    assert.equal(entries, [...entries].sort());
    assert.equal(imports, entries);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('refuses a bad name, a name or number taken, and changes nothing', () => {
  const root = copyOfMigrations();
  try {
    const before = fs.readdirSync(path.join(root, 'migrations')).map((f) => [f, fs.readFileSync(path.join(root, 'migrations', f), 'utf8')]);
    assert.throws(
      () => newMigration(root, 'Add-Widgets'),
      (e: unknown) => e instanceof MigrationScaffoldError && /not a migration name/.test(e.message),
    );
    assert.throws(
      () => newMigration(root, 'capture_time'),
      (e: unknown) => e instanceof MigrationScaffoldError && /exists already/.test(e.message),
    );
    assert.throws(
      () => newMigration(root, 'again', 1),
      (e: unknown) => e instanceof MigrationScaffoldError && /is taken/.test(e.message),
    );
    const after = fs.readdirSync(path.join(root, 'migrations')).map((f) => [f, fs.readFileSync(path.join(root, 'migrations', f), 'utf8')]);
    assert.equal(after, before);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('as a program: writes and says so (exit 0); a bad name or no name is refused (exit 1, 2)', () => {
  const root = copyOfMigrations();
  const script = path.join(ROOT, 'dist', 'scripts', 'new-migration.js');
  try {
    const run = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8' });
    const ok = run('add_gadgets');
    assert.is(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /^migrations\/\d{4}_add_gadgets\.ts written and registered in migrations\/index\.ts\n$/);
    const bad = run('Gadgets');
    assert.is(bad.status, 1);
    assert.match(bad.stderr, /not a migration name/);
    assert.is(run().status, 2);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test.run();
