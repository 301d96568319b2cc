import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Deps } from '#deps';
import type { DB, TemplateRow, TemplateVersionRow } from '#db/schema';
import type { TenantScope } from '#db/tenant';
import { withTransaction } from '#db/transaction';
import { notFound } from '#errors';
import { issueProblems } from '#lib/parse-or-fail';
import { ContentInput, deserializeContent, parseContent, serializeContent, type Content } from '#domain/content';
import { insertCatalogueRow, listCatalogue, loadCatalogueByIds } from '#repos/catalogue';
import { findLatestVersion, findVersionById, findVersionInState } from '#repos/template-versions';
import { archiveInvalid } from '#lib/zip';
import { insertTemplateWithDraft, type Author } from './templates';

/**
 * A template as a self-contained document: what ZIP export writes, what ZIP
 * import reads, and what copy-entities carries from one client to another.
 * Nothing in it is a database id: the content's file and sensor references
 * are rewritten to `ref`s into the manifest's own `files` and `sensors` lists
 * (numbered from 1 in order of first use), so a package means the same thing
 * in any client and export → import → export gives the same manifest but for
 * `exportedAt` and `source`.
 */

export const PACKAGE_FORMAT = 'wip-template';
/**
 * 2: the content may carry execution rules (when, CALCULATED fields with an
 * expression, signoff — docs/execution-rules.md). Packages of version 1 (written
 * before there were rules, so holding none) still import.
 */
export const PACKAGE_FORMAT_VERSION = 2;
const IMPORTABLE_FORMAT_VERSIONS = [1, 2] as const;
export const MANIFEST_NAME = 'manifest.json';

const Sha256 = z.string().regex(/^[a-f0-9]{64}$/, 'a lower-case hex SHA-256');
const Ref = z.number().int().positive().max(100_000);

export const ManifestFile = z
  .object({
    ref: Ref,
    /** where the bytes are in the ZIP */
    path: z.string().regex(/^media\/[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/, 'media/<name>: letters, digits, ., _ and - only'),
    name: z.string().min(1).max(255),
    size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    sha256: Sha256,
    contentType: z.string().min(1).max(255),
  })
  .strict();
export type ManifestFile = z.infer<typeof ManifestFile>;

const ManifestSensor = z
  .object({ ref: Ref, name: z.string().min(1).max(200), unit: z.string().max(50), kind: z.string().max(50) })
  .strict();
type ManifestSensor = z.infer<typeof ManifestSensor>;

export const Manifest = z
  .object({
    format: z.literal(PACKAGE_FORMAT),
    formatVersion: z.union(IMPORTABLE_FORMAT_VERSIONS.map((v) => z.literal(v))),
    exportedAt: z.iso.datetime({ offset: true }),
    /** where it was exported from (informative; ignored on import) */
    source: z
      .object({
        templateId: z.number().int(),
        versionId: z.number().int(),
        versionNumber: z.number().int(),
        versionState: z.string().max(20),
      })
      .strict(),
    template: z
      .object({
        title: z.string().trim().min(1).max(500),
        description: z.string().max(10_000),
        tags: z.array(z.string().trim().min(1).max(100)).max(50),
      })
      .strict(),
    version: z.object({ contentSha256: Sha256, content: ContentInput }).strict(),
    sensors: z.array(ManifestSensor).max(1000),
    files: z.array(ManifestFile).max(9_999),
  })
  .strict();
export type Manifest = z.infer<typeof Manifest>;

/** A manifest and a way to read each of its files' bytes. */
export interface TemplatePackage {
  manifest: Manifest;
  openFile(file: ManifestFile): Promise<Readable>;
}

/**
 * Where file bytes come from and go to (the file store), kept apart so the
 * package logic stays about documents. Bytes are put in the store first
 * (content-addressed, no row yet); the rows are inserted in the transaction
 * that creates the template, so a failed import leaves no file row behind.
 */
export interface PackageFiles {
  /** metadata of the client's files among `ids` (others are missing from the answer) */
  describe(
    scope: TenantScope,
    ids: readonly number[],
  ): Promise<{ id: number; name: string; size: number; sha256: string; contentType: string }[]>;
  open(scope: TenantScope, id: number): Promise<Readable>;
  /** puts the bytes in the store (within the client's limits); their SHA-256 as stored */
  put(scope: TenantScope, file: ManifestFile, bytes: Readable): Promise<PutContent>;
  /** in the transaction: one file row per content put before, in order; their ids */
  insert(trx: Kysely<DB>, author: Author, items: { content: PutContent; name: string }[]): Promise<number[]>;
}

/** What the store answered for bytes put (opaque to the package beyond its hash). */
export interface PutContent {
  sha256: string;
}

// ── Content references ──────────────────────────────────────────────────────

/** The content with every file and sensor id passed through the maps given. */
function mapReferences(content: Content, fileId: (id: number) => number, sensorId: (id: number) => number): Content {
  return {
    // the version's other parts (its qualifications) travel as they are
    ...content,
    sections: content.sections.map((section) => ({
      ...section,
      steps: section.steps.map((step) => ({
        ...step,
        media: step.media.map(fileId),
        model: step.model ? { ...step.model, fileId: fileId(step.model.fileId) } : null,
        fields: step.fields.map((field) => ({ ...field, sensorId: field.sensorId == null ? null : sensorId(field.sensorId) })),
      })),
    })),
  };
}

/** File and sensor ids in order of first use. */
function referencesOf(content: Content): { files: number[]; sensors: number[] } {
  const files = new Set<number>();
  const sensors = new Set<number>();
  mapReferences(
    content,
    (id) => (files.add(id), id),
    (id) => (sensors.add(id), id),
  );
  return { files: [...files], sensors: [...sensors] };
}

/** Numbers 1.. for ids in order: id → ref. */
const numbering = (ids: readonly number[]) => new Map(ids.map((id, i) => [id, i + 1]));

const lookup = (map: ReadonlyMap<number, number>, what: string) => (id: number) => {
  const found = map.get(id);
  if (found === undefined) throw new Error(`${what} ${id} missing from the package`);
  return found;
};

/** A ZIP-safe file name for the entry: the ref, then the original name reduced to safe characters. */
function entryPath(ref: number, name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(-120);
  return `media/${ref}${safe ? `-${safe}` : ''}`;
}

// ── Export ──────────────────────────────────────────────────────────────────

/**
 * The version a template is exported (or copied) at: `versionId` when given,
 * else the published version, else the latest one.
 * @throws AppError NOT_FOUND (also for a version of another template or client)
 */
export async function versionToExport(
  db: Kysely<DB>,
  scope: TenantScope,
  templateId: number,
  versionId?: number,
): Promise<TemplateVersionRow> {
  const version =
    versionId !== undefined
      ? await findVersionById(db, scope, versionId)
      : ((await findVersionInState(db, scope, templateId, 'PUBLISHED')) ?? (await findLatestVersion(db, scope, templateId)));
  if (!version || version.template_id !== templateId) throw notFound('Version');
  return version;
}

/** Builds the package of one version of a template of `scope`. The caller checked visibility. */
export async function packTemplate(
  deps: Deps,
  files: PackageFiles,
  scope: TenantScope,
  template: TemplateRow,
  version: TemplateVersionRow,
): Promise<TemplatePackage> {
  const db = deps.db.kysely;
  const content = deserializeContent(version.content);
  const used = referencesOf(content);
  const fileRows = new Map((await files.describe(scope, used.files)).map((f) => [f.id, f]));
  const sensorRows = new Map((await loadCatalogueByIds(db, scope, 'sensors', used.sensors)).map((s) => [s.id, s]));
  // a reference to a file or sensor deleted since is left out of the package rather than breaking it
  const fileIds = used.files.filter((id) => fileRows.has(id));
  const sensorIds = used.sensors.filter((id) => sensorRows.has(id));
  const fileRefs = numbering(fileIds);
  const sensorRefs = numbering(sensorIds);
  const portable = mapReferences(dropMissing(content, fileRefs, sensorRefs), lookup(fileRefs, 'file'), lookup(sensorRefs, 'sensor'));
  const manifestFiles = fileIds.map((id): ManifestFile => {
    const f = fileRows.get(id)!;
    const ref = fileRefs.get(id)!;
    return { ref, path: entryPath(ref, f.name), name: f.name, size: f.size, sha256: f.sha256, contentType: f.contentType };
  });
  const manifest: Manifest = {
    format: PACKAGE_FORMAT,
    formatVersion: PACKAGE_FORMAT_VERSION,
    exportedAt: deps.clock.now().toISOString(),
    source: { templateId: template.id, versionId: version.id, versionNumber: version.number, versionState: version.state },
    template: { title: template.title, description: template.description, tags: JSON.parse(template.tags) as string[] },
    version: { contentSha256: serializeContent(portable).hash, content: portable as Manifest['version']['content'] },
    sensors: sensorIds.map((id): ManifestSensor => {
      const s = sensorRows.get(id)!;
      return { ref: sensorRefs.get(id)!, name: s.name, unit: s.unit, kind: s.kind };
    }),
    files: manifestFiles,
  };
  const idOfRef = new Map(fileIds.map((id) => [fileRefs.get(id)!, id]));
  return { manifest, openFile: (file) => files.open(scope, idOfRef.get(file.ref)!) };
}

/** Whether a document uses what format version 1 did not have. */
function hasRules(content: Content): boolean {
  if (content.qualifications != null) return true;
  return content.sections.some(
    (section) =>
      section.when != null ||
      section.steps.some(
        (step) =>
          step.when != null || step.signoff != null || step.allowNotApplicable === true || step.fields.some((f) => f.type === 'CALCULATED'),
      ),
  );
}

function dropMissing(content: Content, files: ReadonlyMap<number, number>, sensors: ReadonlyMap<number, number>): Content {
  return {
    // the version's other parts (its qualifications) travel as they are
    ...content,
    sections: content.sections.map((section) => ({
      ...section,
      steps: section.steps.map((step) => ({
        ...step,
        media: step.media.filter((id) => files.has(id)),
        model: step.model && files.has(step.model.fileId) ? step.model : null,
        fields: step.fields.map((f) => (f.sensorId != null && !sensors.has(f.sensorId) ? { ...f, sensorId: null } : f)),
      })),
    })),
  };
}

// ── Import ──────────────────────────────────────────────────────────────────

/**
 * Checks a manifest read from outside: its schema, that its content hashes to
 * `contentSha256`, and that every reference in the content names a listed
 * file or sensor.
 * @throws AppError ARCHIVE_INVALID (MANIFEST_INVALID, CHECKSUM_MISMATCH)
 */
export function parseManifest(raw: unknown): Manifest {
  const parsed = Manifest.safeParse(raw);
  if (!parsed.success) {
    throw archiveInvalid('MANIFEST_INVALID', 'manifest.json does not match the package format', {
      fields: issueProblems(parsed.error.issues.slice(0, 50), 'manifest'),
    });
  }
  const manifest = parsed.data;
  const hash = serializeContent((raw as { version: { content: Content } }).version.content).hash;
  if (hash !== manifest.version.contentSha256) {
    throw archiveInvalid('CHECKSUM_MISMATCH', 'The content does not match its contentSha256', {
      entry: MANIFEST_NAME,
      expected: manifest.version.contentSha256,
      actual: hash,
    });
  }
  const problems: string[] = [];
  const unique = (refs: number[], what: string) => {
    if (new Set(refs).size !== refs.length) problems.push(`${what} refs are not unique`);
    return new Set(refs);
  };
  const fileRefs = unique(
    manifest.files.map((f) => f.ref),
    'file',
  );
  const sensorRefs = unique(
    manifest.sensors.map((s) => s.ref),
    'sensor',
  );
  if (new Set(manifest.files.map((f) => f.path)).size !== manifest.files.length) problems.push('file paths are not unique');
  const content = parseContent(manifest.version.content, 'manifest.version.content');
  if (manifest.formatVersion === 1 && hasRules(content))
    problems.push(
      'a formatVersion 1 package cannot hold execution rules (when, CALCULATED, signoff, allowNotApplicable) or qualifications: it is version 2',
    );
  const used = referencesOf(content);
  for (const ref of used.files) if (!fileRefs.has(ref)) problems.push(`the content refers to file ${ref}, which is not listed`);
  for (const ref of used.sensors) if (!sensorRefs.has(ref)) problems.push(`the content refers to sensor ${ref}, which is not listed`);
  if (problems.length > 0) throw archiveInvalid('MANIFEST_INVALID', `manifest.json is inconsistent: ${problems[0]}`, { problems });
  return manifest;
}

/**
 * Creates a new template in `author`'s client from a package: its files'
 * bytes are put in the store first (checked against their sha256), then one
 * transaction writes the file rows, the template, its DRAFT version 1 with the content's
 * references mapped to the new file ids and to the client's sensors (matched
 * by name and unit, created when missing), and the audit entries.
 */
export async function unpackTemplate(
  deps: Deps,
  files: PackageFiles,
  author: Author,
  pkg: TemplatePackage,
  note: Record<string, unknown>,
): Promise<TemplateRow> {
  const { manifest } = pkg;
  const contents: PutContent[] = [];
  for (const file of manifest.files) {
    const content = await files.put(author.scope, file, await pkg.openFile(file));
    if (content.sha256 !== file.sha256) {
      throw archiveInvalid('CHECKSUM_MISMATCH', `${file.path} does not match its sha256`, {
        entry: file.path,
        expected: file.sha256,
        actual: content.sha256,
      });
    }
    contents.push(content);
  }
  const now = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: author.scope.clientId }, async (trx) => {
    const ids = await files.insert(
      trx,
      author,
      manifest.files.map((file, i) => ({ content: contents[i], name: file.name })),
    );
    const fileIds = new Map(manifest.files.map((file, i) => [file.ref, ids[i]]));
    const sensorIds = await matchSensors(trx, author.scope, manifest.sensors, now);
    const content = parseContent(
      mapReferences(parseContent(manifest.version.content), lookup(fileIds, 'file'), lookup(sensorIds, 'sensor')),
    );
    return insertTemplateWithDraft(
      trx,
      author,
      { ...manifest.template, tags: [...new Set(manifest.template.tags)], assetClassId: null, organizationIds: [] },
      serializeContent(content),
      now,
      note,
    );
  });
}

/** ref → the client's sensor with the same name and unit, created when there is none. */
async function matchSensors(
  trx: Kysely<DB>,
  scope: TenantScope,
  sensors: readonly ManifestSensor[],
  now: string,
): Promise<Map<number, number>> {
  const map = new Map<number, number>();
  if (sensors.length === 0) return map;
  const existing = await listCatalogue(trx, scope, 'sensors');
  for (const sensor of sensors) {
    const found = existing.find((s) => s.name === sensor.name && s.unit === sensor.unit);
    const row =
      found ??
      (await insertCatalogueRow(trx, scope, 'sensors', {
        name: sensor.name,
        unit: sensor.unit,
        kind: sensor.kind,
        created_at: now,
        updated_at: now,
      }));
    if (!found) existing.push(row);
    map.set(sensor.ref, row.id);
  }
  return map;
}
