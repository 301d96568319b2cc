import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import defaults from '../../config/default.json';
import type { Command } from 'commander';
import { buildProgram } from '#cli';
import { CONFIG_KEYS, envName } from '#config';
import { ERROR_STATUS } from '#errors';

/**
 * The documentation stays true to the code, so that a page that has gone stale fails here rather than misleads a reader.
 * - Every configuration key the code knows (CONFIG_KEYS, from the schema in src/config.ts) has its row in the
 *   configuration reference, naming its environment variable and its default (config/default.json), and the
 *   reference lists no key the code does not know.
 * - Every error code (ERROR_STATUS, src/errors.ts) is in the errors page with its status, and no other.
 * - The README stays a five-minute read (at most 250 lines); the rest belongs in docs/.
 * - Every relative link of the pages (README.md, CONTRIBUTING.md, docs/**\/*.md) resolves: the file exists, and an
 *   #anchor names a heading of the target page (GitHub's heading ids).
 * - Every code path a page names in code (`src/…`, `test/…`, `scripts/…`, `migrations/…`, `config/…`) exists, and
 *   every command it names is real: `npm run X` a script of package.json, `wip <command> [--flag]` a command and
 *   option of the CLI's commander program.
 * - No comment or page cites a tracker number ("issue" and a number): meaningless without the tracker; say what is meant.
 */

const ROOT = path.resolve(__dirname, '..', '..', '..');
const REFERENCE = path.join(ROOT, 'docs', 'operating', 'configuration.md');

function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? walk(full) : entry.name.endsWith('.md') ? [full] : [];
    });
  return [path.join(ROOT, 'README.md'), path.join(ROOT, 'CONTRIBUTING.md'), ...walk(path.join(ROOT, 'docs')).sort()];
}

/** The lines of a Markdown text outside fenced code blocks, with their line numbers. */
function prose(text: string): { line: string; at: number }[] {
  let fenced = false;
  return text.split('\n').flatMap((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line, at: i + 1 }];
  });
}

/** The ids GitHub gives a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingIds(text: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const { line } of prose(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const id = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(id) ?? 0;
    seen.set(id, count + 1);
    ids.add(count === 0 ? id : `${id}-${count}`);
  }
  return ids;
}

/** Inline links and images outside code: `[text](target)`, code spans removed first. */
function links(file: string): { target: string; at: string }[] {
  return prose(fs.readFileSync(file, 'utf8')).flatMap(({ line, at }) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({
      target: m[1],
      at: `${path.relative(ROOT, file)}:${at}`,
    })),
  );
}

/** What is wrong with one link, or undefined when it resolves. */
function brokenLink(from: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: — not ours to check
  const [file, anchor] = target.split('#') as [string, string | undefined];
  const resolved = file === '' ? from : path.resolve(path.dirname(from), decodeURIComponent(file));
  if (!fs.existsSync(resolved)) return `${target}: no such file`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md')) return `${target}: an anchor into a file that is not Markdown`;
  return headingIds(fs.readFileSync(resolved, 'utf8')).has(anchor)
    ? undefined
    : `${target}: ${path.relative(ROOT, resolved)} has no heading #${anchor}`;
}

const reference = suite('docs: the configuration reference lists every key config.ts knows');

/** The reference's rows by key: `| \`key\` | env | default | meaning |`. */
function referenceRows(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const { line } of prose(fs.readFileSync(REFERENCE, 'utf8'))) {
    const key = /^\|\s*`([A-Za-z][A-Za-z0-9]*)`\s*\|/.exec(line)?.[1];
    if (key) rows.set(key, line);
  }
  return rows;
}

/** How the reference writes a default: `8080`, `false`, `24h`; `""` for an empty string. */
function written(value: unknown): string {
  return value === '' ? '`""`' : `\`${String(value)}\``;
}

reference('every key has a row with its environment variable and its default', () => {
  const rows = referenceRows();
  const problems: string[] = [];
  for (const key of CONFIG_KEYS) {
    const row = rows.get(key);
    if (!row) {
      problems.push(`${key}: not documented`);
      continue;
    }
    const cells = row.split('|').map((cell) => cell.trim());
    if (!cells[2]?.includes(`\`${envName(key)}\``)) problems.push(`${key}: the row does not name ${envName(key)}`);
    const value = (defaults as Record<string, unknown>)[key];
    if (value !== undefined && !cells[3]?.startsWith(written(value)))
      problems.push(`${key}: the default is ${written(value)}, the row says ${cells[3]}`);
  }
  assert.equal(problems, [], `docs/operating/configuration.md:\n${problems.join('\n')}`);
});

reference('the reference documents no key the code does not know', () => {
  const known = new Set<string>(CONFIG_KEYS);
  assert.equal(
    [...referenceRows().keys()].filter((key) => !known.has(key)),
    [],
  );
});

const errors = suite('docs: the errors page lists every error code with its status');

errors('every code of src/errors.ts has its row, with its status, and the page names no other', () => {
  const documented = new Map<string, string>();
  for (const { line } of prose(fs.readFileSync(path.join(ROOT, 'docs', 'api', 'errors.md'), 'utf8'))) {
    const row = /^\|\s*`([A-Z][A-Z_]+)`\s*\|\s*(\d{3})\s*\|/.exec(line);
    if (row) documented.set(row[1], row[2]);
  }
  const expected = Object.fromEntries(Object.entries(ERROR_STATUS).map(([code, status]) => [code, String(status)]));
  assert.equal(Object.fromEntries([...documented].sort()), Object.fromEntries(Object.entries(expected).sort()));
});

const linking = suite('docs: every relative link of README.md and docs/ resolves');

linking('the README stays a five-minute read: at most 250 lines', () => {
  const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length;
  assert.ok(lines <= 250, `README.md has ${lines} lines: move the detail to a page of docs/ and link it`);
});

linking('every link names an existing file, and every #anchor a heading of it', () => {
  const files = markdownFiles();
  assert.ok(files.length > 10, 'the manual is in docs/');
  const broken = files.flatMap((file) =>
    links(file).flatMap(({ target, at }) => {
      const problem = brokenLink(file, target);
      return problem ? [`${at}: ${problem}`] : [];
    }),
  );
  assert.equal(broken, []);
});

linking("the heading ids are GitHub's", () => {
  // the ids GitHub gives these headings: punctuation and code marks dropped, repeats numbered, fenced lines skipped
  const page =
    '# The GraphQL endpoint — `POST /api/client/graphql`\n## Runtime policy (Node.js)\n## Configuration\n### Configuration\n```\n# not a heading\n```\n';
  assert.equal(
    [...headingIds(page)],
    ['the-graphql-endpoint--post-apiclientgraphql', 'runtime-policy-nodejs', 'configuration', 'configuration-1'],
  );
});

const naming = suite('docs: every code path and command a page names exists');

/** The folders whose paths a page may name; anything under them is checked. */
const CODE_FOLDERS = ['src', 'test', 'scripts', 'migrations', 'config'];

/**
 * The code of a page: its code spans, and every line of its fenced blocks, with where each is. The first column of a
 * table headed `before` is left out: such a table (a "what moved" list) names, on purpose, paths that are gone.
 */
function codeOf(file: string): { code: string; fenced: boolean; at: string }[] {
  const found: { code: string; fenced: boolean; at: string }[] = [];
  let fenced = false;
  let historyTable = false;
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const at = `${path.relative(ROOT, file)}:${i + 1}`;
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return;
      }
      if (fenced) {
        found.push({ code: line, fenced, at });
        return;
      }
      let text = line;
      if (!line.startsWith('|')) historyTable = false;
      else if (/^\|\s*before\s*\|/i.test(line)) historyTable = true;
      else if (historyTable) text = line.replace(/^\|(?:[^|`]|`[^`]*`)*\|/, '|');
      for (const span of text.matchAll(/`([^`]+)`/g)) found.push({ code: span[1], fenced, at });
    });
  return found;
}

/** Every file and folder (with a trailing slash) of the code folders, relative to the root. */
function codeTree(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const relative = `${dir}/${entry.name}`;
      if (entry.name === 'node_modules') return [];
      return entry.isDirectory() ? [`${relative}/`, ...walk(relative)] : [relative];
    });
  return CODE_FOLDERS.flatMap((folder) => [`${folder}/`, ...walk(folder)]);
}

/** The code paths named in a piece of code: `src/…` and the like, not part of a longer path (`dist/src/…`). */
function codePaths(code: string): string[] {
  const pattern = new RegExp(`(?<![\\w./-])(?:${CODE_FOLDERS.join('|')})/(?:[^\\s\`'"()\\[\\],;:{}]|\\{[^}\\s]*\\})*`, 'g');
  return [...code.matchAll(pattern)].map((m) => m[0].replace(/[.]+$/, ''));
}

/**
 * A named path as a pattern over the tree: `<area>` stands for one name, `*` for part of one, `…` for anything,
 * `NNNN` for a migration's number, `{en,de}` for either; a name without its extension names a test or module too
 * (`test/http/readme-examples`).
 */
function pathPattern(named: string): RegExp {
  let source = '';
  for (const part of named.split(/(<[^>]*>|\*|…|NNNN|\{[^}]*\})/)) {
    if (part.startsWith('<')) source += '[^/]+';
    else if (part === '*') source += '[^/]*';
    else if (part === '…') source += '.*';
    else if (part === 'NNNN') source += '\\d{4}';
    else if (part.startsWith('{')) source += `(?:${part.slice(1, -1).split(',').map(literal).join('|')})`;
    else source += literal(part);
  }
  return new RegExp(`^${source}(?:[.]test[.]ts|[.]tsx?|/)?$`);
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The words of a command as written in a page: placeholders' punctuation dropped, `--flag=value` to `--flag`. */
function words(command: string): string[] {
  return command
    .split(/[\s|()[\]]+/)
    .map((word) => word.replace(/=.*$/, ''))
    .filter((word) => word !== '' && word !== '\\');
}

/** Where a piece of code runs `wip`: at its start, after a prompt, `sudo`, variables, `npx` or a folder. */
const WIP_COMMAND = /^(?:\$\s+)?(?:sudo\s+(?:-u\s+\S+\s+)?)?(?:[A-Z_]+=\S*\s+)*(?:npx\s+)?(?:ExecStart=)?(?:[\w./-]*\/)?wip(?=\s|$)(.*)$/;

/** What is wrong with a `wip …` command line, or undefined: unknown commands and options. */
function wrongCommand(program: Command, line: string): string | undefined {
  const rest = words(WIP_COMMAND.exec(line)?.[1].replace(/\s#.*$/, '') ?? '');
  const globals = new Set([...program.options.flatMap((option) => [option.long, option.short]), '--help', '-h']);
  const takesValue = new Set(program.options.filter((option) => option.required || option.optional).map((option) => option.long));
  let command = program;
  let i = 0;
  for (; i < rest.length; i++) {
    const word = rest[i];
    if (word.startsWith('-')) {
      if (command !== program) break;
      if (!globals.has(word)) return `wip ${word}: no such option of wip`;
      if (takesValue.has(word)) i++;
      continue;
    }
    if (/^(<|…|\.\.\.)/.test(word)) return undefined; // `wip <command> --help`: a placeholder, nothing to check
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) command = sub;
    else if (command.commands.length > 0) return `wip … ${word}: no such command`;
    else break;
  }
  const options = new Set([...globals, ...command.options.flatMap((option) => [option.long, option.short])]);
  for (const word of rest.slice(i)) {
    if (/^--?[a-z]/i.test(word) && !options.has(word)) return `${commandPath(command)} ${word}: no such option`;
  }
  return undefined;
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

naming('every code path a page names exists', () => {
  const tree = codeTree();
  const problems = markdownFiles().flatMap((file) =>
    codeOf(file).flatMap(({ code, at }) =>
      codePaths(code).flatMap((named) => {
        const pattern = pathPattern(named);
        return tree.some((existing) => pattern.test(existing)) ? [] : [`${at}: ${named}: no such file or folder`];
      }),
    ),
  );
  assert.equal(problems, []);
});

naming('every `npm run X` (and `npm test`, `npm start`) a page names is a script of package.json', () => {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const problems = markdownFiles().flatMap((file) =>
    codeOf(file).flatMap(({ code, at }) =>
      [...code.matchAll(/\bnpm\s+(?:run(?:-script)?\s+([\w:.-]+)|(test|start)\b)/g)].flatMap((m) => {
        const script = m[1] ?? m[2];
        return Object.hasOwn(scripts, script) ? [] : [`${at}: npm run ${script}: no such script in package.json`];
      }),
    ),
  );
  assert.equal(problems, []);
});

naming('every `wip <command> [--option]` a page names is a command and option of the CLI', () => {
  const program = buildProgram();
  const problems = markdownFiles().flatMap((file) =>
    codeOf(file).flatMap(({ code, at }) => {
      if (!WIP_COMMAND.test(code)) return [];
      const problem = wrongCommand(program, code);
      return problem ? [`${at}: ${problem}`] : [];
    }),
  );
  assert.equal(problems, []);
});

naming('no comment or page cites a tracker number: it says what it means in its own words', () => {
  const skip = new Set(['node_modules', 'fixtures']);
  const walk = (dir: string): string[] =>
    fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const relative = `${dir}/${entry.name}`;
      if (skip.has(entry.name)) return [];
      return entry.isDirectory() ? walk(relative) : /[.](ts|tsx|css|mjs|cjs|md)$/.test(entry.name) ? [relative] : [];
    });
  const files = [...['src', 'test', 'scripts', 'migrations', 'docs'].flatMap(walk), '.ci/run', 'README.md', 'CONTRIBUTING.md'];
  // another project's tracker ("Node issue 65446") is a reference anyone can follow
  const citation = /(?<!Node )\bissues? #?\d+/i;
  const problems = files.flatMap((file) =>
    fs
      .readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (citation.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
  assert.equal(problems, []);
});

naming('the checks see what they are meant to see', () => {
  // paths in code, not inside longer ones; placeholders match any name
  assert.equal(codePaths('see `src/lib/clock.ts:12` and dist/src/x.js, src/app/{a,b}.ts'), ['src/lib/clock.ts', 'src/app/{a,b}.ts']);
  assert.ok(pathPattern('config/i18n/app/common.<lang>.json').test('config/i18n/app/common.en.json'));
  assert.ok(pathPattern('migrations/NNNN_<name>.ts').test('migrations/0038_capture_time.ts'));
  assert.ok(pathPattern('config/i18n/app/rules.{en,de}.json').test('config/i18n/app/rules.de.json'));
  assert.ok(pathPattern('test/http/readme-examples').test('test/http/readme-examples.test.ts'));
  assert.not.ok(pathPattern('src/lib/outbox-worker.ts').test('src/workers/outbox-worker.ts'));
  // commands: the real ones pass, a made-up command or option does not
  const program = buildProgram();
  assert.is(wrongCommand(program, 'wip --data-dir /var/lib/wip install --systemd [--user U] [--print]'), undefined);
  assert.is(wrongCommand(program, 'wip admin create --username U (--password-stdin \\| --password P)'), undefined);
  assert.is(wrongCommand(program, 'sudo -u wip wip --json license show'), undefined);
  assert.is(wrongCommand(program, 'wip <command> --help'), undefined);
  assert.is(wrongCommand(program, 'wip admin rename --username U'), 'wip … rename: no such command');
  assert.is(wrongCommand(program, 'wip serve --colour'), 'wip serve --colour: no such option');
  assert.is(wrongCommand(program, 'wip --colour serve'), 'wip --colour: no such option of wip');
  // the first column of a table headed "before" is history
  const page = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wip-docs-')), 'moved.md');
  fs.writeFileSync(page, '| before | after |\n|---|---|\n| `src/gone.ts` | `src/here.ts` |\n\nNow `src/x.ts`.\n');
  assert.equal(
    codeOf(page).map(({ code }) => code),
    ['src/here.ts', 'src/x.ts'],
  );
  fs.rmSync(path.dirname(page), { recursive: true });
});

reference.run();
errors.run();
linking.run();
naming.run();
