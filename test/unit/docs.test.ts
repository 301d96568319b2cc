import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import defaults from '../../config/default.json';
import { CONFIG_KEYS, envName } from '#config';
import { ERROR_STATUS } from '#errors';

/**
 * Issue 30 point 4: the documentation stays true to the code.
 * - Every configuration key the code knows (CONFIG_KEYS, from the schema in src/config.ts) has its row in the
 *   configuration reference, naming its environment variable and its default (config/default.json), and the
 *   reference lists no key the code does not know.
 * - Every error code (ERROR_STATUS, src/errors.ts) is in the errors page with its status, and no other.
 * - The README stays a five-minute read (at most 250 lines); the rest belongs in docs/.
 * - Every relative link of README.md and docs/**\/*.md resolves: the file exists, and an #anchor names a heading of
 *   the target page (GitHub's heading ids).
 */

const ROOT = path.resolve(__dirname, '..', '..', '..');
const REFERENCE = path.join(ROOT, 'docs', 'operating', 'configuration.md');

function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? walk(full) : entry.name.endsWith('.md') ? [full] : [];
    });
  return [path.join(ROOT, 'README.md'), ...walk(path.join(ROOT, 'docs')).sort()];
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

reference.run();
errors.run();
linking.run();
