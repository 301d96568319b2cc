/**
 * `npm run build` → dist/app/: the floor app, bundled by esbuild
 * from src/app (Preact + preact-iso, TSX), as the console is from
 * src/console. Every file name but two carries a hash of its content, so the
 * server lets browsers keep them for a year: index.html (the page, never
 * cached) names the current ones, and sw.js (the service worker, at a stable
 * path a browser checks on every load) carries the precache list of this
 * build — each file and the page's own hash — so a new build is a new worker.
 * Each area's lazily loaded pages become chunks of their own. manifest.json
 * lists every file: the server serves exactly these, and the single-executable
 * build embeds exactly these (scripts/build-binary.ts).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeBuildInputs } from './build-inputs';
import { build, type BuildOptions } from 'esbuild';
import { APP_INDEX, APP_MANIFEST, APP_SERVICE_WORKER } from '#lib/executable';

const root = path.resolve(__dirname, '..', '..');
const source = path.join(root, 'src', 'app');
const out = path.join(root, 'dist', 'app');

/** The browsers the appliance's plants use: current Chromium/Edge on tablets and desktops, Safari on iPads. */
const TARGET = ['chrome110', 'edge110', 'firefox110', 'safari16'];

const common: BuildOptions = {
  bundle: true,
  platform: 'browser',
  target: TARGET,
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  // Workbox and Preact drop their development checks and logging
  define: { 'process.env.NODE_ENV': '"production"' },
};

const hash = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const shortHash = (data: string | Buffer) => hash(data).slice(0, 8).toUpperCase();

async function main(): Promise<void> {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const result = await build({
    ...common,
    entryPoints: [path.join(source, 'main.tsx')],
    format: 'esm',
    splitting: true,
    outdir: out,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    metafile: true,
  });
  const built = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const bundled = Object.keys(result.metafile.inputs);
  const script = built.find((f) => /^main-.*\.js$/.test(f));
  const styles = built.filter((f) => f.endsWith('.css'));
  const style = styles[0];
  if (!script || !style) throw new Error(`build-app: expected a main script and a style sheet, got ${built.join(', ')}`);
  // a style sheet imported by a lazily loaded page would be a file of its own that nothing links
  if (styles.length > 1)
    throw new Error(`build-app: one style sheet expected, got ${styles.join(', ')}: import an area's CSS from its index.tsx only`);

  // the icon and the web app manifest (installable on a tablet's home screen), hashed like the rest
  const icon = writeHashed('icon', '.svg', ICON);
  const webManifest = writeHashed(
    'app',
    '.webmanifest',
    JSON.stringify({
      name: 'wip',
      short_name: 'wip',
      description: 'Work instructions: author, review, run jobs on the shop floor',
      start_url: '/app/',
      scope: '/app/',
      display: 'standalone',
      background_color: '#ffffff',
      theme_color: '#1d4ed8',
      icons: [{ src: `/app/${icon}`, sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
    }),
  );

  // no inline script or style: the CSP allows files from this origin only
  const index = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="theme-color" content="#1d4ed8">
<title>wip</title>
<link rel="manifest" href="/app/${webManifest}">
<link rel="icon" href="/app/${icon}" type="image/svg+xml">
<link rel="stylesheet" href="/app/${style}">
<script type="module" src="/app/${script}"></script>
</head>
<body><div id="app"><p class="loading" role="status">Loading…</p></div></body>
</html>
`;
  fs.writeFileSync(path.join(out, APP_INDEX), index);

  const files = [...built, icon, webManifest].sort();
  // the precache list: hashed files need no revision (their name is one); the page is /app/ with its content hash
  const precache = [{ url: '/app/', revision: hash(index) }, ...files.map((file) => ({ url: `/app/${file}`, revision: null }))];
  const worker = await build({
    ...common,
    entryPoints: [path.join(source, 'sw.ts')],
    format: 'iife',
    outfile: path.join(out, APP_SERVICE_WORKER),
    define: { ...common.define, __APP_PRECACHE__: JSON.stringify(precache) },
    metafile: true,
  });
  fs.writeFileSync(
    path.join(out, APP_MANIFEST),
    JSON.stringify({ files: [...files, APP_INDEX, APP_SERVICE_WORKER].sort() }, null, 2) + '\n',
  );
  // the files esbuild read, relative to this process's folder (scripts/build.ts reruns this when one changes)
  writeBuildInputs([...bundled, ...Object.keys(worker.metafile.inputs)]);
}

function writeHashed(name: string, extension: string, content: string): string {
  const file = `${name}-${shortHash(content)}${extension}`;
  fs.writeFileSync(path.join(out, file), content);
  return file;
}

/** A clipboard with a check mark: the app's icon (the client's logo is in the header, not here). */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#1d4ed8"/><path d="M22 14h20v8H22z" fill="#fff"/><path d="M18 18h4v4h20v-4h4v34H18z" fill="none" stroke="#fff" stroke-width="4" stroke-linejoin="round"/><path d="M25 36l6 6 10-12" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

main().catch((error: unknown) => {
  process.stderr.write(`build-app: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
