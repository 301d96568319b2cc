import type { Readable } from 'node:stream';
import type { Deps } from '#deps';
import { stepsOf } from '#domain/content';
import type { RecordedValue } from '#domain/recording';
import { writeZip, type ZipSource } from '#lib/zip';
import { jobPdfStream, loadJobHistory, recordFiles, type JobHistory } from './pdf-exports';
import type { PackageFiles } from './template-package';
import type { UserActor } from './actor';

/**
 * `GET /api/client/download-zipped-job-report/:id`: one ZIP, streamed, with
 * the job history PDF (`job-<id>.pdf`), every recorded value as `values.csv`
 * and `values.json` (one row per value, in step order), the step sign-offs
 * as `signoffs.json`, the deviations and the REVIEWED signature as
 * `deviations.json` (docs/execution-rules.md), and the attached
 * files — step photos and fault photos under `photos/`, signature images
 * under `signatures/`, the step media of the job's version (what the
 * operator was shown; 3D models left out) under `media/` — each named
 * `<file id>-<name>` and streamed from the store as the ZIP is written.
 */

export interface ValueRow {
  jobId: number;
  stepId: string;
  stepTitle: string;
  stepStatus: string;
  fieldKey: string;
  fieldLabel: string;
  fieldType: string;
  value: unknown;
  unit: string | null;
  min: number | null;
  max: number | null;
  outOfLimits: boolean;
  readingId: string | null;
  recordedBy: string;
  /** deprecated: receivedAt under its old name */
  recordedAt: string;
  /** the step's comment (the operator's note with the record), on each of its values */
  comment: string | null;
  /** when the values were entered on the device, in server time (docs/records.md) */
  capturedAt: string;
  /** when the server stored them */
  receivedAt: string;
}

export function valueRows(h: JobHistory): ValueRow[] {
  return stepsOf(h.content).flatMap(({ step }) => {
    const record = h.records.get(step.id);
    if (!record) return [];
    return (JSON.parse(record.values) as RecordedValue[]).map((v): ValueRow => {
      const field = step.fields.find((f) => f.key === v.key);
      return {
        jobId: h.job.id,
        stepId: step.id,
        stepTitle: step.title,
        stepStatus: record.status,
        fieldKey: v.key,
        fieldLabel: field?.label ?? '',
        fieldType: field?.type ?? '',
        value: v.value,
        unit: field?.unit ?? null,
        min: field?.min ?? null,
        max: field?.max ?? null,
        outOfLimits: v.outOfLimits,
        readingId: v.readingId ?? null,
        recordedBy: h.users.get(record.recorded_by)?.email ?? `user ${record.recorded_by}`,
        recordedAt: record.recorded_at,
        comment: record.comment ?? null,
        capturedAt: record.captured_at,
        receivedAt: record.recorded_at,
      };
    });
  });
}

const CSV_COLUMNS: (keyof ValueRow)[] = [
  'jobId',
  'stepId',
  'stepTitle',
  'stepStatus',
  'fieldKey',
  'fieldLabel',
  'fieldType',
  'value',
  'unit',
  'min',
  'max',
  'outOfLimits',
  'readingId',
  'recordedBy',
  'recordedAt',
  'comment',
  // appended: the columns before keep their places for existing readers
  'capturedAt',
  'receivedAt',
];

/**
 * RFC 4180 CSV. Text that a spreadsheet would run as a formula (starting with
 * = + - @ or a control character) gets a leading apostrophe: a report opened
 * in Excel must not execute what an operator typed.
 */
export function toCsv(rows: readonly ValueRow[]): string {
  const cell = (v: unknown): string => {
    let text = v === null || v === undefined ? '' : Array.isArray(v) ? v.join(' ') : String(v);
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [CSV_COLUMNS.join(','), ...rows.map((row) => CSV_COLUMNS.map((c) => cell(row[c])).join(','))].join('\r\n') + '\r\n';
}

/** The job's step sign-offs, invalidated ones too (they stay part of the record), oldest first. */
export function signoffRows(h: JobHistory) {
  return h.stepSignatures.map((sig) => ({
    stepId: sig.step_id,
    stepTitle: stepsOf(h.content).find((s) => s.step.id === sig.step_id)?.step.title ?? sig.step_id,
    meaning: sig.meaning,
    signerName: sig.signer_name,
    signerEmail: sig.signer_email,
    signedAt: sig.signed_at,
    valuesHash: sig.values_hash,
    invalidatedAt: sig.invalidated_at,
  }));
}

/** The job's deviations (kind, step title, value, comment, acknowledged by) and its review signature. */
export function deviationsDocument(h: JobHistory) {
  return {
    jobId: h.job.id,
    deviations: h.deviations.map((d) => ({
      id: d.id,
      kind: d.kind,
      stepId: d.step_id,
      stepTitle: d.step_id ? (stepsOf(h.content).find((s) => s.step.id === d.step_id)?.step.title ?? d.step_id) : null,
      fieldKey: d.field_key,
      value: d.value === null ? null : (JSON.parse(d.value) as unknown),
      detail: d.detail,
      raisedBy: d.raised_by === null ? null : (h.users.get(d.raised_by)?.email ?? `user ${d.raised_by}`),
      raisedAt: d.raised_at,
      comment: d.ack_comment,
      acknowledgedBy: d.acknowledged_by_name,
      acknowledgedAt: d.acknowledged_at,
    })),
    review: h.review && {
      meaning: 'REVIEWED',
      signerName: h.review.signer_name,
      signerEmail: h.review.signer_email,
      signedAt: h.review.signed_at,
      comment: h.review.comment || null,
      deviationsHash: h.review.deviations_hash,
    },
  };
}

/** @throws AppError NOT_FOUND (also another client's job) */
export async function jobReportZip(
  deps: Deps,
  files: PackageFiles,
  actor: UserActor,
  jobId: number,
  languages: readonly string[] = [],
): Promise<{ fileName: string; stream: Readable }> {
  const h = await loadJobHistory(deps, actor, jobId);
  // the PDF in the reader's language; values.csv/.json keep the source texts, as the data they are
  const printed = languages.length > 0 ? await loadJobHistory(deps, actor, jobId, languages) : h;
  const rows = valueRows(h);
  const records = [...h.records.values()].map((r) => recordFiles(h.content, r));
  const photoIds = [...new Set([...records.flatMap((r) => r.photos), ...h.faults.flatMap((f) => JSON.parse(f.photos) as number[])])];
  const signatureIds = [...new Set(records.flatMap((r) => r.signatures))];
  const mediaIds = [...new Set(stepsOf(h.content).flatMap(({ step }) => step.media))];
  const described = new Map((await files.describe(actor.scope, [...photoIds, ...signatureIds, ...mediaIds])).map((f) => [f.id, f]));
  const attached = (folder: string, ids: number[]): ZipSource[] =>
    ids.flatMap((id) => {
      const file = described.get(id);
      if (!file) return [];
      const name = file.name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-100);
      return [{ path: `${folder}/${id}-${name}`, open: () => files.open(actor.scope, id) }];
    });
  const stream = writeZip(
    [
      { path: `job-${jobId}.pdf`, open: () => jobPdfStream(deps, files, actor.scope, printed) },
      { path: 'values.csv', data: Buffer.from(toCsv(rows), 'utf8') },
      { path: 'values.json', data: Buffer.from(JSON.stringify({ jobId, values: rows }, null, 2) + '\n', 'utf8') },
      { path: 'signoffs.json', data: Buffer.from(JSON.stringify({ jobId, signoffs: signoffRows(h) }, null, 2) + '\n', 'utf8') },
      { path: 'deviations.json', data: Buffer.from(JSON.stringify(deviationsDocument(h), null, 2) + '\n', 'utf8') },
      ...attached('photos', photoIds),
      ...attached('signatures', signatureIds),
      ...attached('media', mediaIds),
    ],
    deps.clock.now(),
  );
  return { fileName: `job-${jobId}-report.zip`, stream };
}
