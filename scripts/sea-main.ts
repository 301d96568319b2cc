/**
 * The single executable's main script (scripts/build-binary.ts bundles it on
 * its own): it compiles the product's bundle, carried as an asset, with the
 * V8 code cache carried as another (ASSET in src/lib/executable.ts), and runs it.
 *
 * Why not the bundle as the SEA main with `useCodeCache`: Node makes that
 * cache by compiling the script without running it, so it holds the top level
 * only, and V8 still compiles each bundled module's function, and every
 * function a start calls, when it first runs (a large part of the start-up
 * CPU). This cache is made after running a start (see the build): it holds the
 * bytecode of every function a start and its first requests compiled. When V8
 * rejects it (it never should: same runtime, same flags) the bundle is simply
 * compiled as usual.
 *
 * The build's first pass (TRAINING) writes the cache of what the process
 * compiled when it exits, to the file named by WIP_CODE_CACHE_OUT when set;
 * that pass is never shipped.
 */
import fs from 'node:fs';
import { getRawAsset } from 'node:sea';
import vm from 'node:vm';
import { ASSET } from '#lib/executable';

declare const TRAINING: boolean;

// getRawAsset: the executable's own bytes, no copy. The bundle arrives wrapped
// in the CommonJS function Node gives a main script (the build adds it), so
// the bundle sees the same require, module and paths as a main script would,
// and its text is decoded once (ASCII: one byte a character in V8's heap).
const script = new vm.Script(Buffer.from(getRawAsset(ASSET.bundle)).toString('latin1'), {
  filename: __filename,
  ...(!TRAINING && { cachedData: new Uint8Array(getRawAsset(ASSET.codeCache)) }),
  // import() of built-in modules (two AWS SDK paths) resolves as in any main script
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
const cacheOut = TRAINING && process.env.WIP_CODE_CACHE_OUT;
if (cacheOut) process.once('exit', () => fs.writeFileSync(cacheOut, script.createCachedData()));
(script.runInThisContext() as (...args: unknown[]) => void)(exports, require, module, __filename, __dirname);
