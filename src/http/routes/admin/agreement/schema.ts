import { z } from 'zod';
import { PageQuery } from '#db/pagination';
import { IsoDateTime, ShortText } from '../../../schemas';

const Kind = z.enum(['eula', 'msa']);
const Markdown = z.string().max(200_000);
/** an uploaded PDF travels base64-encoded in the JSON body (bounded by the body limit, bodyLimit / WIP_BODY_LIMIT) */
const PdfBase64 = z.string().regex(/^[A-Za-z0-9+/=\s]+$/, 'must be base64');
/** a PDF uploaded with POST /api/admin/upload (instead of pdfBase64) */
const FileId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const FileName = z
  .string()
  .trim()
  .regex(/^[\w. ()-]{1,100}\.pdf$/i, 'must be a file name ending in .pdf');

export const ListAgreements = PageQuery.extend({ kind: Kind.optional() });

export const CreateAgreement = z.object({
  kind: Kind,
  version: z.string().trim().min(1).max(50),
  title: ShortText(200).min(1),
  bodyMarkdown: Markdown.nullable().optional(),
  pdfBase64: PdfBase64.nullable().optional(),
  fileId: FileId.optional(),
  fileName: FileName.optional(),
  /** when it becomes the current version; now when omitted */
  effectiveAt: IsoDateTime.optional(),
  /** publishing it makes acceptances of earlier versions stale */
  requiresReacceptance: z.boolean().default(false),
});

export const UpdateAgreement = z.object({
  title: ShortText(200).min(1).optional(),
  bodyMarkdown: Markdown.nullable().optional(),
  /** a new PDF, or null to drop the uploaded one (the Markdown is rendered instead) */
  pdfBase64: PdfBase64.nullable().optional(),
  fileId: FileId.optional(),
  fileName: FileName.optional(),
  effectiveAt: IsoDateTime.optional(),
  requiresReacceptance: z.boolean().optional(),
});
