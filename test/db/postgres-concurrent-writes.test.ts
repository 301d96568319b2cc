import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sql } from 'kysely';
import { startTestServer, TEST_MASTER_KEY, type TestServer } from '../helpers/server';
import { rolledBackTransactions, testPostgres } from '../helpers/postgres';
import { buildClient, PASSWORD, signIn, uniqueEmail } from '../helpers/factories';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';
import { gql } from '../helpers/graphql';
import { withTransaction } from '#db/transaction';
import { verifyAuditChain } from '#repos/audit';
import { AppError } from '#errors';

// Many writers of one client at once on two nodes of one PostgreSQL database:
// they queue per client (one at a time, as SQLite's single writer) instead of
// failing each other's SERIALIZABLE commits and retrying until 503.

const OPERATORS = 32;
const ROUNDS = 4;
const CONTENT = {
  sections: [
    {
      title: 'Inspection',
      steps: Array.from({ length: ROUNDS }, (_, s) => ({
        id: `s${s + 1}`,
        title: `Step ${s + 1}`,
        fields: [{ key: 'v', type: 'NUMBER', min: 0, max: 100, required: true }],
      })),
    },
  ],
};
const RECORD = 'mutation ($i: RecordStepInput!) { recordStep(input: $i) { revision } }';

let databaseUrl: string;
let a: TestServer;
let b: TestServer;
let stopped = false;

const writes = suite('concurrent writers of one client on PostgreSQL');
writes.before(async () => {
  databaseUrl = await (await testPostgres()).freshDatabaseUrl();
  const env = { ...DOMAIN_TEST_ENV, WIP_DATABASE_URL: databaseUrl, WIP_MASTER_KEY: TEST_MASTER_KEY };
  a = await startTestServer({ env });
  b = await startTestServer({ env, license: 'evaluation' });
});
writes.after(async () => {
  if (stopped) return;
  await a.stop();
  await b.stop();
});

const within = <T>(ms: number, what: string, promise: Promise<T>) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} still waiting after ${ms} ms`)), ms)),
  ]);

writes(
  'a writer that fails (an error in its transaction, or its connection killed) frees the client for the other node at once',
  async () => {
    const client = await buildClient(a);
    const failing = withTransaction(a.deps.db, { lockClient: client.id }, async () => {
      throw new AppError('VALIDATION_ERROR', 'refused inside the transaction');
    });
    await failing.then(
      () => assert.unreachable('the transaction threw'),
      (error) => assert.is(error.code, 'VALIDATION_ERROR'),
    );
    await within(
      3000,
      'node B after an error on A',
      withTransaction(b.deps.db, { lockClient: client.id }, async (trx) => sql`select 1`.execute(trx)),
    );

    const killed = withTransaction(a.deps.db, { lockClient: client.id }, async (trx) =>
      sql`select pg_terminate_backend(pg_backend_pid())`.execute(trx),
    );
    await killed.then(
      () => assert.unreachable('the connection died'),
      (error) => assert.is(error.code, 'SERVICE_UNAVAILABLE'),
    );
    await within(
      3000,
      'node B after a lost connection on A',
      withTransaction(b.deps.db, { lockClient: client.id }, async (trx) => sql`select 1`.execute(trx)),
    );
    await within(
      3000,
      'node A again',
      withTransaction(a.deps.db, { lockClient: client.id }, async (trx) => sql`select 1`.execute(trx)),
    );
  },
);

writes(
  `${OPERATORS} users created at once and ${OPERATORS} operators recording at once, across two nodes: every write succeeds (no 503), few roll back, the audit chain verifies`,
  async () => {
    const client = await buildClient(a, { seats: { full: 10, connect: OPERATORS } });
    const { templateId } = await publishedTemplate(a, client, CONTENT, 'Concurrent inspection');
    const nodeOf = (i: number) => (i % 2 === 0 ? a : b);
    const before = await rolledBackTransactions(databaseUrl);

    const created = await Promise.all(
      Array.from({ length: OPERATORS }, (_, i) =>
        nodeOf(i).request('POST', '/api/admin/user', {
          token: client.owner.token,
          body: { email: uniqueEmail('op'), password: PASSWORD, roles: ['operator'], licenseType: 'connect' },
        }),
      ),
    );
    assert.equal(
      created.map((res) => res.status),
      created.map(() => 201),
      created.find((res) => res.status !== 201)?.text,
    );

    const operators = await Promise.all(
      created.map(async (res, i) => {
        const token = await signIn(nodeOf(i), res.body.data.email, PASSWORD, client.id);
        const job = await createJob(nodeOf(i + 1), client.owner.token, { templateId, assigneeIds: [res.body.data.id] });
        return { token, jobId: job.id as number };
      }),
    );

    const recorded = await Promise.all(
      operators.flatMap((op, o) =>
        Array.from({ length: ROUNDS }, (_, r) =>
          gql(nodeOf(o + r), op.token, RECORD, {
            i: { jobId: `Job:${op.jobId}`, stepId: `s${r + 1}`, status: 'DONE', values: [{ key: 'v', value: (o + r) % 100 }] },
          }),
        ),
      ),
    );
    const failed = recorded.filter((res) => res.codes.length > 0 || res.status !== 200);
    assert.is(failed.length, 0, JSON.stringify(failed[0]?.body));

    const report = await verifyAuditChain(a.deps.db.kysely, client.id);
    assert.is(report.broken, null);
    // every job and every recording (and the template's entries) is in the chain
    assert.ok(report.entries >= OPERATORS * (1 + ROUNDS), `${report.entries} audit entries`);

    await a.stop();
    await b.stop();
    stopped = true;
    const writesMade = OPERATORS * (2 + ROUNDS);
    const rollbacks = (await rolledBackTransactions(databaseUrl)) - before;
    // without the per-client queue: several rollbacks per write (measured: hundreds here)
    assert.ok(rollbacks <= writesMade / 10, `${rollbacks} transactions rolled back for ${writesMade} concurrent writes`);
  },
);

writes.run();
