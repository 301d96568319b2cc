import { version } from '../../package.json';
import { runtimeInfo, type RuntimeInfo } from './node-runtime';

/**
 * What the running build is. `scripts/build-binary.ts` bakes the commit and the
 * build date into the single executable (esbuild `define` replaces these two
 * identifiers with string literals); a build from source (tsc, tests) has
 * neither and reports `dev`.
 */
declare const __WIP_BUILD_COMMIT__: string | undefined;
declare const __WIP_BUILD_DATE__: string | undefined;

/**
 * The version of the HTTP API contract (docs/api/contract.md). Paths carry no version
 * segment, so clients read this to know which contract they talk to; it
 * changes only with an incompatible change of routes or shapes.
 */
export const API_VERSION = '1';

export interface BuildInfo {
  /** the product version (package.json) */
  version: string;
  apiVersion: string;
  build: { commit: string; date: string | null };
  /** the Node.js running the process (inside the executable: the one it embeds) and its end of life */
  runtime: RuntimeInfo;
}

export function buildInfo(): BuildInfo {
  const commit = typeof __WIP_BUILD_COMMIT__ === 'string' ? __WIP_BUILD_COMMIT__ : 'dev';
  const date = typeof __WIP_BUILD_DATE__ === 'string' ? __WIP_BUILD_DATE__ : null;
  return { version, apiVersion: API_VERSION, build: { commit, date }, runtime: runtimeInfo() };
}
