import { PassThrough, type Readable } from 'node:stream';
import type { Deps } from '#deps';
import type { TemplateRow } from '#db/schema';
import { importMaxUnzippedBytes } from '#config';
import { archiveInvalid, openSafeZip, writeZip, type SafeZip } from '#lib/zip';
import {
  MANIFEST_NAME,
  packTemplate,
  parseManifest,
  unpackTemplate,
  versionToExport,
  type ManifestFile,
  type PackageFiles,
} from './template-package';
import { getVisibleTemplate } from './templates';
import type { UserActor } from './actor';
import { requirePermission } from '#policies/permissions';

/**
 * Templates as ZIP files: `manifest.json` (the package, see
 * template-package.ts) and the media under `media/`. Import trusts nothing:
 * the archive is checked whole — entry names and kinds, entry count, declared
 * and inflated size, the manifest's schema, every file's SHA-256 — before
 * anything is written.
 */

export const MAX_ENTRIES = 10_000;
/** manifest.json is text; anything near this is not one of ours */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/** `GET /api/client/export-zip/:templateId`: the ZIP stream and its file name. @throws AppError NOT_FOUND */
export async function exportTemplateZip(
  deps: Deps,
  files: PackageFiles,
  actor: UserActor,
  templateId: number,
  versionId?: number,
): Promise<{ fileName: string; stream: Readable }> {
  const db = deps.db.kysely;
  const template = await getVisibleTemplate(db, actor, templateId);
  const version = await versionToExport(db, actor.scope, templateId, versionId);
  const pkg = await packTemplate(deps, files, actor.scope, template, version);
  const stream = writeZip(
    [
      { path: MANIFEST_NAME, data: Buffer.from(JSON.stringify(pkg.manifest, null, 2) + '\n', 'utf8') },
      ...pkg.manifest.files.map((file) => ({ path: file.path, open: () => pkg.openFile(file) })),
    ],
    deps.clock.now(),
  );
  const slug =
    template.title
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'template';
  return { fileName: `${slug}-v${version.number}.zip`, stream };
}

/**
 * `POST /api/client/import-zip`: a new template with one DRAFT from the ZIP at `zipPath`.
 * @throws AppError FORBIDDEN (not an author), ARCHIVE_INVALID (see lib/zip.ts and parseManifest)
 */
export async function importTemplateZip(deps: Deps, files: PackageFiles, actor: UserActor, zipPath: string): Promise<TemplateRow> {
  requirePermission(actor.roles, 'author');
  const zip = await openSafeZip(zipPath, { maxEntries: MAX_ENTRIES, maxUnzippedBytes: importMaxUnzippedBytes(deps.config) });
  try {
    const manifest = parseManifest(parseJson(await zip.readBuffer(MANIFEST_NAME, MAX_MANIFEST_BYTES)));
    const expected = new Set([MANIFEST_NAME, ...manifest.files.map((f) => f.path)]);
    const extra = zip.names.find((name) => !expected.has(name));
    if (extra) throw archiveInvalid('UNEXPECTED_ENTRY', `Entry "${extra}" is not listed in the manifest`, { entry: extra });
    // first pass: every file checked before a byte is stored
    for (const file of manifest.files) {
      const actual = await zip.read(file.path);
      if (actual.sha256 !== file.sha256 || actual.size !== file.size) {
        throw archiveInvalid('CHECKSUM_MISMATCH', `${file.path} does not match its sha256 and size in the manifest`, {
          entry: file.path,
          expected: { sha256: file.sha256, size: file.size },
          actual,
        });
      }
    }
    return await unpackTemplate(
      deps,
      files,
      actor,
      { manifest, openFile: async (file) => entryStream(zip, file) },
      { importedFrom: manifest.source },
    );
  } finally {
    zip.close();
  }
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw archiveInvalid('MANIFEST_INVALID', `manifest.json is not JSON: ${(error as Error).message}`, { entry: MANIFEST_NAME });
  }
}

/** An entry's bytes as a stream (the reading still counts against the archive's limit). */
function entryStream(zip: SafeZip, file: ManifestFile): Readable {
  const out = new PassThrough();
  zip.read(file.path, out).catch((error: Error) => out.destroy(error));
  return out;
}
