import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { version } from '../../package.json';

/**
 * Knows whether the code runs from the source tree (node + dist/) or inside the
 * single executable (a Node SEA built by scripts/build-binary.ts), and hands out
 * what differs between the two: the SQLite native addon and the worker scripts.
 * Inside the executable both travel as SEA assets (see ASSET below), as does
 * the bundle that scripts/sea-main.ts runs.
 */
export const ASSET = {
  /** the bundle itself and the V8 code cache of a start (see scripts/sea-main.ts) */
  bundle: 'wip.cjs',
  codeCache: 'wip.code-cache',
  sqliteAddon: 'better_sqlite3.node',
  passwordWorker: 'password-worker.js',
  xliffWorker: 'xliff-worker.js',
  imageWorker: 'image-worker.js',
} as const;

/** The worker scripts a WorkerPool runs (src/lib/<name>.ts, compiled beside this module or bundled as an asset). */
export const WORKER_SCRIPTS = [ASSET.passwordWorker, ASSET.xliffWorker, ASSET.imageWorker] as const;
export type WorkerScript = (typeof WORKER_SCRIPTS)[number];

/**
 * The API reference page's files (GET /api/docs), from the swagger-ui-dist
 * package: read from node_modules in the source tree, carried as SEA assets
 * (named `swagger-ui/<file>`) inside the executable. No CDN: the page works
 * on an air-gapped site.
 */
export const DOCS_ASSET_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css'] as const;
export type DocsAssetFile = (typeof DOCS_ASSET_FILES)[number];
export const docsAssetKey = (file: DocsAssetFile) => `swagger-ui/${file}`;

/**
 * The admin console's built files (scripts/build-console.ts): read from
 * dist/console in the source tree, carried as SEA assets named
 * `console/<file>` inside the executable. manifest.json lists them.
 */
export const CONSOLE_INDEX = 'index.html';
export const CONSOLE_MANIFEST = 'manifest.json';
export const consoleAssetKey = (file: string) => `console/${file}`;

/**
 * The floor app's built files (scripts/build-app.ts): like the
 * console's, from dist/app in the source tree and as SEA assets named
 * `app/<file>` inside the executable; its manifest.json lists them too.
 */
export const APP_INDEX = 'index.html';
export const APP_MANIFEST = 'manifest.json';
export const APP_SERVICE_WORKER = 'sw.js';
export const appAssetKey = (file: string) => `app/${file}`;

/**
 * Data files of the program's config/ directory that are read at run time
 * (not imported as JSON): read from the source tree's config/, carried as SEA
 * assets named `config/<file>` inside the executable (scripts/build-binary.ts).
 */
export const CONFIG_ASSET_FILES = ['common-passwords.txt'] as const;
export type ConfigAssetFile = (typeof CONFIG_ASSET_FILES)[number];
export const configAssetKey = (file: ConfigAssetFile) => `config/${file}`;

interface SeaApi {
  isSea(): boolean;
  getAsset(key: string): ArrayBuffer;
  getAsset(key: string, encoding: string): string;
  /** the executable's own bytes, not a copy: read only */
  getRawAsset(key: string): ArrayBuffer;
}

let sea: SeaApi | null | undefined;

function seaApi(): SeaApi | null {
  if (sea === undefined) {
    try {
      // node:sea exists from Node 20.12; an older runtime is never a SEA built by us.
      const api = require('node:sea') as SeaApi;
      sea = api.isSea() ? api : null;
    } catch {
      sea = null;
    }
  }
  return sea;
}

/** True inside the single executable. */
export function isSingleExecutable(): boolean {
  return seaApi() !== null;
}

/**
 * better-sqlite3's `nativeBinding` option: undefined from the source tree (the
 * package finds its own build), inside the executable the addon loaded from a
 * versioned cache directory under the data directory, written from the asset
 * once and re-written whenever its bytes differ from the asset's (a partial
 * write, a tampered file, another build).
 */
export function sqliteNativeBinding(dataDir: string): object | undefined {
  const api = seaApi();
  if (!api) return undefined;
  const asset = Buffer.from(api.getRawAsset(ASSET.sqliteAddon));
  const hash = sha256(asset);
  const dir = path.join(
    dataDir,
    '.cache',
    'native',
    `wip-${version}-${process.platform}-${process.arch}-abi${process.versions.modules}-${hash.slice(0, 16)}`,
  );
  const file = path.join(dir, ASSET.sqliteAddon);
  let current: Buffer | undefined;
  try {
    current = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // compared byte for byte (memcmp): a second SHA-256 of the 2 MB addon cost a few ms of every start
  if (!current || !current.equals(asset)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // write aside and rename: a concurrent start (CLI next to the daemon) never loads half a file
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, asset, { mode: 0o500 });
    fs.renameSync(temp, file);
  }
  // The SEA's own require loads built-in modules only; a file-based require loads the addon.
  return createRequire(file)(file) as object;
}

/** What a worker pool starts a thread from: the compiled file beside this module, or the bundled source with eval. */
export function workerSource(script: WorkerScript): { code: string; eval: true } | { file: string; eval: false } {
  const api = seaApi();
  if (api) return { code: api.getAsset(script, 'utf8'), eval: true };
  return { file: path.join(__dirname, script), eval: false };
}

const docsAssets = new Map<DocsAssetFile, Buffer>();

/** One of DOCS_ASSET_FILES, read once and kept. */
export function docsAsset(file: DocsAssetFile): Buffer {
  let content = docsAssets.get(file);
  if (!content) {
    const api = seaApi();
    // a file-based require resolves the package from the source tree (never reached inside the executable)
    content = api
      ? Buffer.from(api.getAsset(docsAssetKey(file)))
      : fs.readFileSync(createRequire(__filename).resolve(`swagger-ui-dist/${file}`));
    docsAssets.set(file, content);
  }
  return content;
}

/**
 * One of CONFIG_ASSET_FILES as text: the asset inside the executable, else the
 * file of the program's config/ directory, found upwards from this compiled
 * module (dist/src/lib → the checkout), as trusted-keys.ts finds config/license-keys.
 */
export function configFileText(file: ConfigAssetFile): string {
  const api = seaApi();
  if (api) return api.getAsset(configAssetKey(file), 'utf8');
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'config', file);
    if (fs.existsSync(candidate)) return fs.readFileSync(candidate, 'utf8');
    dir = path.dirname(dir);
  }
  throw new Error(`config/${file} was not found above ${__dirname}`);
}

const builtFiles = new Map<'console' | 'app', Map<string, Buffer>>();

/**
 * The console's files by name, read once. Empty when the console was not
 * built (a source tree after `tsc` alone): the server then answers 404 for it.
 */
export function consoleAssets(): Map<string, Buffer> {
  return webAppFiles('console', CONSOLE_MANIFEST, consoleAssetKey);
}

/** The floor app's files by name, read once; empty when it was not built (404 then), as the console's. */
export function appAssets(): Map<string, Buffer> {
  return webAppFiles('app', APP_MANIFEST, appAssetKey);
}

function webAppFiles(name: 'console' | 'app', manifestName: string, assetKey: (file: string) => string): Map<string, Buffer> {
  const known = builtFiles.get(name);
  if (known) return known;
  const api = seaApi();
  const read = api
    ? (file: string) => Buffer.from(api.getAsset(assetKey(file)))
    : (file: string) => fs.readFileSync(path.join(__dirname, '..', '..', name, file)); // dist/src/lib → dist/<name>
  const files = new Map<string, Buffer>();
  try {
    const manifest = JSON.parse(read(manifestName).toString('utf8')) as { files: string[] };
    for (const file of manifest.files) files.set(file, read(file));
  } catch (error) {
    if (api || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  builtFiles.set(name, files);
  return files;
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
