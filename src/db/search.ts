import { sql, type RawBuilder } from 'kysely';

/** `%text%` for LIKE, lower-cased, with LIKE's wildcards escaped (escape character `\`). */
export const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Case-insensitive "column contains text", portable (lower() and LIKE … ESCAPE exist in SQLite and PostgreSQL). */
export function columnContains(column: string, text: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${containing(text)} escape '\\'`;
}
