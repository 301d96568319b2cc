/**
 * The trusted license public keys baked into a build, as `kid → PEM`.
 *
 * From the source tree (tsc, `node bin/wip`) this is null and the keys are read
 * from the program's own config/license-keys (see trusted-keys.ts). The single
 * executable is different: scripts/build-binary.ts replaces this module with
 * the PEM files of config/license-keys at build time, and the executable
 * trusts those and nothing on disk, so a .pem dropped beside the binary cannot
 * sign licenses.
 */
export const embeddedKeys: Readonly<Record<string, string>> | null = null;
