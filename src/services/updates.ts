import fs from 'node:fs/promises';
import path from 'node:path';
import type Semver from 'semver';
import { z } from 'zod';
import type { Deps } from '#deps';
import { buildInfo } from '#lib/build-info';
import { UPDATES_DIR, UPDATE_MANIFEST_FILE } from '#lib/paths';

/** An update manifest, from updateUrl or <data-dir>/updates/manifest.json. Unknown fields are ignored. */
/** semver is loaded when a manifest is checked, not at start */
const semver = (): typeof Semver => require('semver') as typeof Semver;

const Manifest = z.object({
  /** the newest released version (semver) */
  version: z.string().refine((v) => semver().valid(v) !== null, 'not a semantic version'),
  /** release notes for that version, shown to the user as text */
  notes: z.string().max(20_000).optional(),
});

/** An upstream is asked briefly and read only this far: a check must never hold a request up or fill memory. */
export const UPDATE_FETCH_TIMEOUT_MS = 5_000;
export const UPDATE_MANIFEST_MAX_BYTES = 64 * 1024;

export interface UpdateCheck {
  current: string;
  latest: string | null;
  updateAvailable: boolean;
  notes: string | null;
  /** where `latest` came from; `none`: nothing configured; `unreachable`: see `error` */
  source: 'url' | 'file' | 'none' | 'unreachable';
  error?: string;
}

/**
 * Compares the running version with the update manifest: from updateUrl when
 * one is configured, otherwise (or when it cannot be reached) from the file
 * IT drops into <data-dir>/updates/manifest.json on air-gapped sites. Never
 * throws: an unreachable or malformed source is reported in the answer.
 */
export async function checkForUpdates(deps: Deps): Promise<UpdateCheck> {
  const current = buildInfo().version;
  const file = path.join(deps.config.dataDir, UPDATES_DIR, UPDATE_MANIFEST_FILE);
  let urlError: string | undefined;
  if (deps.config.updateUrl) {
    try {
      return answer(current, await fetchManifest(deps.config.updateUrl), 'url');
    } catch (error) {
      urlError = `${deps.config.updateUrl}: ${(error as Error).message}`;
    }
  }
  try {
    const text = await readManifestFile(file);
    if (text === null) {
      return urlError ? unreachable(current, urlError) : { current, latest: null, updateAvailable: false, notes: null, source: 'none' };
    }
    return { ...answer(current, parseManifest(text), 'file'), ...(urlError && { error: urlError }) };
  } catch (error) {
    return unreachable(
      current,
      [urlError, `${UPDATES_DIR}/${UPDATE_MANIFEST_FILE}: ${(error as Error).message}`].filter(Boolean).join('; '),
    );
  }
}

function answer(current: string, manifest: z.infer<typeof Manifest>, source: 'url' | 'file'): UpdateCheck {
  return {
    current,
    latest: manifest.version,
    updateAvailable: semver().gt(manifest.version, current),
    notes: manifest.notes ?? null,
    source,
  };
}

function unreachable(current: string, error: string): UpdateCheck {
  return { current, latest: null, updateAvailable: false, notes: null, source: 'unreachable', error };
}

function parseManifest(text: string): z.infer<typeof Manifest> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('the manifest is not JSON');
  }
  const parsed = Manifest.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `the manifest is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join(', ')}`,
    );
  return parsed.data;
}

/** The file's text, or null when there is none. */
async function readManifestFile(file: string): Promise<string | null> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error('the manifest file cannot be read', { cause: error });
  }
  try {
    if ((await handle.stat()).size > UPDATE_MANIFEST_MAX_BYTES)
      throw new Error(`the manifest is larger than ${UPDATE_MANIFEST_MAX_BYTES} bytes`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** GET the manifest: no redirects followed, a short timeout, the body read only up to the size limit. */
async function fetchManifest(url: string): Promise<z.infer<typeof Manifest>> {
  const signal = AbortSignal.timeout(UPDATE_FETCH_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'manual', signal, headers: { accept: 'application/json' } });
  } catch (error) {
    throw new Error(
      signal.aborted
        ? `no answer within ${UPDATE_FETCH_TIMEOUT_MS} ms`
        : `unreachable (${(error as Error).cause ? String((error as { cause: { code?: string } }).cause.code ?? 'network error') : 'network error'})`,
      { cause: error },
    );
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => undefined);
    throw new Error(`answered HTTP ${res.status}${res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''}`);
  }
  return parseManifest(await readLimited(res, UPDATE_MANIFEST_MAX_BYTES, signal));
}

async function readLimited(res: Response, maxBytes: number, signal: AbortSignal): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new Error(`the manifest is larger than ${maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new Error(`the manifest is larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    await res.body?.cancel().catch(() => undefined);
    throw signal.aborted ? new Error(`no answer within ${UPDATE_FETCH_TIMEOUT_MS} ms`) : error;
  }
  return Buffer.concat(chunks).toString('utf8');
}
