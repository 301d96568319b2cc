import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LicenseCache } from '#licensing/cache';
import { loadTrustedKeys } from '#licensing/trusted-keys';
import { FEATURES } from '#licensing/terms';
import { installLicense } from '#services/licensing/index';
import { subscribe } from '#services/push';
import { createSkill, grantSkill, noticeSkillExpiries } from '#services/qualifications';
import { BY_TEST, seedClient, serviceDeps, type ServiceDeps } from '../helpers/service-deps';
import { DAY, issueTestLicense } from '../helpers/licenses';

// queuePush checks the license's `push` feature inside the transaction of its
// notification. The daemon's daily round (noticeSkillExpiries) is the first to
// read the license after a start, so there the license cache is cold: the
// installed key is read and the newest time seen falls due inside the
// transaction. On SQLite the pool's one connection is the transaction's, so a
// read beside it would wait forever; it must go through the transaction.

const test = suite<{ deps: ServiceDeps; stuck: boolean }>('push queued inside a transaction with a cold license cache (services)');

test.before.each(async (ctx) => {
  ctx.deps = await serviceDeps();
  ctx.stuck = false;
});

test.after.each(async ({ deps, stuck }) => {
  // a transaction that never settles holds the connection: closing would wait for it too
  if (!stuck) await deps.close();
});

const META = { ip: null, userAgent: null };

/** The promise's value, or a failure once `ms` passed instead of a test that waits forever. */
async function settled<T>(ctx: { stuck: boolean }, what: string, promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ctx.stuck = true;
      reject(new Error(`${what} did not settle within ${ms} ms (a read waiting for the connection its transaction holds?)`));
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A client with a key installed, a skill granted to a subscribed holder expiring in 10 days, and the next day's round due. */
async function expiringGrant(deps: ServiceDeps, features: readonly string[]) {
  const { owner, user } = await seedClient(deps);
  await installLicense(deps, issueTestLicense({ features: [...features] }, { now: deps.clock.now() }), BY_TEST);
  const supervisor = await user(['publisher']);
  const holder = await user(['operator']);
  await subscribe(deps, holder, {
    endpoint: 'http://127.0.0.1:9/push/holder',
    keys: { p256dh: 'BPublicKeyOfTheHolder', auth: 'holder-auth' },
  });
  const skill = await createSkill(deps, owner, { name: 'Crane operation' });
  const expiresAt = new Date(deps.clock.now().getTime() + 10 * DAY).toISOString();
  await grantSkill(deps, supervisor, { userId: holder.userId, skillId: skill.id, expiresAt }, META);
  // a day later: the newest time seen is due to be recorded again
  deps.clock.advance(DAY);
}

/** The daemon after a restart: the same database, nothing read into the license cache yet. */
const restarted = (deps: ServiceDeps): ServiceDeps => ({ ...deps, licenseCache: new LicenseCache(loadTrustedKeys()) });

const queuedKinds = async (deps: ServiceDeps) =>
  (await deps.db.kysely.selectFrom('push_outbox').select('kind').execute()).map((r) => r.kind);

test("the daemon's first round after a start queues the push of an expiring skill", async (ctx) => {
  const { deps } = ctx;
  await expiringGrant(deps, FEATURES);
  const pushes = deps.signalled.pushQueued;
  assert.is(await settled(ctx, 'the daily round', noticeSkillExpiries(restarted(deps))), 1);
  assert.equal(await queuedKinds(deps), ['skill_expiring']);
  assert.is(deps.signalled.pushQueued, pushes + 1);
});

test('read inside the transaction, an installed key without `push` still stops the push (the mail round goes on)', async (ctx) => {
  const { deps } = ctx;
  await expiringGrant(
    deps,
    FEATURES.filter((f) => f !== 'push'),
  );
  assert.is(await settled(ctx, 'the daily round', noticeSkillExpiries(restarted(deps))), 1);
  assert.equal(await queuedKinds(deps), []);
});

test.run();
