import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';

type ExcelJs = typeof import('exceljs');
let excel: ExcelJs | undefined;

/** exceljs (and its zip writer) is loaded on the first export, not at start-up. */
function loadExcel(): ExcelJs {
  excel ??= require('exceljs') as ExcelJs;
  return excel;
}

export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export interface XlsxColumn<T> {
  header: string;
  width?: number;
  value: (row: T) => string | number | boolean | Date | null;
}

/**
 * A one-sheet workbook written by exceljs's streaming writer while `batches`
 * are read: each row is committed (flushed into the zip) as it is added, and
 * the next batch waits while the reader is behind, so memory stays bounded by
 * a batch, not by the export. Cells are typed values, never formulas, so
 * user-typed text cannot become one. A failure half-way destroys the stream
 * (the client sees a broken download, not a truncated file that looks whole)
 * and is reported to `onError`.
 */
export function xlsxStream<T>(
  sheetName: string,
  columns: readonly XlsxColumn<T>[],
  batches: AsyncIterable<T[]>,
  onError: (error: unknown) => void,
): Readable {
  const out = new PassThrough();
  const workbook = new (loadExcel().stream.xlsx.WorkbookWriter)({ stream: out, useStyles: true, useSharedStrings: false });
  // the header row stays in view while scrolling
  const sheet = workbook.addWorksheet(sheetName, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = columns.map((c, i) => ({ header: c.header, key: `c${i}`, width: c.width ?? 18 }));
  sheet.getRow(1).font = { bold: true };
  (async () => {
    for await (const batch of batches) {
      for (const row of batch) sheet.addRow(columns.map((c) => c.value(row))).commit();
      if (out.writableNeedDrain) await once(out, 'drain');
    }
    sheet.commit();
    await workbook.commit();
  })().catch((error: unknown) => {
    onError(error);
    out.destroy(error instanceof Error ? error : new Error(String(error)));
  });
  return out;
}
