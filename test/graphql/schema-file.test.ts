import fs from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildClientSchema, getIntrospectionQuery, printSchema } from 'graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { SCHEMA_FILE } from '../../scripts/export-graphql-schema';

let server: TestServer;
const schemaFile = suite('schema.graphql');
schemaFile.before(async () => {
  server = await startTestServer();
});
schemaFile.after(async () => server.stop());

schemaFile('the committed schema.graphql is the schema the running server introspects', async () => {
  const client = await buildClient(server);
  const viewer = await buildUser(server, client, { roles: ['viewer'], licenseType: 'connect' });
  const result = await gql(server, viewer.token, getIntrospectionQuery());
  assert.is(result.status, 200);
  assert.equal(result.errors, undefined, JSON.stringify(result.body).slice(0, 300));
  const running = printSchema(buildClientSchema(result.data)) + '\n';
  const committed = fs.existsSync(SCHEMA_FILE) ? fs.readFileSync(SCHEMA_FILE, 'utf8') : '';
  if (committed !== running) {
    const committedLines = committed.split('\n');
    const line = running.split('\n').findIndex((text, i) => text !== committedLines[i]);
    assert.unreachable(
      `schema.graphql is out of date (first difference at line ${line + 1}): run npm run graphql:schema and commit the file`,
    );
  }
});

schemaFile('introspection needs a signed-in user', async () => {
  const res = await server.request('POST', '/api/client/graphql', { body: { query: '{ __schema { types { name } } }' } });
  assert.is(res.status, 401);
});

schemaFile.run();
