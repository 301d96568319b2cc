import { z } from 'zod';
import type { AppContext } from './state';

/**
 * Reports answer JSON (the envelope) by default and CSV on request: `?format=csv`
 * (wins, for links and spreadsheets' "from web") or `Accept: text/csv`.
 */
export const ReportFormat = z.enum(['json', 'csv']).optional();

export function wantsCsv(ctx: AppContext, format: 'json' | 'csv' | undefined): boolean {
  ctx.vary('Accept');
  if (format) return format === 'csv';
  return ctx.accepts('application/json', 'text/csv') === 'text/csv';
}

/** Answers a CSV document (written by src/lib/csv.ts) as a download named `filename`. */
export function sendCsv(ctx: AppContext, filename: string, text: string): void {
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.type = 'text/csv; charset=utf-8';
  ctx.body = text;
}
