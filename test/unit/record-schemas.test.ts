import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recordSchemaFiles, SCHEMA_DIR } from '../../scripts/record-schemas';

// The JSON Schemas in docs/records/ are generated from the zod schemas the
// verifier parses with: a change to the format without regenerating them
// (node dist/scripts/record-schemas.js) fails here.

test('docs/records/*.schema.json are current', () => {
  for (const [name, text] of Object.entries(recordSchemaFiles())) {
    const file = path.join(SCHEMA_DIR, name);
    assert.ok(fs.existsSync(file), `${file} is missing: run node dist/scripts/record-schemas.js`);
    assert.is(fs.readFileSync(file, 'utf8'), text, `${name} is stale: run node dist/scripts/record-schemas.js`);
  }
});

test.run();
