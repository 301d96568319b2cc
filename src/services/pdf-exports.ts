import type { Readable } from 'node:stream';
import type { Deps } from '#deps';
import type {
  FaultRow,
  HandOffRow,
  JobMemberRow,
  JobRow,
  StepRecordRow,
  TemplateRow,
  TemplateVersionRow,
  VersionSignatureRow,
  StepSignatureRow,
  DeviationRow,
  JobReviewRow,
} from '#db/schema';
import type { TenantScope } from '#db/tenant';
import { AppError, notFound } from '#errors';
import { deserializeContent, findStep, stepsOf, type Content, type Field } from '#domain/content';
import type { RecordedValue } from '#domain/recording';
import { plain } from '#lib/pdf';
import { IMAGE_NOT_SHOWN, PdfReport } from '#lib/pdf-report';
import { getClientById } from '#repos/clients';
import { findSystemFileById } from '#repos/files';
import { openContent } from './files';
import { loadFaultsOfJobs } from '#repos/faults';
import { loadDeviations, loadJobReviews } from '#repos/deviations';
import { listHandOffsOfJob } from '#repos/hand-offs';
import { getJobById, loadJobMembers, loadStepRecords } from '#repos/jobs';
import { findVersionById, findVersionInState, loadSignaturesByVersionIds } from '#repos/template-versions';
import { findTemplateById } from '#repos/templates';
import { loadUsersByIds, type UserSummary } from '#repos/users';
import { findCatalogueRow } from '#repos/catalogue';
import { loadStepSignatures } from '#repos/step-signatures';
import { applicability } from '#domain/applicability';
import { durationText, enteredOffline, stepDurations } from '#domain/capture-time';
import { getVisibleTemplate } from './templates';
import { contentInLanguage } from './translations';
import type { PackageFiles } from './template-package';
import type { UserActor } from './actor';

/**
 * PDF exports of a template version and of a job's history (pdfkit through
 * lib/pdf-report.ts). Both read everything first, then lay the document out;
 * images (step media, photos, signature images) are embedded when they are
 * PNG or JPEG files of the client no larger than MAX_IMAGE_BYTES.
 */

const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
/**
 * The bytes of images one PDF report embeds in all (each distinct file once).
 * Images are read into memory to be laid out, and the PDF carries them: without
 * a budget a report grew with every photo of a job — the same content uploaded
 * under new file ids costs the client's quota nothing — and held them all at
 * once. Past it, images are named (the zipped job report carries every file).
 */
export const MAX_REPORT_IMAGE_BYTES = 64 * 1024 * 1024;

/**
 * An image to embed (bytes made safe for pdfkit by the image worker), or one
 * left out: `problem` says why it cannot be shown (a corrupt or hostile file
 * stored before uploads were checked); null, the report's image budget was spent.
 */
type ReportImage = { name: string; bytes: Buffer } | { name: string; bytes: null; problem: string | null };
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg']);

// ── Shared ──────────────────────────────────────────────────────────────────

const person = (name: string, email: string) => (name && name !== email ? `${name} <${email}>` : email);
const userName = (u: UserSummary | undefined, id: number | null) =>
  u ? person(`${u.first_name} ${u.last_name}`.trim(), u.email) : id == null ? '' : `user ${id}`;

const when = (iso: string | null | undefined) =>
  iso
    ? iso
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')
        .replace(/Z$/, ' UTC')
    : '';

function limits(field: Field): string {
  if (field.min != null && field.max != null) return `${field.min} to ${field.max}`;
  if (field.min != null) return `>= ${field.min}`;
  if (field.max != null) return `<= ${field.max}`;
  return '';
}

/**
 * The client's image files among `ids`, for embedding, in order of first
 * mention, up to MAX_REPORT_IMAGE_BYTES in all. Stored bytes are never handed
 * to pdfkit as they are: the image worker decodes each (lib/images.ts) and
 * answers bytes pdfkit embeds without decoding, or why it cannot be shown.
 */
async function loadImages(deps: Deps, files: PackageFiles, scope: TenantScope, ids: readonly number[]): Promise<Map<number, ReportImage>> {
  const out = new Map<number, ReportImage>();
  const distinct = [...new Set(ids)];
  const described = new Map((await files.describe(scope, distinct)).map((meta) => [meta.id, meta]));
  let budget = MAX_REPORT_IMAGE_BYTES;
  for (const id of distinct) {
    const meta = described.get(id);
    if (!meta || !IMAGE_TYPES.has(meta.contentType) || meta.size > MAX_IMAGE_BYTES) continue;
    if (meta.size > budget) {
      out.set(meta.id, { name: meta.name, bytes: null, problem: null });
      continue;
    }
    budget -= meta.size;
    const printable = await deps.images.printable(async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of await files.open(scope, meta.id)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    }, meta.contentType);
    out.set(
      meta.id,
      printable.ok ? { name: meta.name, bytes: printable.bytes } : { name: meta.name, bytes: null, problem: printable.problem },
    );
  }
  return out;
}

function addImages(report: PdfReport, images: Map<number, ReportImage>, ids: readonly number[], caption: (name: string) => string): void {
  for (const id of ids) {
    const image = images.get(id);
    if (image?.bytes) report.image(image.bytes, caption(image.name));
    else if (image?.problem) report.paragraph(`[${IMAGE_NOT_SHOWN}: ${caption(image.name)} (file ${id})]`, { italic: true });
    else if (image)
      report.paragraph(
        `[${caption(image.name)} (file ${id}): not embedded, the report's images reached ${MAX_REPORT_IMAGE_BYTES / 1024 / 1024} MB; the zipped job report carries every file]`,
        { italic: true },
      );
    else report.paragraph(`[file ${id}: not an embeddable image]`, { italic: true });
  }
}

/** What every page's header shows: the client's name and, when it has one pdfkit can draw (PNG, JPEG), its logo. */
async function clientHeader(deps: Deps, scope: TenantScope): Promise<{ clientName: string; logo: Buffer | null }> {
  const client = await getClientById(deps.db.kysely, scope.clientId);
  const file = client.logo_file_id === null ? undefined : await findSystemFileById(deps.db.kysely, client.logo_file_id);
  if (!file || !IMAGE_TYPES.has(file.content_type) || file.size > MAX_IMAGE_BYTES) return { clientName: client.name, logo: null };
  // a logo that cannot be shown is left out, the report is not
  const printable = await deps.images.printable(async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of (await openContent(deps, file)).stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }, file.content_type);
  return { clientName: client.name, logo: printable.ok ? printable.bytes : null };
}

function signatureRows(signatures: readonly VersionSignatureRow[]): string[][] {
  return signatures.map((s) => [
    s.meaning,
    person(s.signer_name, s.signer_email),
    when(s.signed_at),
    s.method,
    s.content_hash.slice(0, 16),
  ]);
}
const SIGNATURE_HEADER = ['Meaning', 'Signer', 'Signed at', 'Method', 'Content hash'];
const SIGNATURE_WIDTHS: (number | '*')[] = [70, '*', 105, 55, 90];

/** A field as the report prints it: options by their labels in the report's language (the options themselves when not translated). */
function fieldRows(fields: readonly (Field & { optionLabels?: string[] })[]): string[][] {
  return fields.map((f) => [
    f.label || f.key,
    f.type,
    f.required ? 'yes' : 'no',
    f.unit ?? '',
    limits(f),
    (f.optionLabels ?? f.options ?? []).join(', '),
  ]);
}

// ── Template ────────────────────────────────────────────────────────────────

/**
 * The template's PUBLISHED version as a PDF, or the version `versionId`; its
 * texts in the best approved translation among `languages` (the reader's,
 * services/translations.ts operatorLanguages), the source where none.
 * @throws AppError NOT_FOUND (template or version, also another client's), NO_PUBLISHED_VERSION
 */
export async function renderTemplatePdf(
  deps: Deps,
  files: PackageFiles,
  actor: UserActor,
  templateId: number,
  versionId?: number,
  languages: readonly string[] = [],
): Promise<{ fileName: string; stream: Readable }> {
  const db = deps.db.kysely;
  const template = await getVisibleTemplate(db, actor, templateId);
  const version =
    versionId !== undefined
      ? await findVersionById(db, actor.scope, versionId)
      : await findVersionInState(db, actor.scope, templateId, 'PUBLISHED');
  if (!version && versionId === undefined)
    throw new AppError('NO_PUBLISHED_VERSION', 'The template has no published version; name one with ?versionId=', { templateId });
  if (!version || version.template_id !== templateId) throw notFound('Version');
  const { language, content } = await contentInLanguage(db, actor.scope, version.id, deserializeContent(version.content), languages);
  const signatures = await loadSignaturesByVersionIds(db, actor.scope, [version.id]);
  const images = await loadImages(
    deps,
    files,
    actor.scope,
    stepsOf(content).flatMap(({ step }) => step.media),
  );
  const report = new PdfReport({ title: template.title, ...(await clientHeader(deps, actor.scope)), generatedAt: deps.clock.now() });
  templateBody(report, template, version, content, signatures, images, language);
  return { fileName: `template-${template.id}-v${version.number}.pdf`, stream: report.end() };
}

function templateBody(
  report: PdfReport,
  template: TemplateRow,
  version: TemplateVersionRow,
  content: Content,
  signatures: VersionSignatureRow[],
  images: Map<number, ReportImage>,
  language: string | null,
): void {
  report.facts([
    ['Version', `${version.number} (${version.state})`],
    ['Language', language ? `${language} (approved translation)` : null],
    ['Published', when(version.published_at)],
    ['Tags', (JSON.parse(template.tags) as string[]).join(', ')],
    ['Content SHA-256', version.content_hash],
  ]);
  report.paragraph(template.description);
  if (signatures.length > 0)
    report.heading('Signatures', 2).table(SIGNATURE_HEADER, signatureRows(signatures), { widths: SIGNATURE_WIDTHS });
  let n = 0;
  for (const section of content.sections) {
    report.heading(section.title, 1);
    for (const step of section.steps) {
      report.heading(`Step ${++n}: ${step.title}`, 2);
      report.paragraph(plain(step.body));
      addImages(report, images, step.media, (name) => name);
      if (step.model) report.paragraph(`3D model: file ${step.model.fileId}`, { italic: true });
      report.table(['Field', 'Type', 'Required', 'Unit', 'Limits', 'Options'], fieldRows(step.fields));
    }
  }
}

// ── Job history ─────────────────────────────────────────────────────────────

/** Everything a job's history report shows, read once. */
export interface JobHistory {
  clientName: string;
  logo: Buffer | null;
  job: JobRow;
  template: TemplateRow | undefined;
  version: TemplateVersionRow;
  content: Content;
  records: Map<string, StepRecordRow>;
  members: JobMemberRow[];
  handOffs: HandOffRow[];
  faults: FaultRow[];
  signatures: VersionSignatureRow[];
  /** step sign-offs (docs/execution-rules.md), invalidated ones too */
  stepSignatures: StepSignatureRow[];
  /** deviations (docs/execution-rules.md), oldest first */
  deviations: DeviationRow[];
  /** the REVIEWED signature, when the job is reviewed */
  review: JobReviewRow | null;
  users: Map<number, UserSummary>;
  assetName: string | null;
}

/** The job's history, its version's texts in the best approved translation among `languages`. @throws AppError NOT_FOUND (also another client's job) */
export async function loadJobHistory(deps: Deps, actor: UserActor, jobId: number, languages: readonly string[] = []): Promise<JobHistory> {
  const db = deps.db.kysely;
  const scope = actor.scope;
  const job = await getJobById(db, scope, jobId);
  const version = await findVersionById(db, scope, job.version_id);
  if (!version) throw notFound('Version');
  const [records, members, handOffs, faults, signatures, stepSignatures, deviations, reviews] = await Promise.all([
    loadStepRecords(db, scope, [job.id]),
    loadJobMembers(db, scope, [job.id]),
    listHandOffsOfJob(db, scope, job.id),
    loadFaultsOfJobs(db, scope, [job.id]),
    loadSignaturesByVersionIds(db, scope, [version.id]),
    loadStepSignatures(db, scope, [job.id]),
    loadDeviations(db, scope, [job.id]),
    loadJobReviews(db, scope, [job.id]),
  ]);
  const userIds = [
    job.created_by,
    ...records.map((r) => r.recorded_by),
    ...members.map((m) => m.user_id),
    ...handOffs.flatMap((h) => [h.from_user_id, h.to_user_id]),
    ...faults.flatMap((f) => [f.raised_by, ...(f.closed_by == null ? [] : [f.closed_by])]),
    ...deviations.flatMap((d) => (d.raised_by == null ? [] : [d.raised_by])),
  ];
  const users = new Map((await loadUsersByIds(db, scope, [...new Set(userIds)])).map((u) => [u.id, u]));
  const asset = job.asset_id == null ? undefined : await findCatalogueRow(db, scope, 'assets', job.asset_id);
  return {
    ...(await clientHeader(deps, scope)),
    job,
    template: await findTemplateById(db, scope, job.template_id),
    version,
    content: (await contentInLanguage(db, scope, version.id, deserializeContent(version.content), languages)).content,
    records: new Map(records.map((r) => [r.step_id, r])),
    members,
    handOffs,
    faults,
    signatures,
    stepSignatures,
    deviations,
    review: reviews.at(-1) ?? null,
    users,
    assetName: asset?.name ?? null,
  };
}

/** A recorded value as text (file references are named by id; the report embeds the images). */
export function valueText(field: Field | undefined, value: RecordedValue): string {
  if (value.error !== undefined) return `not computed: ${value.error}`;
  if (Array.isArray(value.value)) return value.value.map((id) => `file ${id}`).join(', ');
  if (field?.type === 'SIGNATURE' || field?.type === 'PHOTO') return `file ${value.value}`;
  return typeof value.value === 'string' ? value.value : JSON.stringify(value.value);
}

/** The Check column: a number out of its limits, a failed pass/fail check (both printed in red), else ok. */
function valueCheck(field: Field | undefined, value: RecordedValue): string {
  if (value.outOfLimits) return 'OUT OF LIMITS';
  if (value.error !== undefined) return 'ERROR';
  if (field?.type === 'PASS_FAIL' && value.value === 'FAIL') return 'FAILED';
  return 'ok';
}

/** File ids a record refers to: photos and signature images. */
export function recordFiles(content: Content, record: StepRecordRow): { photos: number[]; signatures: number[] } {
  const step = stepsOf(content).find((s) => s.step.id === record.step_id)?.step;
  const photos: number[] = [];
  const signatures: number[] = [];
  for (const v of JSON.parse(record.values) as RecordedValue[]) {
    const type = step?.fields.find((f) => f.key === v.key)?.type;
    if (type === 'PHOTO') photos.push(...(v.value as number[]));
    if (type === 'SIGNATURE') signatures.push(v.value as number);
  }
  return { photos, signatures };
}

export const DEVIATION_HEADER = ['Kind', 'Step', 'Value / detail', 'Comment', 'Acknowledged by'];
/** The kinds in words: a narrow column wraps them between words (deviations.json keeps the codes). */
const DEVIATION_KIND_TEXT: Record<DeviationRow['kind'], string> = {
  OUT_OF_LIMITS: 'Out of limits',
  STEP_FAILED: 'Step failed',
  NOT_APPLICABLE: 'Marked not applicable',
  FAULT: 'Fault raised',
  OVERRIDE: 'Override',
  LATE_COMPLETION: 'Completed late',
  UNAPPLIED_CHANGE: 'Lost with a restore',
};

/** A job's deviations as table rows (the PDF, and the report's deviations.csv): kind, step title, value, comment, acknowledged by. */
export function deviationRows(h: Pick<JobHistory, 'deviations' | 'content'>): string[][] {
  return h.deviations.map((d) => [
    DEVIATION_KIND_TEXT[d.kind],
    d.step_id ? (findStep(h.content, d.step_id)?.title ?? d.step_id) : '',
    [d.field_key && d.value !== null ? `${d.field_key} = ${d.value}` : '', d.detail].filter(Boolean).join(': '),
    d.ack_comment ?? '',
    d.acknowledged_at ? `${d.acknowledged_by_name ?? ''}, ${when(d.acknowledged_at)}` : 'not acknowledged',
  ]);
}

/** @throws AppError NOT_FOUND */
export async function renderJobPdf(
  deps: Deps,
  files: PackageFiles,
  actor: UserActor,
  jobId: number,
  languages: readonly string[] = [],
): Promise<{ fileName: string; stream: Readable }> {
  const history = await loadJobHistory(deps, actor, jobId, languages);
  return { fileName: `job-${jobId}.pdf`, stream: await jobPdfStream(deps, files, actor.scope, history) };
}

/** The job history PDF of an already loaded history (the zipped report reuses it). */
export async function jobPdfStream(deps: Deps, files: PackageFiles, scope: TenantScope, h: JobHistory): Promise<Readable> {
  const fileIds = [...h.records.values()]
    .flatMap((r) => Object.values(recordFiles(h.content, r)).flat())
    .concat(h.faults.flatMap((f) => JSON.parse(f.photos) as number[]));
  const images = await loadImages(deps, files, scope, fileIds);
  const user = (id: number | null) => userName(id == null ? undefined : h.users.get(id), id);
  const report = new PdfReport({
    title: `Job ${h.job.id}: ${h.job.title}`,
    clientName: h.clientName,
    logo: h.logo,
    generatedAt: deps.clock.now(),
  });
  const of = (kind: JobMemberRow['kind']) =>
    h.members.filter((m) => m.kind === kind).map((m) => user(m.user_id) + (m.step_id ? ` (step ${m.step_id})` : ''));
  report.facts([
    ['Template', h.template ? `${h.template.title} (version ${h.version.number})` : `version ${h.version.number}`],
    ['State', h.job.state],
    ['Priority', h.job.priority],
    ['Asset', h.assetName],
    ['Created', `${when(h.job.created_at)} by ${user(h.job.created_by)}`],
    // the job's times are capture times (docs/records.md): the duration is the work's, not the sync's
    ['Started', when(h.job.started_at)],
    ['Completed', when(h.job.completed_at)],
    [
      'Duration',
      h.job.started_at && h.job.completed_at ? durationText(Date.parse(h.job.completed_at) - Date.parse(h.job.started_at)) : null,
    ],
    ['Due', when(h.job.due_at)],
    ['Cancel reason', h.job.cancel_reason],
    ['Assignees', of('ASSIGNEE').join('; ')],
    ['Co-workers', of('COWORKER').join('; ')],
    ['Step owners', of('STEP_OWNER').join('; ')],
  ]);
  if (h.signatures.length > 0)
    report.heading('Version signatures', 2).table(SIGNATURE_HEADER, signatureRows(h.signatures), { widths: SIGNATURE_WIDTHS });

  report.heading('Steps', 1);
  const views = new Map(
    [...h.records.values()].map((r) => [r.step_id, { status: r.status, values: JSON.parse(r.values) as RecordedValue[] }]),
  );
  const notApplicable = new Map(
    applicability(h.content, views)
      .filter((a) => !a.applies)
      .map((a) => [a.stepId, a.reason]),
  );
  const durations = stepDurations(
    h.job.started_at,
    [...h.records.values()].map((r) => ({ stepId: r.step_id, capturedAt: r.captured_at })),
  );
  for (const { section, step, index } of stepsOf(h.content)) {
    report.heading(`Step ${index + 1}: ${step.title} (${section.title})`, 2);
    const record = h.records.get(step.id);
    // a step whose condition is not met: not required; a record it kept from before is printed, marked
    if (notApplicable.has(step.id)) report.paragraph(`Does not apply: ${notApplicable.get(step.id)}`, { italic: true });
    if (!record) {
      if (!notApplicable.has(step.id)) report.paragraph('Not recorded', { italic: true });
      continue;
    }
    report.facts([
      ['Status', record.status],
      // when entered on the device; one synced more than a minute later says so (docs/records.md)
      ['Recorded', `${when(record.captured_at)} by ${user(record.recorded_by)}`],
      [
        'Received',
        enteredOffline({ capturedAt: record.captured_at, receivedAt: record.recorded_at })
          ? `entered offline, synced ${when(record.recorded_at)}`
          : when(record.recorded_at),
      ],
      ['Duration', durations.has(step.id) ? durationText(durations.get(step.id)!) : null],
      ['Reason', record.reason],
      ['Comment', record.comment],
    ]);
    const values = JSON.parse(record.values) as RecordedValue[];
    const fieldOf = (key: string) => step.fields.find((f) => f.key === key);
    const checks = values.map((v) => valueCheck(fieldOf(v.key), v));
    report.table(
      ['Field', 'Value', 'Unit', 'Limits', 'Check'],
      values.map((v, i) => {
        const field = fieldOf(v.key);
        return [field?.label || v.key, valueText(field, v), field?.unit ?? '', field ? limits(field) : '', checks[i]];
      }),
      { mark: (row) => checks[row] !== 'ok', widths: ['*', '*', 50, 70, 80] },
    );
    const { photos, signatures } = recordFiles(h.content, record);
    addImages(report, images, photos, (name) => `Photo: ${name}`);
    addImages(report, images, signatures, () => `Signature of ${user(record.recorded_by)}, ${when(record.captured_at)}`);
    const signoffs = h.stepSignatures.filter((sig) => sig.step_id === step.id);
    if (signoffs.length > 0) {
      report.table(
        ['Sign-off', 'Signed by', 'Date and time', 'Status'],
        signoffs.map((sig) => [
          sig.meaning,
          sig.signer_name,
          when(sig.signed_at),
          sig.invalidated_at ? `invalidated ${when(sig.invalidated_at)} (re-recorded)` : 'valid',
        ]),
        { mark: (row) => signoffs[row].invalidated_at !== null, widths: [70, '*', 110, '*'] },
      );
    }
  }

  if (h.handOffs.length > 0) {
    report.heading('Hand-offs', 1).table(
      ['From', 'To', 'Status', 'Note', 'Created', 'Decided'],
      h.handOffs.map((o) => [user(o.from_user_id), user(o.to_user_id), o.status, o.note, when(o.created_at), when(o.decided_at)]),
      { widths: ['*', '*', 65, '*', 70, 70] },
    );
  }
  if (h.faults.length > 0) {
    report.heading('Faults', 1).table(
      ['Severity', 'State', 'Step', 'Description', 'Raised', 'Closed'],
      h.faults.map((f) => [
        f.severity,
        f.state,
        // the step as the report names it above, not its id
        f.step_id ? (findStep(h.content, f.step_id)?.title ?? f.step_id) : '',
        f.description,
        `${when(f.captured_at)} by ${user(f.raised_by)}` +
          (enteredOffline({ capturedAt: f.captured_at, receivedAt: f.raised_at }) ? ` (entered offline, synced ${when(f.raised_at)})` : ''),
        f.closed_at ? `${when(f.closed_at)} by ${user(f.closed_by)}${f.close_note ? `: ${f.close_note}` : ''}` : '',
      ]),
      { mark: (row) => h.faults[row].state === 'OPEN', widths: [55, 50, 50, '*', '*', '*'] },
    );
    for (const f of h.faults) addImages(report, images, JSON.parse(f.photos) as number[], (name) => `Fault photo: ${name}`);
  }
  if (h.deviations.length > 0) {
    const rows = deviationRows(h);
    report
      .heading('Deviations', 1)
      .table(DEVIATION_HEADER, rows, { mark: (row) => h.deviations[row].acknowledged_at === null, widths: [75, '*', '*', '*', '*'] });
  }
  if (h.review) {
    report
      .heading('Review', 1)
      .table(
        ['Signature', 'Signed by', 'Date and time', 'Comment'],
        [['REVIEWED', h.review.signer_name, when(h.review.signed_at), h.review.comment]],
        { widths: [70, '*', 110, '*'] },
      );
  }
  return report.end();
}
