/**
 * `npm run build:binary` → dist/wip: one self-contained executable.
 *
 * It is a Node.js single executable application (SEA) made from the pinned
 * Node.js (scripts/pinned-node.ts: the exact version in package.json, installed
 * by npm as node_modules/.bin/node) — no `pkg`, nothing downloaded after npm
 * install. Started by another Node.js (a machine's Node 20), it re-runs itself
 * on the pinned one: the blob must be made, and the code cache checked, by the
 * runtime it goes into, so the executable is the same whatever node started
 * the build:
 *   1. esbuild bundles the CLI (and with it migrations, config/default.json and
 *      package.json, which are imported) into one CommonJS file, and the bcrypt
 *      worker into another. Two plugins make the bundle need no file beside it:
 *      the trusted license keys of config/license-keys are baked in (see
 *      embeddedLicenseKeys), and pdfkit's data (standard-font metrics, ICC
 *      profile) comes from the bundle instead of its package directory (see
 *      pdfkitFromBundle, in scripts/bundle-plugins.ts);
 *   2. `node --experimental-sea-config` turns a small main script
 *      (scripts/sea-main.ts) into a blob with the assets: the bundle, the
 *      worker, the admin console's files (dist/console), the floor app's
 *      (dist/app), the data files of config/ read at run time
 *      (CONFIG_ASSET_FILES) and better-sqlite3's
 *      native addon (its Node-API prebuild for this platform; written to a cache under the data directory at run time,
 *      see src/lib/executable.ts); the runtime binary is copied and the blob
 *      injected with postject;
 *   3. that is done twice: first a training executable that starts a daemon on
 *      a scratch data directory, answers a few requests, stops, and writes the
 *      V8 code cache of everything it compiled; then dist/wip, carrying that
 *      cache, so a start runs bytecode instead of compiling the bundle's
 *      functions (see scripts/sea-main.ts).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { build, type BuildOptions } from 'esbuild';
import {
  APP_MANIFEST,
  appAssetKey,
  ASSET,
  CONFIG_ASSET_FILES,
  configAssetKey,
  CONSOLE_MANIFEST,
  consoleAssetKey,
  DOCS_ASSET_FILES,
  docsAssetKey,
  WORKER_SCRIPTS,
  type WorkerScript,
} from '#lib/executable';
import { PINNED_NODE_PACKAGE, pinnedNodePath, pinnedNodeVersion, runsOnPinnedNode } from './pinned-node';
import {
  depdLinesOnFirstUse,
  embeddedLicenseKeys,
  jsonwebtokenFeatureChecksAsTrue,
  licenseKeyPems,
  mimeTypesOnFirstUse,
  optionalModulesAsEmpty,
  PDFKIT_LOADERS,
  pdfkitFromBundle,
} from './bundle-plugins';

const root = path.resolve(__dirname, '..', '..');
const work = path.join(root, 'dist', 'sea');
const output = path.join(root, 'dist', 'wip');
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

async function main(): Promise<void> {
  const started = Date.now();
  const step = (label: string) => process.stdout.write(`build-binary: ${label} (${((Date.now() - started) / 1000).toFixed(1)}s)\n`);
  if (!runsOnPinnedNode()) {
    const pinned = pinnedNodePath(root);
    if (!pinned) {
      throw new Error(
        `the executable embeds Node.js ${pinnedNodeVersion()} (package.json, ${PINNED_NODE_PACKAGE}); this is ${process.version} and node_modules/${PINNED_NODE_PACKAGE} is not installed: run "npm install" on Linux x64, or this build on Node.js ${pinnedNodeVersion()}`,
      );
    }
    step(`re-running on the pinned Node.js ${pinnedNodeVersion()} (started by ${process.version})`);
    const rerun = spawnSync(pinned, [__filename, ...process.argv.slice(2)], { stdio: 'inherit' });
    if (rerun.error) throw rerun.error;
    process.exitCode = rerun.status ?? 1;
    return;
  }
  const major = Number(process.versions.node.split('.')[0]);
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });

  const common: BuildOptions = {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    // the syntax of the runtime the executable embeds (nothing lowered for an older one)
    target: `node${major}`,
    absWorkingDir: root,
    logLevel: 'warning',
    legalComments: 'none',
    minifySyntax: true,
    minifyWhitespace: true,
    // shorter local names: a smaller script to deserialize and keep in memory at every start (≈ 25 % smaller);
    // keepNames keeps function and class names (error names, stack traces, code that reads .name) as written
    minifyIdentifiers: true,
    keepNames: true,
    sourcemap: false,
    // package.json "imports" (#services/…) to the TypeScript sources, as tsc reads them; Node's own
    // condition, `default`, names the compiled files (scripts/codemods/import-aliases.ts)
    conditions: ['wip-source'],
    plugins: [optionalModulesAsEmpty(['supports-color'])],
  };
  const keys = licenseKeyPems(root);
  const mainBundle = path.join(work, 'wip.cjs');
  const workerBundle = (script: WorkerScript) => path.join(work, script);
  await Promise.all([
    build({
      ...common,
      stdin: { contents: "require('./src/cli/index.ts').main(process.argv);", resolveDir: root, sourcefile: 'sea-entry.js', loader: 'js' },
      outfile: mainBundle,
      // the CommonJS wrapper of a main script, around the whole bundle: scripts/sea-main.ts compiles it as is
      banner: { js: '(function (exports, require, module, __filename, __dirname) {' },
      footer: { js: '})' },
      // ASCII (esbuild escapes the rest): sea-main.ts decodes it as latin1
      charset: 'ascii',
      plugins: [
        ...(common.plugins ?? []),
        embeddedLicenseKeys(root, keys),
        pdfkitFromBundle(),
        jsonwebtokenFeatureChecksAsTrue(),
        mimeTypesOnFirstUse(),
        depdLinesOnFirstUse(),
      ],
      // GET /api/client/version reports these (src/lib/build-info.ts)
      define: { __WIP_BUILD_COMMIT__: JSON.stringify(gitCommit(root)), __WIP_BUILD_DATE__: JSON.stringify(buildDate()) },
      loader: PDFKIT_LOADERS,
    }),
    ...WORKER_SCRIPTS.map((script) =>
      build({ ...common, entryPoints: [path.join(root, 'src', 'lib', script.replace(/\.js$/, '.ts'))], outfile: workerBundle(script) }),
    ),
  ]);

  // the main script twice: the training pass's (writes the code cache at exit) and the shipped one
  const seaMain = (training: boolean) => path.join(work, training ? 'sea-main-training.js' : 'sea-main.js');
  await Promise.all(
    [true, false].map((training) =>
      build({
        ...common,
        entryPoints: [path.join(root, 'scripts', 'sea-main.ts')],
        outfile: seaMain(training),
        define: { TRAINING: String(training) },
      }),
    ),
  );
  step(`bundled (trusting license keys ${Object.keys(keys).join(', ') || '(none)'})`);

  // better-sqlite3 ≥ 13 is Node-API, its addons prebuilt inside the package (one for every Node.js ≥ 22, so no
  // build against the pinned headers); its exports map hides the file: found from the package's directory
  const addon = path.join(
    path.dirname(require.resolve('better-sqlite3/package.json', { paths: [root] })),
    'prebuilds',
    `${process.platform}-${process.arch}.node`,
  );
  if (!fs.existsSync(addon)) throw new Error(`better-sqlite3 ships no prebuilt addon for ${process.platform}-${process.arch} (${addon})`);
  const assets: Record<string, string> = {
    [ASSET.bundle]: mainBundle,
    [ASSET.sqliteAddon]: addon,
    ...Object.fromEntries(WORKER_SCRIPTS.map((script) => [script, workerBundle(script)])),
    ...Object.fromEntries(
      DOCS_ASSET_FILES.map((file) => [docsAssetKey(file), require.resolve(`swagger-ui-dist/${file}`, { paths: [root] })]),
    ),
    ...Object.fromEntries(CONFIG_ASSET_FILES.map((file) => [configAssetKey(file), path.join(root, 'config', file)])),
    ...builtWebAppAssets('console', CONSOLE_MANIFEST, consoleAssetKey),
    ...builtWebAppAssets('app', APP_MANIFEST, appAssetKey),
  };
  const training = path.join(work, 'wip-training');
  await makeExecutable(seaMain(true), assets, training);
  step('training executable written');
  const codeCache = path.join(work, ASSET.codeCache);
  await train(training, codeCache);
  checkCodeCache(mainBundle, codeCache);
  step(`code cache of a start written (${(fs.statSync(codeCache).size / 1024 / 1024).toFixed(1)} MB)`);
  await makeExecutable(seaMain(false), { ...assets, [ASSET.codeCache]: codeCache }, output);
  step(`wrote ${path.relative(process.cwd(), output)} (${(fs.statSync(output).size / 1024 / 1024).toFixed(0)} MB)`);
}

/** A SEA blob of main and assets, injected into a copy of this runtime at output. */
async function makeExecutable(main: string, assets: Record<string, string>, output: string): Promise<void> {
  const blob = path.join(work, 'sea-prep.blob');
  const seaConfig = path.join(work, 'sea-config.json');
  // no useCodeCache: main is a few lines; the bundle's cache is an asset (see scripts/sea-main.ts)
  // no useSnapshot: Node's snapshot builder (20, 24 and 26 alike) cannot load node:http (nor so the bundle)
  fs.writeFileSync(
    seaConfig,
    JSON.stringify({ main, output: blob, disableExperimentalSEAWarning: true, useSnapshot: false, useCodeCache: false, assets }, null, 2),
  );
  execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
  const temp = `${output}.tmp`;
  fs.rmSync(temp, { force: true });
  fs.copyFileSync(process.execPath, temp);
  fs.chmodSync(temp, 0o755);
  // postject ships without types; its API is inject(file, name, data, options)
  const { inject } = require('postject') as {
    inject(file: string, name: string, data: Buffer, options: { sentinelFuse: string; overwrite?: boolean }): Promise<void>;
  };
  // postject (LIEF) may print "Can't find string offset for section name '.note…'" on stderr: harmless
  await inject(temp, 'NODE_SEA_BLOB', fs.readFileSync(blob), { sentinelFuse: SENTINEL_FUSE, overwrite: true });
  fs.renameSync(temp, output);
}

/**
 * Runs the training executable as the benchmark and an operator do: `serve` on
 * an installed scratch data directory, the first requests a load balancer or
 * orchestrator sends (liveness, readiness), SIGTERM. At exit it writes the code
 * cache of every function that ran. Not a sign-in: V8 deserializes the whole
 * cache at every start, and a first sign-in's compiling is small beside its
 * bcrypt (a larger cache measured no faster start and 3 MB more RSS).
 */
async function train(executable: string, codeCache: string): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-code-cache-'));
  fs.rmSync(codeCache, { force: true });
  // a clean environment: no WIP_* of the builder's shell; cheap bcrypt
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('WIP_') && key !== 'NODE_OPTIONS'));
  // installed first, unrecorded: a start of an installed data directory is what the cache is for, not install's one-off work (migrations, the first admin)
  execFileSync(executable, ['--data-dir', dataDir, 'install'], {
    env: { ...env, WIP_ADMIN_PASSWORD: 'code-cache-training', WIP_BCRYPT_COST: '4' },
    stdio: 'ignore',
  });
  const daemon = spawn(executable, ['--data-dir', dataDir, 'serve', '--host', '127.0.0.1', '--port', '0', '--log-format', 'json'], {
    env: { ...env, WIP_CODE_CACHE_OUT: codeCache },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => daemon.on('close', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      daemon.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const match = /wip listening on (http:\/\/[^"\s]+)/.exec(out);
        if (match) resolve(match[1]);
      });
      void exited.then((code) => reject(new Error(`the training executable exited (${code}) before listening`)));
    });
    for (const route of ['/healthz', '/readyz']) {
      const res = await fetch(url + route);
      if (!res.ok) throw new Error(`training: GET ${route} answered ${res.status}`);
      await res.arrayBuffer();
    }
  } finally {
    daemon.kill('SIGTERM');
    const code = await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (code !== 0) throw new Error(`the training executable exited with ${code}`);
  }
  if (!fs.existsSync(codeCache)) throw new Error('the training executable wrote no code cache');
}

/** V8 would reject a cache made by another runtime or flags: checked here with this runtime, the one copied into dist/wip. */
function checkCodeCache(bundle: string, codeCache: string): void {
  const script = new vm.Script(fs.readFileSync(bundle, 'latin1'), { cachedData: fs.readFileSync(codeCache) });
  if (script.cachedDataRejected) throw new Error('V8 rejected the code cache the training executable wrote');
}

/**
 * A web app's files built by `npm run build` (the admin console into dist/console, the floor app into dist/app)
 * as SEA assets, its manifest with them: exactly the files the manifest lists, as the server serves them.
 */
function builtWebAppAssets(name: 'console' | 'app', manifestName: string, assetKey: (file: string) => string): Record<string, string> {
  const dir = path.join(root, 'dist', name);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, manifestName), 'utf8')) as { files: string[] };
  return Object.fromEntries([manifestName, ...manifest.files].map((file) => [assetKey(file), path.join(dir, file)]));
}

/** The commit built from; `unknown` outside a git checkout (e.g. a source tarball). */
function gitCommit(cwd: string): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

/** Now, or SOURCE_DATE_EPOCH (seconds) for a reproducible build. */
function buildDate(): string {
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  return new Date(Number.isFinite(epoch) && epoch > 0 ? epoch * 1000 : Date.now()).toISOString();
}

main().catch((error: unknown) => {
  process.stderr.write(`build-binary: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
