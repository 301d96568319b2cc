import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'esbuild';

/**
 * esbuild plugins of the single-executable build (scripts/build-binary.ts): the
 * bundle must run with no file beside it, since inside the executable there is
 * no node_modules and no config directory of the program.
 */

/**
 * Optional dependencies a package only tries to require (debug → supports-color):
 * bundled as empty modules, so the executable never falls back to the SEA's
 * require, which loads built-ins only and warns on anything else.
 */
export function optionalModulesAsEmpty(names: string[]): Plugin {
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

/**
 * jsonwebtoken asks semver at load time whether the running Node.js has
 * features every runtime this build accepts has (≥ 8, ≥ 15.7, ≥ 16.9): three
 * range parses and regular-expression compilations at every start, for answers
 * that are constants in an executable carrying its own Node.js (≥ 20.12,
 * checked by the build).
 */
export function jsonwebtokenFeatureChecksAsTrue(): Plugin {
  return {
    name: 'jsonwebtoken-feature-checks-as-true',
    setup(b) {
      b.onLoad(
        { filter: /[\\/]jsonwebtoken[\\/]lib[\\/](psSupported|asymmetricKeyDetailsSupported|rsaPssKeyDetailsSupported)\.js$/ },
        () => ({
          contents: 'module.exports = true;',
          loader: 'js',
        }),
      );
    },
  };
}

/**
 * koa, type-is, accepts and co-body take mime-types at load, and mime-types
 * builds its extension and type tables from mime-db (≈ 2,500 types, three
 * copies) as it loads: several ms of every start for tables a JSON answer never
 * reads. Each copy is bundled behind the same API that loads it on first call
 * (koa reads `contentType` at load: every export is a function or a getter).
 */
export function mimeTypesOnFirstUse(): Plugin {
  return {
    name: 'mime-types-on-first-use',
    setup(b) {
      b.onResolve({ filter: /^mime-types$/ }, async (args) => {
        if (args.pluginData === 'real') return undefined;
        const real = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'real' });
        return real.errors.length > 0 ? { errors: real.errors } : { path: real.path, namespace: 'mime-types-on-first-use' };
      });
      b.onLoad({ filter: /.*/, namespace: 'mime-types-on-first-use' }, (args) => ({
        contents: `let real;
const load = () => (real ??= require(${JSON.stringify(args.path)}));
module.exports = {
  charset: (type) => load().charset(type),
  contentType: (str) => load().contentType(str),
  extension: (type) => load().extension(type),
  lookup: (path) => load().lookup(path),
  get charsets() { return load().charsets; },
  get extensions() { return load().extensions; },
  get types() { return load().types; },
};`,
        resolveDir: path.dirname(args.path),
        loader: 'js',
      }));
    },
  };
}

/**
 * depd (http-errors and cookies call it as they load, and http-errors 1.x
 * wraps a deprecated export with it) records where each deprecation function
 * was made, reading the call site's file, line and column: a line number
 * makes V8 compute the line ends of the whole 8 MB bundle script (≈ 11–20 ms of
 * every start, for positions only a printed deprecation warning shows).
 * Patched so a site's line and column are read when first used (the warning
 * prints the same text); its file is still read at once. Every patch must
 * apply, so a depd upgrade that changes the code fails the build.
 */
export function depdLinesOnFirstUse(): Plugin {
  const patches = [
    { pattern: /^ {2}var line = callSite\.getLineNumber\(\)\n {2}var colm = callSite\.getColumnNumber\(\)\n/gm, replace: '' },
    {
      pattern: /^ {2}var site = \[file, line, colm\]$/gm,
      replace: `  var site = [file]
  Object.defineProperty(site, 1, { enumerable: true, get: function () { return callSite.getLineNumber() } })
  Object.defineProperty(site, 2, { enumerable: true, get: function () { return callSite.getColumnNumber() } })`,
    },
  ];
  return {
    name: 'depd-lines-on-first-use',
    setup(b) {
      b.onLoad({ filter: /[\\/]node_modules[\\/]depd[\\/]index\.js$/ }, async (args) => {
        let contents = await fs.promises.readFile(args.path, 'utf8');
        for (const { pattern, replace } of patches) {
          const found = contents.match(pattern)?.length ?? 0;
          if (found !== 1) throw new Error(`depd-lines-on-first-use: expected ${pattern} once in ${args.path}, found ${found}`);
          contents = contents.replace(pattern, replace);
        }
        return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}

/** kid → PEM of every config/license-keys/<kid>.pem of the tree being built. */
export function licenseKeyPems(root: string): Record<string, string> {
  const dir = path.join(root, 'config', 'license-keys');
  const pems: Record<string, string> = {};
  for (const name of fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.pem'))
    .sort()) {
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
export function embeddedLicenseKeys(root: string, pems: Record<string, string>): Plugin {
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
 * registerFile (its fs reads a registered name before the disk). The build
 * must also map `.icc` to the binary loader (PDFKIT_LOADERS). Every patch
 * must apply, so a pdfkit upgrade that moves them fails the build, not the
 * binary.
 */
export const PDFKIT_LOADERS = { '.icc': 'binary' } as const;

export function pdfkitFromBundle(): Plugin {
  const ICC_NAME = 'wip-embedded:pdfkit/data/sRGB_IEC61966_2_1.icc';
  const patches: { what: string; pattern: RegExp; replace: string; count: number }[] = [
    {
      what: 'ICC profile URL',
      pattern: /^const ICC_PROFILE_PATH = new URL\('\.\/data\/sRGB_IEC61966_2_1\.icc', .*\)\.href;$/gm,
      replace: `const ICC_PROFILE_PATH = ${JSON.stringify(ICC_NAME)};\nregisterFile(ICC_PROFILE_PATH, require('./data/sRGB_IEC61966_2_1.icc'));`,
      count: 1,
    },
    { what: 'createRequire of the module URL', pattern: /^const require\$1 = .*createRequire\(.*\);$/gm, replace: '', count: 1 },
    {
      what: 'standard-font loaders',
      pattern: /require\$1\('#standard-fonts\/(\w+)'\)/g,
      replace: "require('./standard-fonts/$1.cjs')",
      count: 14,
    },
  ];
  return {
    name: 'pdfkit-from-bundle',
    setup(b) {
      b.onLoad({ filter: /[\\/]node_modules[\\/]pdfkit[\\/]js[\\/]pdfkit(\.node\.mjs|\.js)$/ }, async (args) => {
        let contents = await fs.promises.readFile(args.path, 'utf8');
        for (const patch of patches) {
          const found = contents.match(patch.pattern)?.length ?? 0;
          if (found !== patch.count)
            throw new Error(`pdfkit-from-bundle: expected ${patch.count} × ${patch.what} in ${args.path}, found ${found}`);
          contents = contents.replace(patch.pattern, patch.replace);
        }
        if (/import\.meta|__filename|__dirname/.test(contents))
          throw new Error(`pdfkit-from-bundle: ${args.path} still locates files from its own path`);
        return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}
