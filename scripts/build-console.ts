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
import { build } from 'esbuild';
import { CONSOLE_INDEX, CONSOLE_MANIFEST } from '#lib/runtime';

const root = path.resolve(__dirname, '..', '..');
const out = path.join(root, 'dist', 'console');

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
  fs.writeFileSync(path.join(out, CONSOLE_MANIFEST), JSON.stringify({ files: [...files, CONSOLE_INDEX].sort() }, null, 2) + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`build-console: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
