import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { BundleFile, CheckpointFile, CheckpointPayload, RecordPayload } from '#lib/record-bundle-format';

/**
 * Writes the JSON Schemas of the record bundle format into
 * docs/records/ from the zod schemas the verifier itself parses with
 * (src/lib/record-bundle-format.ts): the documented format and the checked
 * one cannot drift apart (test/unit/record-schemas.test.ts compares them).
 *   node dist/scripts/record-schemas.js
 */
export const SCHEMA_DIR = path.resolve(__dirname, '..', '..', 'docs', 'records');

const BASE = 'https://wip.invalid/schemas/records/';

function schemaOf(type: z.ZodType, id: string, title: string, description: string): string {
  const { $schema: _drafted, ...schema } = z.toJSONSchema(type, { target: 'draft-2020-12', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return (
    JSON.stringify(
      { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: `${BASE}${id}`, title, description, ...schema },
      null,
      2,
    ) + '\n'
  );
}

export function recordSchemaFiles(): Record<string, string> {
  return {
    'bundle.schema.json': schemaOf(
      BundleFile,
      'bundle.schema.json',
      'wip record bundle file, format version 1',
      'The file: jws.payload is base64url of the canonical JSON of a record (record.schema.json), signed as a flattened JWS (RFC 7515, EdDSA). See docs/records.md.',
    ),
    'record.schema.json': schemaOf(
      RecordPayload,
      'record.schema.json',
      'wip record (the signed payload of a bundle), version 2 (version 1 still verifies)',
      'What the appliance signs: the job, the approved instruction, every recorded value, sign-off, fault, hand-off, file hash, and the audit chain slice. See docs/records.md.',
    ),
    'checkpoint.schema.json': schemaOf(
      CheckpointFile,
      'checkpoint.schema.json',
      'wip audit checkpoint file, format version 1',
      'An exported checkpoint: jws.payload is base64url of the canonical JSON of checkpoint-payload.schema.json.',
    ),
    'checkpoint-payload.schema.json': schemaOf(
      CheckpointPayload,
      'checkpoint-payload.schema.json',
      'wip audit checkpoint payload, version 1',
      'A client chain head signed by the appliance: its seq and hash, and when.',
    ),
  };
}

if (require.main === module) {
  for (const [name, text] of Object.entries(recordSchemaFiles())) {
    fs.writeFileSync(path.join(SCHEMA_DIR, name), text);
    process.stdout.write(`wrote docs/records/${name}\n`);
  }
}
