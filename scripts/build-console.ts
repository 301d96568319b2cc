/**
 * `npm run build` → dist/console/: the admin console, bundled by esbuild from
 * src/console (plain TypeScript and the DOM, no framework). Every file name
 * carries a hash of its content, so the server can let browsers keep them for
 * a year; index.html (never cached) names the current ones. manifest.json
 * lists the files: the server serves exactly these, and the single-executable
 * build embeds exactly these (scripts/build-binary.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeBuildInputs } from './build-inputs';
import { build } from 'esbuild';
import { CONSOLE_INDEX, CONSOLE_MANIFEST } from '#lib/executable';
import { VERIFIER_DOWNLOAD, VERIFIER_PAGE } from '#lib/verifier-assets';

const root = path.resolve(__dirname, '..', '..');
const out = path.join(root, 'dist', 'console');
/** the files esbuild read, relative to this process's folder (scripts/build.ts reruns this when one changes) */
const bundled: string[] = [];

async function main(): Promise<void> {
  fs.rmSync(out, { recursive: true, force: true });
  const result = await build({
    entryPoints: [path.join(root, 'src', 'console', 'main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    outdir: out,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    minify: true,
    sourcemap: false,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const files = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  bundled.push(...Object.keys(result.metafile.inputs));
  const script = files.find((f) => f.endsWith('.js'));
  const style = files.find((f) => f.endsWith('.css'));
  if (!script || !style) throw new Error(`build-console: expected a script and a style sheet, got ${files.join(', ')}`);
  // no inline script or style: the CSP allows files from /console/ only
  const index = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>wip console</title>
<link rel="stylesheet" href="/console/${style}">
<script type="module" src="/console/${script}"></script>
</head>
<body><div id="app"><p class="loading">Loading…</p></div></body>
</html>
`;
  fs.writeFileSync(path.join(out, CONSOLE_INDEX), index);
  const verifier = await buildVerifier();
  fs.writeFileSync(
    path.join(out, CONSOLE_MANIFEST),
    JSON.stringify({ files: [...files, CONSOLE_INDEX, ...verifier].sort() }, null, 2) + '\n',
  );
  writeBuildInputs(bundled);
}

/**
 * The record bundle verifier, src/console/verify-page.ts: its own
 * script and style, the page served at /verify/ (files only, like the
 * console: the strict CSP), and the same page as ONE self-contained file to
 * download and open from disk, its script and style inline (a file opened
 * locally has no server to fetch them from). Returns the files written.
 */
async function buildVerifier(): Promise<string[]> {
  const result = await build({
    entryPoints: [path.join(root, 'src', 'console', 'verify-page.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    outdir: out,
    entryNames: 'verify-[hash]',
    assetNames: 'verify-[hash]',
    minify: true,
    sourcemap: false,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const files = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  bundled.push(...Object.keys(result.metafile.inputs));
  const script = files.find((f) => f.endsWith('.js'));
  const style = files.find((f) => f.endsWith('.css'));
  if (!script || !style) throw new Error(`build-console: expected the verifier's script and style sheet, got ${files.join(', ')}`);
  const head = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>wip record bundle verifier</title>
`;
  fs.writeFileSync(
    path.join(out, VERIFIER_PAGE),
    `${head}<link rel="stylesheet" href="/console/${style}">
<script type="module" src="/console/${script}"></script>
</head>
<body><div id="app"><p>Loading…</p></div></body>
</html>
`,
  );
  // inline: "</" inside the script or style would end the element early
  const inline = (file: string) => fs.readFileSync(path.join(out, file), 'utf8').replace(/<\/(script|style)/gi, '<\\/$1');
  fs.writeFileSync(
    path.join(out, VERIFIER_DOWNLOAD),
    `${head}<style>${inline(style)}</style>
<script type="module">${inline(script)}</script>
</head>
<body><div id="app"><p>Loading… (this page needs JavaScript; it sends nothing anywhere)</p></div></body>
</html>
`,
  );
  return [...files, VERIFIER_PAGE, VERIFIER_DOWNLOAD];
}

main().catch((error: unknown) => {
  process.stderr.write(`build-console: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
