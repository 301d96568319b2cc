/**
 * `npm run migration:new <name> [--number NNNN]`: a new migration, migrations/NNNN_<name>.ts, with the next free
 * number (or the one given: a branch that was assigned a number, so that parallel branches do not collide), and its
 * line in the registry, migrations/index.ts, in order. The new file's `up` and `down` throw until they are written,
 * so a forgotten scaffold fails the migration tests instead of passing as a migration that does nothing.
 *
 *   node scripts/new-migration.ts add_widgets        (Node 24 runs the TypeScript as is; npm run puts it on PATH)
 *   node dist/scripts/new-migration.js add_widgets   (after npm run build)
 */
import fs from 'node:fs';
import path from 'node:path';

/** A migration's name: lower case words joined by underscores, as the existing ones (`0038_capture_time`). */
const NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const FILE = /^(\d{4})_([a-z0-9_]+)\.ts$/;

export class MigrationScaffoldError extends Error {}

/** Writes the migration and registers it; returns its id (`0039_add_widgets`). */
export function newMigration(root: string, name: string, number?: number): string {
  if (!NAME.test(name)) {
    throw new MigrationScaffoldError(`"${name}" is not a migration name: lower case words joined by underscores, e.g. add_widgets`);
  }
  const folder = path.join(root, 'migrations');
  const registryFile = path.join(folder, 'index.ts');
  const existing = fs
    .readdirSync(folder)
    .map((file) => FILE.exec(file))
    .filter((match) => match !== null)
    .map((match) => ({ number: Number(match[1]), name: match[2] }));
  if (existing.some((m) => m.name === name)) throw new MigrationScaffoldError(`a migration named ${name} exists already`);
  const next = number ?? Math.max(0, ...existing.map((m) => m.number)) + 1;
  if (!Number.isInteger(next) || next < 1 || next > 9999) throw new MigrationScaffoldError(`${number} is not a migration number (1–9999)`);
  if (existing.some((m) => m.number === next)) throw new MigrationScaffoldError(`migration number ${next} is taken`);

  const id = `${String(next).padStart(4, '0')}_${name}`;
  const registry = fs.readFileSync(registryFile, 'utf8');
  const updated = register(registry, id);
  fs.writeFileSync(path.join(folder, `${id}.ts`), template(id), { flag: 'wx' });
  fs.writeFileSync(registryFile, updated);
  return id;
}

/** The registry with the migration's import and entry added, each in number order among the others. */
function register(registry: string, id: string): string {
  const lines = registry.split('\n');
  const binding = `m${id.slice(0, 4)}`;
  const imports = lines.flatMap((line, i) => (/^import \* as m\d{4} from '\.\/\d{4}_/.test(line) ? [i] : []));
  const entries = lines.flatMap((line, i) => (/^ {2}'\d{4}_[a-z0-9_]+': m\d{4},$/.test(line) ? [i] : []));
  if (imports.length === 0 || entries.length === 0) {
    throw new MigrationScaffoldError('migrations/index.ts: no `import * as mNNNN` lines or registry entries found to add to');
  }
  // entries first: inserting there does not move the import lines above them
  insertInOrder(lines, entries, `  '${id}': ${binding},`, id);
  insertInOrder(lines, imports, `import * as ${binding} from './${id}';`, id);
  return lines.join('\n');
}

/** Inserts `line` among the lines at `at` (each naming a migration id), before the first one whose id sorts after. */
function insertInOrder(lines: string[], at: number[], line: string, id: string): void {
  const after = at.find((i) => /\d{4}_[a-z0-9_]+/.exec(lines[i])![0] > id);
  lines.splice(after ?? at[at.length - 1] + 1, 0, line);
}

function template(id: string): string {
  return `import type { Kysely } from 'kysely';

// ${id}: what this migration changes, and why. It runs against the schema of its own time (Kysely<any>, no
// application imports) and is frozen once merged: a later change is a new migration. Add the row types to
// src/db/schema.ts, and run node dist/scripts/run-tests.js unit/migrations (and --postgres db/) after writing it.

export async function up(_db: Kysely<any>): Promise<void> {
  throw new Error('migration ${id}: up() is not written yet');
}

export async function down(_db: Kysely<any>): Promise<void> {
  throw new Error('migration ${id}: down() is not written yet');
}
`;
}

function main(argv: string[]): void {
  const at = argv.indexOf('--number');
  const number = at === -1 ? undefined : Number(argv[at + 1]);
  const names = argv.filter((arg, i) => !arg.startsWith('--') && (at === -1 || i !== at + 1));
  if (names.length !== 1 || (at !== -1 && !/^\d+$/.test(argv[at + 1] ?? ''))) {
    process.stderr.write('usage: npm run migration:new <name> [-- --number NNNN]   (name: lower case words joined by underscores)\n');
    process.exitCode = 2;
    return;
  }
  try {
    const id = newMigration(process.cwd(), names[0], number);
    process.stdout.write(`migrations/${id}.ts written and registered in migrations/index.ts\n`);
  } catch (error) {
    if (!(error instanceof MigrationScaffoldError)) throw error;
    process.stderr.write(`migration:new: ${error.message}\n`);
    process.exitCode = 1;
  }
}

// run as a program (node scripts/new-migration.ts, or the compiled .js), not when a test imports it
if (/new-migration\.[jt]s$/.test(process.argv[1] ?? '')) main(process.argv.slice(2));
