/**
 * Codemod: imports across areas of src/ through package.json "imports"
 * aliases (`#services/auth`, `#db/transaction`, `#config`) instead of deep
 * relative paths (`../../../../services/auth`). Re-runnable and idempotent:
 * run it again after merging a branch that still writes relative paths.
 *
 *   node scripts/codemods/import-aliases.ts            (Node 24 runs the TypeScript as is)
 *   node dist/scripts/codemods/import-aliases.js       (after npm run build)
 *   … --check                                          (changes nothing; exit 1 when something would change)
 *
 * What it does:
 *  1. Writes package.json "imports": one alias per top-level area of src/ (a
 *     folder: `#area/*`, and `#area` when it has an index.ts; a file: `#name`).
 *     Each alias resolves by condition: `types` (tsc) and `wip-source` (esbuild
 *     bundles, dependency-cruiser) to the TypeScript source, `default` (Node at
 *     run time) to the compiled file: dist/ mirrors the repository, and the
 *     package.json Node finds for a compiled module is dist/package.json (tsc
 *     emits it, since modules import package.json), so the path is the same
 *     relative to either file: `./src/area/*.js`.
 *  2. Rewrites every relative import (from, require(), import(), typeof
 *     import()) in src/, test/ and scripts/ whose target lies in another area
 *     of src/ than the importing file into its alias. Imports within one area
 *     stay relative (`./state`, `../route`): they move together.
 *
 * Not touched: src/console and src/app (browser programs with their own builds), JSON
 * imports, scripts/client-generator, test/fixtures.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = process.cwd();
if (!fs.existsSync(path.join(root, 'package.json')) || !fs.existsSync(path.join(root, 'src'))) {
  throw new Error('run from the repository root (the folder with package.json and src/)');
}
const check = process.argv.includes('--check');
const SRC = path.join(root, 'src');
const SKIP_AREAS = new Set(['console', 'app']);
const SCAN = ['src', 'test', 'scripts'];
const SKIP_DIRS = new Set(['node_modules', 'fixtures', 'client-generator']);
/** the browser programs, bundled by their own builds (their folder names recur in src/http/routes) */
const SKIP_PATHS = new Set([path.join(SRC, 'console'), path.join(SRC, 'app')]);

interface Area {
  name: string;
  kind: 'dir' | 'file';
  hasIndex: boolean;
}

function areas(): Area[] {
  return fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((e) => (e.isDirectory() && !SKIP_AREAS.has(e.name)) || (e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')))
    .map((e): Area =>
      e.isDirectory()
        ? { name: e.name, kind: 'dir', hasIndex: fs.existsSync(path.join(SRC, e.name, 'index.ts')) }
        : { name: e.name.slice(0, -3), kind: 'file', hasIndex: false },
    )
    .sort((a, b) => a.name.localeCompare(b.name));
}

const target = (source: string) => ({ types: `./src/${source}.ts`, 'wip-source': `./src/${source}.ts`, default: `./src/${source}.js` });

function importsMap(list: Area[]): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  for (const area of list) {
    if (area.kind === 'file') map[`#${area.name}`] = target(area.name);
    else {
      if (area.hasIndex) map[`#${area.name}`] = target(`${area.name}/index`);
      map[`#${area.name}/*`] = target(`${area.name}/*`);
    }
  }
  return map;
}

function writePackageImports(list: Area[]): boolean {
  const file = path.join(root, 'package.json');
  const text = fs.readFileSync(file, 'utf8');
  const pkg = JSON.parse(text) as Record<string, unknown>;
  const wanted = importsMap(list);
  if (JSON.stringify(pkg.imports) === JSON.stringify(wanted)) return false;
  // "imports" right after "bin", so the file reads in the usual order
  const ordered: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(pkg)) {
    if (key === 'imports') continue;
    ordered[key] = value;
    if (key === 'bin') ordered.imports = wanted;
  }
  if (!('imports' in ordered)) ordered.imports = wanted;
  if (!check) fs.writeFileSync(file, JSON.stringify(ordered, null, 2) + '\n');
  return true;
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) || SKIP_PATHS.has(full) ? [] : filesUnder(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The module file a relative specifier names, or undefined (not a TypeScript module of this repository). */
function resolveModule(fromFile: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  return base.endsWith('.ts') && fs.existsSync(base) ? base : undefined;
}

/** The src area a file belongs to ('services', 'config' for src/config.ts), or undefined outside src/. */
function areaOf(file: string): string | undefined {
  const rel = path.relative(SRC, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const [first] = rel.split(path.sep);
  return first.endsWith('.ts') ? first.slice(0, -3) : first;
}

function aliasFor(moduleFile: string, list: Area[]): string | undefined {
  const area = areaOf(moduleFile);
  const known = list.find((a) => a.name === area);
  if (!known) return undefined;
  if (known.kind === 'file') return `#${known.name}`;
  const inside = path.relative(path.join(SRC, known.name), moduleFile).split(path.sep).join('/').replace(/\.ts$/, '');
  if (inside === 'index') return `#${known.name}`;
  return `#${known.name}/${inside}`;
}

// from '…' | require('…') | import('…') — the specifier must start with ./ or ../
const SPECIFIER = /((?:\bfrom\s+|\brequire\(\s*|\bimport\(\s*)(['"]))(\.{1,2}\/[^'"]+)\2/g;

function rewrite(file: string, list: Area[]): { text: string; count: number } {
  const text = fs.readFileSync(file, 'utf8');
  const fromArea = areaOf(file);
  let count = 0;
  const out = text.replace(SPECIFIER, (whole, lead: string, quote: string, spec: string) => {
    if (spec.endsWith('.json')) return whole;
    const module = resolveModule(file, spec);
    if (!module) return whole;
    const toArea = areaOf(module);
    if (toArea === undefined || toArea === fromArea || SKIP_AREAS.has(toArea)) return whole;
    const alias = aliasFor(module, list);
    if (!alias) return whole;
    count++;
    return `${lead}${alias}${quote}`;
  });
  return { text: out, count };
}

function main(): void {
  const list = areas();
  const pkgChanged = writePackageImports(list);
  let files = 0;
  let imports = 0;
  for (const dir of SCAN) {
    for (const file of filesUnder(path.join(root, dir))) {
      const { text, count } = rewrite(file, list);
      if (count === 0) continue;
      files++;
      imports += count;
      if (!check) fs.writeFileSync(file, text);
    }
  }
  const verb = check ? 'would rewrite' : 'rewrote';
  process.stdout.write(
    `${verb} ${imports} imports in ${files} files${pkgChanged ? `; package.json "imports" ${check ? 'would change' : 'written'}` : ''}\n`,
  );
  if (check && (imports > 0 || pkgChanged)) process.exitCode = 1;
}

main();
