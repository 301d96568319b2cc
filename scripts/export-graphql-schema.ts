import fs from 'node:fs';
import path from 'node:path';
import { printSchema } from 'graphql';
import { buildAppSchema } from '#graphql/schema';

/**
 * Writes the GraphQL schema clients build against to schema.graphql at the
 * repository root (`npm run graphql:schema`). A test checks the committed file
 * against the running server's introspection, so it cannot drift.
 */
export const SCHEMA_FILE = path.resolve(__dirname, '..', '..', 'schema.graphql');

export function schemaSdl(): string {
  return printSchema(buildAppSchema()) + '\n';
}

if (require.main === module) {
  fs.writeFileSync(SCHEMA_FILE, schemaSdl());
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}
