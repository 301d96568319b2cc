/**
 * `npm run build:binary` → dist/wip: one self-contained executable.
 *
 * It is a Node.js single executable application (SEA) made from the runtime
 * that runs this script — no `pkg`, nothing downloaded, so an offline build
 * machine can build it:
 *   1. esbuild bundles the CLI (and with it migrations, config/default.json and
 *      package.json, which are imported) into one CommonJS file, and the bcrypt
 *      worker into another. Two plugins make the bundle need no file beside it:
 *      the trusted license keys of config/license-keys are baked in (see
 *      embeddedLicenseKeys), and pdfkit's data (standard-font metrics, ICC
 *      profile) comes from the bundle instead of its package directory (see
 *      pdfkitFromBundle);
 *   2. `node --experimental-sea-config` turns the bundle into a blob with a V8
 *      code cache (fast start) and the assets: the worker and better-sqlite3's
 *      native addon (written to a cache under the data directory at run time,
 *      see src/lib/runtime.ts);
 *   3. the runtime binary is copied and the blob injected with postject.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { ASSET } from '../src/lib/runtime';

const root = path.resolve(__dirname, '..', '..');
const work = path.join(root, 'dist', 'sea');
const output = path.join(root, 'dist', 'wip');
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

async function main(): Promise<void> {
  const started = Date.now();
  const step = (label: string) => process.stdout.write(`build-binary: ${label} (${((Date.now() - started) / 1000).toFixed(1)}s)\n`);
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  // SEA assets and node:sea (getAsset, isSea) arrived in 20.12
  if (major < 20 || (major === 20 && minor < 12)) throw new Error(`Node.js 20.12 or later is required to build the executable (this is ${process.version})`);
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });

  const common: BuildOptions = {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    absWorkingDir: root,
    logLevel: 'warning',
    legalComments: 'none',
    minifySyntax: true,
    minifyWhitespace: true,
    sourcemap: false,
    plugins: [optionalModulesAsEmpty(['supports-color'])],
  };
  const keys = licenseKeyPems();
  const mainBundle = path.join(work, 'wip.cjs');
  const workerBundle = path.join(work, ASSET.passwordWorker);
  await Promise.all([
    build({
      ...common,
      stdin: { contents: "require('./src/cli/index.ts').main(process.argv);", resolveDir: root, sourcefile: 'sea-entry.js', loader: 'js' },
      outfile: mainBundle,
      plugins: [...(common.plugins ?? []), embeddedLicenseKeys(keys), pdfkitFromBundle()],
      // pdfkit's ICC profile, required by the patched pdfkit: a Uint8Array
      loader: { '.icc': 'binary' },
    }),
    build({ ...common, entryPoints: [path.join(root, 'src', 'lib', 'password-worker.ts')], outfile: workerBundle }),
  ]);
  step(`bundled (trusting license keys ${Object.keys(keys).join(', ') || '(none)'})`);

  const addon = require.resolve('better-sqlite3/build/Release/better_sqlite3.node', { paths: [root] });
  const blob = path.join(work, 'sea-prep.blob');
  const seaConfig = path.join(work, 'sea-config.json');
  fs.writeFileSync(
    seaConfig,
    JSON.stringify(
      {
        main: mainBundle,
        output: blob,
        disableExperimentalSEAWarning: true,
        useSnapshot: false,
        useCodeCache: true,
        assets: { [ASSET.sqliteAddon]: addon, [ASSET.passwordWorker]: workerBundle },
      },
      null,
      2,
    ),
  );
  execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
  step('blob with code cache written');

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
  step(`wrote ${path.relative(process.cwd(), output)} (${(fs.statSync(output).size / 1024 / 1024).toFixed(0)} MB)`);
}

/**
 * Optional dependencies a package only tries to require (debug → supports-color):
 * bundled as empty modules, so the executable never falls back to the SEA's
 * require, which loads built-ins only and warns on anything else.
 */
function optionalModulesAsEmpty(names: string[]): Plugin {
  // plain package names: nothing to escape
  const filter = new RegExp(`^(${names.join('|')})$`);
  return {
    name: 'optional-modules-as-empty',
    setup(b) {
      b.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'optional-empty' }));
      b.onLoad({ filter: /.*/, namespace: 'optional-empty' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
    },
  };
}

/** kid → PEM of every config/license-keys/<kid>.pem of the tree being built. */
function licenseKeyPems(): Record<string, string> {
  const dir = path.join(root, 'config', 'license-keys');
  const pems: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.pem')).sort()) {
    const pem = fs.readFileSync(path.join(dir, name), 'utf8');
    if (!pem.includes('-----BEGIN PUBLIC KEY-----')) throw new Error(`config/license-keys/${name} is not a PEM public key`);
    pems[name.slice(0, -'.pem'.length)] = pem;
  }
  return pems;
}

/**
 * src/licensing/embedded-keys.ts becomes the object of trusted PEMs: the
 * executable trusts exactly the keys it was built with and never reads a
 * key file at run time (a .pem beside the binary would otherwise be trusted).
 */
function embeddedLicenseKeys(pems: Record<string, string>): Plugin {
  const file = path.join(root, 'src', 'licensing', 'embedded-keys.ts');
  return {
    name: 'embedded-license-keys',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]licensing[\\/]embedded-keys\.ts$/ }, (args) => {
        if (path.resolve(args.path) !== file) return undefined;
        return { contents: `export const embeddedKeys = Object.freeze(${JSON.stringify(pems)});`, loader: 'js' };
      });
    },
  };
}

/**
 * pdfkit finds its data relative to its own module at run time, which does not
 * exist inside the executable: the standard-font metrics through a
 * createRequire of its file URL ("#standard-fonts/*"), the sRGB ICC profile
 * (PDF/A) through a URL computed when the module loads. Patched here into
 * static requires esbuild bundles: the font metrics as the modules they are,
 * the ICC profile with the binary loader, handed to pdfkit through its own
 * registerFile (its fs reads a registered name before the disk). Every patch
 * must apply, so a pdfkit upgrade that moves them fails the build, not the
 * binary.
 */
function pdfkitFromBundle(): Plugin {
  const ICC_NAME = 'wip-embedded:pdfkit/data/sRGB_IEC61966_2_1.icc';
  const patches: { what: string; pattern: RegExp; replace: string; count: number }[] = [
    {
      what: 'ICC profile URL',
      pattern: /^const ICC_PROFILE_PATH = new URL\('\.\/data\/sRGB_IEC61966_2_1\.icc', .*\)\.href;$/gm,
      replace: `const ICC_PROFILE_PATH = ${JSON.stringify(ICC_NAME)};\nregisterFile(ICC_PROFILE_PATH, require('./data/sRGB_IEC61966_2_1.icc'));`,
      count: 1,
    },
    { what: 'createRequire of the module URL', pattern: /^const require\$1 = .*createRequire\(.*\);$/gm, replace: '', count: 1 },
    { what: 'standard-font loaders', pattern: /require\$1\('#standard-fonts\/(\w+)'\)/g, replace: "require('./standard-fonts/$1.cjs')", count: 14 },
  ];
  return {
    name: 'pdfkit-from-bundle',
    setup(b) {
      b.onLoad({ filter: /[\\/]node_modules[\\/]pdfkit[\\/]js[\\/]pdfkit(\.node\.mjs|\.js)$/ }, async (args) => {
        let contents = await fs.promises.readFile(args.path, 'utf8');
        for (const patch of patches) {
          const found = contents.match(patch.pattern)?.length ?? 0;
          if (found !== patch.count) throw new Error(`pdfkit-from-bundle: expected ${patch.count} × ${patch.what} in ${args.path}, found ${found}`);
          contents = contents.replace(patch.pattern, patch.replace);
        }
        if (/import\.meta|__filename|__dirname/.test(contents)) throw new Error(`pdfkit-from-bundle: ${args.path} still locates files from its own path`);
        return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`build-binary: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
