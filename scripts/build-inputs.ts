import fs from 'node:fs';

/**
 * For scripts/build.ts, which runs a build step again only when a file it read changed: writes the files this
 * process read — every module it loaded, and `more` (what esbuild bundled, files read by other means) — to the file
 * WIP_BUILD_INPUTS names. Without it (the script started by hand), nothing.
 */
export function writeBuildInputs(more: string[] = []): void {
  const list = process.env.WIP_BUILD_INPUTS;
  if (!list) return;
  // esbuild lists what it was given as text too (`<define:…>`): files only
  const files = [...Object.keys(require.cache), ...more].filter((file) => fs.existsSync(file));
  fs.writeFileSync(list, JSON.stringify([...new Set(files)]));
}
