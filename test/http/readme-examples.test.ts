import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Kind, parse } from 'graphql';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, PASSWORD } from '../helpers/factories';
import { gql } from '../helpers/graphql';

/**
 * Every example of the documentation runs as written.
 *
 * A fenced block is an example to run when its info string says so after the language: ```sh example or
 * ```graphql example (renderers use the first word only). Every ```graphql block and every block calling curl must be
 * one — extraction is deliberate, and a new example cannot slip in untested. The examples run against real servers,
 * in document order:
 *
 * - GraphQL blocks: each operation of the block is sent on its own to POST /api/client/graphql of a fresh server
 *   holding one client whose users 1–5 are its Security Administrator (role admin) and an author, an approver, a
 *   publisher and an operator — so the ids an example writes are the ones a fresh appliance gives. The caller is named
 *   by the last whole-line comment naming a role (`# approver (not the author)`); `"their password"` is that user's
 *   password; a whole-line `# variables: {"id": 1}` gives the next operation its variables (JSON, "their password"
 *   replaced too). An operation must answer without errors, and what a trailing `# → …` comment states must be in its
 *   answer: every UPPER_CASE word as a value, every `name: value` pair as a field.
 * - Shell blocks run on their own in bash (-euo pipefail) against another fresh server: `localhost:8080` and
 *   `https://wip.example` stand for its address, `<the printed password>` for the system administrator's password,
 *   `$SECRET` for its containerNotificationSecret. A block must exit 0 and print no error envelope
 *   (`"success":false`) and no GraphQL `errors`.
 */

const ROOT = path.resolve(__dirname, '..', '..', '..');
const ROLES = ['admin', 'author', 'approver', 'publisher', 'operator'] as const;
const CONTAINER_SECRET = 'readme-container-secret-0123456789abcdef';

interface Example {
  /** where it is: file:line of the opening fence */
  at: string;
  lang: string;
  runnable: boolean;
  code: string;
}

/** The fenced blocks of a Markdown file. */
function fencedBlocks(file: string): Example[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const blocks: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)(.*)$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    blocks.push({
      at: `${path.relative(ROOT, file)}:${start + 1}`,
      lang: open[1],
      runnable: open[2].trim().split(/\s+/).includes('example'),
      code: body.join('\n'),
    });
  }
  return blocks;
}

function documentation(): Example[] {
  const docs = path.join(ROOT, 'docs');
  const markdown = (dir: string): string[] =>
    fs.existsSync(dir)
      ? fs
          .readdirSync(dir, { withFileTypes: true })
          .flatMap((e) => (e.isDirectory() ? markdown(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []))
      : [];
  return [path.join(ROOT, 'README.md'), ...markdown(docs).sort()].flatMap(fencedBlocks);
}

const examples = documentation();
const graphqlExamples = examples.filter((e) => e.runnable && e.lang === 'graphql');
const shellExamples = examples.filter((e) => e.runnable && (e.lang === 'sh' || e.lang === 'bash'));

const marking = suite('documentation examples are marked');

marking('every GraphQL block and every block calling curl is marked to run; only sh and graphql blocks are', () => {
  const unmarked = examples.filter((e) => !e.runnable && (e.lang === 'graphql' || /\bcurl\s/.test(e.code))).map((e) => e.at);
  assert.equal(unmarked, [], 'mark them ```graphql example / ```sh example');
  const unknown = examples.filter((e) => e.runnable && !['graphql', 'sh', 'bash'].includes(e.lang)).map((e) => `${e.at} (${e.lang})`);
  assert.equal(unknown, []);
  assert.ok(graphqlExamples.length > 0 && shellExamples.length > 0);
});

/** One operation of a GraphQL block: its text, who sends it, what its trailing `# →` comment states. */
interface Operation {
  at: string;
  text: string;
  role: (typeof ROLES)[number];
  variables: Record<string, unknown> | undefined;
  expected: string;
}

function operationsOf(example: Example): Operation[] {
  const code = example.code.replace(/"their password"/g, JSON.stringify(PASSWORD));
  let document;
  try {
    document = parse(code);
  } catch (error) {
    throw new Error(`${example.at}: ${(error as Error).message}`);
  }
  const lines = code.split('\n');
  const lineOf = (offset: number) => code.slice(0, offset).split('\n').length - 1;
  const operations: Operation[] = [];
  let role: (typeof ROLES)[number] = 'admin';
  let from = 0;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) throw new Error(`${example.at}: only operations, no fragments`);
    const { start, end } = definition.loc!;
    // whole-line comments before the operation name its caller, or give its variables
    let variables: Record<string, unknown> | undefined;
    for (let l = lineOf(from); l < lineOf(start); l++) {
      const comment = /^\s*#(.*)$/.exec(lines[l])?.[1];
      if (comment === undefined) continue;
      const given = /^\s*variables:\s*(\{.*\})\s*$/.exec(comment)?.[1];
      if (given) {
        variables = JSON.parse(given) as Record<string, unknown>;
        continue;
      }
      const named = ROLES.map((r) => ({ r, at: comment.search(new RegExp(`\\b${r}\\b`)) }))
        .filter((x) => x.at >= 0)
        .sort((a, b) => a.at - b.at)[0];
      if (named) role = named.r;
    }
    // the rest of the line the operation ends on
    const trailing = /^\s*#\s*→(.*)$/.exec(code.slice(end).split('\n')[0])?.[1] ?? '';
    const exampleLine = Number(example.at.split(':').pop()) + 1 + lineOf(start);
    operations.push({
      at: `${example.at.replace(/:\d+$/, '')}:${exampleLine}`,
      text: code.slice(start, end),
      role,
      variables,
      expected: trailing.trim(),
    });
    from = end;
  }
  return operations;
}

/** What a `# →` comment states that the answer must hold: UPPER_CASE values and `name: value` fields. */
function unmetExpectations(expected: string, answer: unknown): string[] {
  const json = JSON.stringify(answer);
  const missing: string[] = [];
  const pairs = [...expected.matchAll(/\b([a-z][A-Za-z]*): ("[^"]*"|[\w.-]+)/g)];
  for (const [whole, name, value] of pairs) {
    const literal = /^[A-Z][A-Z_]+$/.test(value) ? JSON.stringify(value) : value;
    if (!json.includes(`"${name}":${literal}`)) missing.push(whole);
  }
  const rest = pairs.reduce((text, [whole]) => text.replace(whole, ''), expected);
  for (const [word] of rest.matchAll(/\b[A-Z][A-Z_]{2,}\b/g)) if (!json.includes(JSON.stringify(word))) missing.push(word);
  return missing;
}

const graphqlRun = suite('the GraphQL examples run as written');
let graphqlServer: TestServer;
const tokens = new Map<string, string>();
graphqlRun.before(async () => {
  graphqlServer = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
  const client = await buildClient(graphqlServer, { name: 'Acme Pumps', seats: { full: 10, connect: 10 } });
  tokens.set('admin', client.owner.token);
  const ids = [client.owner.id];
  for (const role of ROLES.slice(1)) {
    const user = await buildUser(graphqlServer, client, { roles: [role] });
    tokens.set(role, user.token!);
    ids.push(user.id);
  }
  // the ids the examples write: a fresh appliance's first users
  assert.equal(ids, [1, 2, 3, 4, 5]);
});
graphqlRun.after(async () => graphqlServer.stop());

graphqlRun('every operation of every GraphQL example answers without errors and as its comment says', async () => {
  assert.ok(graphqlExamples.length > 0);
  for (const example of graphqlExamples) {
    for (const op of operationsOf(example)) {
      const result = await gql(graphqlServer, tokens.get(op.role), op.text, op.variables);
      const where = `${op.at} as ${op.role}: ${op.text.replace(/\s+/g, ' ').slice(0, 160)}`;
      assert.is(result.errors, undefined, `${where}\n→ ${JSON.stringify(result.body)}`);
      assert.is(result.status, 200, where);
      assert.equal(unmetExpectations(op.expected, result.data), [], `${where}\n→ ${JSON.stringify(result.data)}\nexpected: ${op.expected}`);
    }
  }
});

const shellRun = suite('the shell examples run as written');
let shellServer: TestServer;
shellRun.before(async () => {
  shellServer = await startTestServer({ env: { WIP_CONTAINER_NOTIFICATION_SECRET: CONTAINER_SECRET, WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
shellRun.after(async () => shellServer.stop());

function runShell(script: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      env: { ...process.env, SECRET: CONTAINER_SECRET },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

shellRun('every shell example exits 0 and prints no error', async () => {
  assert.ok(shellExamples.length > 0);
  // what the examples use, as a reader's machine would have it
  for (const tool of ['curl', 'jq', 'openssl'])
    assert.is((await runShell(`command -v ${tool}`)).code, 0, `the shell examples need ${tool} on PATH`);
  for (const example of shellExamples) {
    const script = example.code
      .replace(/https:\/\/wip\.example/g, shellServer.url)
      .replace(/(?:https?:\/\/)?localhost:8080/g, shellServer.url)
      .replace(/<the printed password>/g, ADMIN_PASSWORD);
    const { code, out } = await runShell(script);
    assert.is(code, 0, `${example.at} exited ${code}:\n${out}`);
    assert.not.match(out, /"success":\s*false|"errors":\s*\[/, `${example.at}:\n${out}`);
  }
});

marking.run();
graphqlRun.run();
shellRun.run();
