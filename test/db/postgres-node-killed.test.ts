import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openPostgres } from '#db/connection';
import { insertOutbox } from '#repos/outbox';
import { startDaemon, type SpawnedDaemon } from '../helpers/cli';
import { testPostgres } from '../helpers/postgres';
import { TEST_MASTER_KEY } from '../helpers/server';
import { cliEnv } from '../helpers/spawn-wip';
import { startTestSmtp } from '../helpers/smtp';
import { waitFor } from '../helpers/wait';

// Two `wip serve` processes on one PostgreSQL database deliver a queue of mail
// together; one is killed (SIGKILL) in the middle of a send. Every message
// arrives exactly once: the killed node's claim runs out (WIP_OUTBOX_LEASE)
// and the other node sends it.

const MESSAGES = 50;

test('50 queued mails are delivered exactly once by two nodes when one is killed mid-send; its claimed message goes to the other node', async () => {
  const smtp = await startTestSmtp();
  const databaseUrl = await (await testPostgres()).freshDatabaseUrl();
  const db = openPostgres(databaseUrl, { poolSize: 2 });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-killed-'));
  const nodes: SpawnedDaemon[] = [];
  try {
    const now = new Date().toISOString();
    const subjects = Array.from({ length: MESSAGES }, (_, i) => `queued mail ${i}`);
    for (const subject of subjects) {
      await insertOutbox(
        db.kysely,
        { client_id: null, user_id: null, kind: 'test', to_address: 'someone@example.test', subject, text_body: 'hello' },
        now,
      );
    }
    // node A is held at its first send once a fifth of the queue has arrived, and killed there
    const held = smtp.holdNext((helo) => helo === 'node-a' && smtp.messages.length >= MESSAGES / 5);
    const nodeEnv = (name: string) => ({
      ...cliEnv(fs.mkdirSync(path.join(root, name), { recursive: true })!),
      WIP_DATABASE_URL: databaseUrl,
      WIP_MASTER_KEY: TEST_MASTER_KEY,
      // the SMTP peer tells the nodes apart by the name they greet with
      WIP_SMTP_URL: `${smtp.url}?name=${name}`,
      WIP_MAIL_POLL_INTERVAL: '100ms',
      WIP_OUTBOX_LEASE: '2s',
    });
    const a = await startDaemon([], nodeEnv('node-a'));
    nodes.push(a);
    await held.reached;
    // the message node A is sending is claimed (its next attempt moved off the queued time to a lease) and not
    // sent. Read now, while A is held: once node B has started (which can take longer than the 2 s lease on a
    // loaded machine) an expired lease no longer looks like a claim, and B's own claims would look like A's.
    const leased = await db.kysely
      .selectFrom('outbox')
      .select(['id', 'subject'])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<>', now)
      .execute();
    assert.ok(leased.length >= 1, 'node A held a claim when it died');
    const b = await startDaemon([], nodeEnv('node-b'));
    nodes.push(b);
    assert.is(await a.stop('SIGKILL'), null);
    held.release();

    await waitFor('every message to arrive', () => new Set(smtp.messages.map((m) => m.subject)).size >= MESSAGES, 30_000);
    // the SMTP server records a message before it answers, and the node marks the row `sent` after the answer:
    // wait for the rows, not a fixed time
    const unsent = async () => (await db.kysely.selectFrom('outbox').select(['status']).where('status', '<>', 'sent').execute()).length;
    await waitFor('every row to be marked sent', async () => (await unsent()) === 0);
    // nothing is sent a second time: node A is dead, and node B, stopped, has finished every send it began
    // (a sent row is never claimed again)
    assert.is(await b.stop(), 0);
    const received = smtp.messages.map((m) => m.subject);
    assert.equal([...received].sort(), [...subjects].sort());
    for (const { subject } of leased) assert.ok(received.includes(subject), `${subject} (claimed by the killed node) arrived`);
    assert.is(await unsent(), 0, 'every row is marked sent');
  } finally {
    for (const node of nodes) await node.stop('SIGKILL').catch(() => undefined);
    await db.close();
    await smtp.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test.run();
