import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { generateTypes } from 'wip-client-generator';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, type BuiltClient } from '../helpers/factories';

// The served document is good enough for a mainstream generator. openapi-typescript turns it into
// types, and an integrator's program (test/fixtures/typed-client/program.ts, openapi-fetch, no casts) must compile
// under `tsc --strict` and do a realistic session against a real server.
const root = path.resolve(__dirname, '..', '..', '..');
const PROGRAM = path.join(root, 'test', 'fixtures', 'typed-client', 'program.ts');

let server: TestServer;
let client: BuiltClient;
let work: string;
const typed = suite('a client generated from GET /api/openapi.json');
typed.before(async () => {
  server = await startTestServer({ env: { WIP_ACCESS_TOKEN_TTL: '15m' } });
  client = await buildClient(server);
  await buildUser(server, client);
  await buildUser(server, client);
  // the program downloads the MSA as PDF (rendered from its Markdown)
  const published = await server.request('POST', '/api/admin/agreement', {
    token: await adminToken(server),
    body: { kind: 'msa', version: '1.0', title: 'Terms', bodyMarkdown: '# Terms\n\nBe nice.' },
  });
  assert.is(published.status, 201, published.text);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-typed-client-'));
});
typed.after(async () => {
  await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

typed('the program has no casts', () => {
  const source = fs.readFileSync(PROGRAM, 'utf8').replace(/\/\/.*$/gm, '');
  assert.not.match(source, /\bas\s+(?!const\b)[\w{[(]/, 'an `as` cast');
  assert.not.match(source, /\bas const\b|<\w+>\s*\w/, 'a cast');
  assert.not.match(source, /@ts-(ignore|expect-error|nocheck)|\bany\b/, 'an escape hatch');
});

typed('generates, compiles under tsc --strict and runs: sign-in, TOKEN_EXPIRED refresh, user pages, upload, PDF, GraphQL', async () => {
  const document = (await server.request('GET', '/api/openapi.json')).body;
  const types = await generateTypes(document);
  // the client `npm run build` publishes (dist/client/, docs/api/openapi.md, "Typed client") is this one
  assert.ok(
    types === fs.readFileSync(path.join(root, 'dist', 'client', 'schema.d.ts'), 'utf8'),
    'dist/client/schema.d.ts is stale: npm run build',
  );
  fs.writeFileSync(path.join(work, 'schema.d.ts'), types);
  fs.copyFileSync(PROGRAM, path.join(work, 'program.ts'));
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(work, 'node_modules'), 'dir');
  fs.writeFileSync(path.join(work, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.writeFileSync(
    path.join(work, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2023', 'dom'],
        types: ['node'],
        strict: true,
        noUncheckedIndexedAccess: true,
        outDir: 'out',
        skipLibCheck: false,
      },
      files: ['program.ts'],
    }),
  );
  // TypeScript 7's tsc (the `typescript` package is TypeScript 6's API for the lint: docs/development.md)
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules', '@typescript', 'native', 'bin', 'tsc'), '-p', work], {
    encoding: 'utf8',
  });
  assert.is(tsc.status, 0, `tsc --strict:\n${tsc.stdout}${tsc.stderr}`);

  const run = spawn(process.execPath, [path.join(work, 'out', 'program.js')], {
    env: { ...process.env, WIP_URL: server.url, WIP_EMAIL: client.owner.email, WIP_PASSWORD: client.owner.password },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  run.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: run.stdout })[Symbol.asyncIterator]();
  const signedIn = await lines.next();
  assert.is(signedIn.value, 'signed-in', stderr);
  // past the access token's lifetime (WIP_ACCESS_TOKEN_TTL), within the refresh token's: the next call answers 401 TOKEN_EXPIRED
  server.clock.advance(15 * 60_000 + 1000);
  run.stdin.end('go\n');
  const result = await lines.next();
  const exitCode = await new Promise<number | null>((resolve) =>
    run.exitCode !== null ? resolve(run.exitCode) : run.once('exit', resolve),
  );
  assert.is(exitCode, 0, stderr);
  const answer = JSON.parse(String(result.value));

  assert.is(answer.refreshes, 1, stderr);
  const users = await server.request('GET', '/api/admin/user?limit=200', { token: await freshToken() });
  assert.equal(
    answer.users,
    users.body.data.items.map((u: { email: string }) => u.email),
  );
  assert.is(answer.users.length, 3);
  assert.is(answer.msa, '1.0');
  assert.is(answer.upload.name, 'note.txt');
  assert.is(answer.upload.size, Buffer.byteLength('a note from the typed client\n'));
  assert.is(answer.pdf.contentType, 'application/pdf');
  assert.is(answer.pdf.head, '%PDF-');
  assert.ok(answer.pdf.bytes > 100);
  assert.equal(answer.graphql, { id: answer.graphql.id, email: client.owner.email });
  assert.match(answer.graphql.id, /^User:/);
});

/** The owner's token from before() expired with the clock: sign in again. */
async function freshToken(): Promise<string> {
  const res = await server.request('POST', '/api/client/auth/sign-in', {
    body: { email: client.owner.email, password: client.owner.password },
  });
  return res.body.data.token;
}

typed.run();
