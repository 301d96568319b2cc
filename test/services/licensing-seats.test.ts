import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createClient } from '#services/clients';
import { createUser, deleteUser } from '#services/users';
import { currentLicense, installLicense, licenseOverview } from '#services/licensing/index';
import { changeUserLicenseTypes, clientLicense } from '#services/licensing/client-license';
import { createLicense, deleteLicense, updateLicense } from '#services/licensing/seat-allocations';
import { getDeploymentState } from '#repos/licensing/index';
import type { LicenseType, Role } from '#policies/roles';
import type { TenantScope } from '#db/tenant';
import { play } from '../helpers/scenarios';
import { BY_TEST, PASSWORD, refusal, seedClient, serviceDeps, type ServiceDeps } from '../helpers/service-deps';
import { DAY, FOREIGN_PRIVATE_KEY, issueTestLicense } from '../helpers/licenses';

// Seats and the license key's terms where they are enforced: a client's seats of a type (the sum of its unexpired
// allocations), users moved between types all or nothing, allocations that may not fall below the users holding
// them nor rise past the key's totals, the evaluation allowance, and keys refused with their reason. Who may call
// the licensing routes and what they answer: test/http/client-license, admin-client-license, admin-license-on-prem.

const test = suite<{ deps: ServiceDeps }>('licensing: seats, allocations, allowances, keys (services)');
test.before.each(async (ctx) => {
  ctx.deps = await serviceDeps();
});
test.after.each(async ({ deps }) => {
  await deps.close();
});

let people = 0;
/** a user of the client on a seat of `licenseType` */
const member = (deps: ServiceDeps, scope: TenantScope, roles: Role[], licenseType: LicenseType = 'full') =>
  createUser(deps, scope, { email: `seat${++people}@example.com`, roles, licenseType, password: PASSWORD }, BY_TEST);

/** a client with `full` full seats (owner included) and `connect` connect seats */
async function clientWith(deps: ServiceDeps, full: number, connect: number) {
  const seeded = await seedClient(deps, full);
  if (connect > 0) await createLicense(deps, { clientId: seeded.client.id, licenseType: 'connect', seats: connect }, BY_TEST);
  return seeded;
}

const seats = async (deps: ServiceDeps, scope: TenantScope) => (await clientLicense(deps, scope)).seats;

test('a move to another type needs the roles the type allows, and a free seat of it after the whole batch; nothing changes when refused', async ({
  deps,
}) => {
  const { scope } = await clientWith(deps, 4, 1);
  const author = await member(deps, scope, ['author']);
  const a = await member(deps, scope, ['viewer']);
  const roleRefused = await refusal(changeUserLicenseTypes(deps, scope, [{ userId: author.id, licenseType: 'connect' }], BY_TEST));
  assert.equal(
    [roleRefused.code, (roleRefused.details?.fields as { path: string }[])[0].path],
    ['VALIDATION_ERROR', 'body.changes.0.licenseType'],
    'connect allows operator and viewer only',
  );
  // two viewers to connect, one connect seat
  const b = await member(deps, scope, ['viewer']);
  const full = await refusal(
    changeUserLicenseTypes(
      deps,
      scope,
      [
        { userId: a.id, licenseType: 'connect' },
        { userId: b.id, licenseType: 'connect' },
      ],
      BY_TEST,
    ),
  );
  assert.is(full.code, 'LICENSE_SEATS_EXHAUSTED');
  assert.equal((await seats(deps, scope)).connect, { allocated: 1, used: 0, free: 1 }, 'all or nothing');
});

test('a batch swaps two users when every seat is taken: the seats are counted once, at its end', async ({ deps }) => {
  const { scope } = await clientWith(deps, 2, 1);
  const a = await member(deps, scope, ['viewer'], 'full');
  const b = await member(deps, scope, ['viewer'], 'connect');
  const swapped = await changeUserLicenseTypes(
    deps,
    scope,
    [
      { userId: a.id, licenseType: 'connect' },
      { userId: b.id, licenseType: 'full' },
    ],
    BY_TEST,
  );
  assert.equal(
    swapped.users.map((u) => u.license_type),
    ['connect', 'full'],
  );
  assert.equal(swapped.seats.full, { allocated: 2, used: 2, free: 0 });
});

test("a client's seats of a type are the sum of its unexpired allocations: an expired one no longer counts", async ({ deps }) => {
  const { client, scope } = await clientWith(deps, 1, 0);
  await createLicense(
    deps,
    { clientId: client.id, licenseType: 'full', seats: 2, expiresAt: new Date(deps.clock.now().getTime() + DAY).toISOString() },
    BY_TEST,
  );
  await member(deps, scope, ['viewer']);
  const second = await member(deps, scope, ['viewer']);
  assert.is((await refusal(member(deps, scope, ['viewer']))).code, 'LICENSE_SEATS_EXHAUSTED');
  deps.clock.advance(2 * DAY);
  assert.equal((await seats(deps, scope)).full, { allocated: 1, used: 3, free: 0 });
  // freeing one seat is not enough once the extra allocation expired
  await deleteUser(deps, scope, second.id, BY_TEST);
  assert.is((await refusal(member(deps, scope, ['viewer']))).code, 'LICENSE_SEATS_EXHAUSTED');
});

test('an allocation may not fall below the users holding its seats (CONFLICT), by a change or a delete; otherwise it may', async ({
  deps,
}) => {
  const { client, scope } = await clientWith(deps, 3, 0);
  await member(deps, scope, ['author']);
  const [allocation] = await deps.db.kysely.selectFrom('licenses').selectAll().where('client_id', '=', client.id).execute();
  const tooFew = await refusal(updateLicense(deps, allocation.id, { seats: 1 }, BY_TEST));
  assert.equal([tooFew.code, tooFew.details?.used], ['CONFLICT', 2]);
  assert.is((await updateLicense(deps, allocation.id, { seats: 2 }, BY_TEST)).seats, 2);
  assert.is((await refusal(deleteLicense(deps, allocation.id, BY_TEST))).code, 'CONFLICT');
  const spare = await createLicense(deps, { clientId: client.id, licenseType: 'connect', seats: 5 }, BY_TEST);
  await deleteLicense(deps, spare.id, BY_TEST);
  assert.is((await refusal(deleteLicense(deps, spare.id, BY_TEST))).code, 'NOT_FOUND');
});

test('the evaluation allowance: 5 clients and 25 seats of a type across them; growing past it is refused, shrinking never', async ({
  deps,
}) => {
  assert.is((await currentLicense(deps)).status, 'evaluation');
  const ids: number[] = [];
  for (let i = 0; i < 5; i++)
    ids.push(
      (await createClient(deps, { name: `Evaluation ${i}`, owner: { email: `eval${i}@example.com` }, seats: { full: 5 } })).client.id,
    );
  const sixth = await refusal(createClient(deps, { name: 'Sixth', owner: { email: 'eval6@example.com' } }));
  assert.is(sixth.code, 'LICENSE_CLIENTS_EXHAUSTED');
  const more = await refusal(createLicense(deps, { clientId: ids[0], licenseType: 'full', seats: 1 }, BY_TEST));
  assert.equal([more.code, more.details], ['LICENSE_SEATS_EXHAUSTED', { licenseType: 'full', total: 25, allocated: 26 }]);
  const [allocation] = await deps.db.kysely.selectFrom('licenses').selectAll().where('client_id', '=', ids[1]).execute();
  assert.is((await refusal(updateLicense(deps, allocation.id, { seats: 6 }, BY_TEST))).code, 'LICENSE_SEATS_EXHAUSTED');
  assert.is((await updateLicense(deps, allocation.id, { seats: 4 }, BY_TEST)).seats, 4);
  assert.equal((await licenseOverview(deps)).usage.clients, { count: 5, max: 5 });
});

test("an installed key's seat totals bound the sum of the clients' allocations, at a new allocation and at a new client", async ({
  deps,
}) => {
  await installLicense(deps, issueTestLicense({ seats: { full: 10, connect: 10 } }, { now: deps.clock.now() }), BY_TEST);
  const { client } = await seedClient(deps, 1);
  await createLicense(deps, { clientId: client.id, licenseType: 'full', seats: 9 }, BY_TEST);
  assert.is(
    (await refusal(createLicense(deps, { clientId: client.id, licenseType: 'full', seats: 1 }, BY_TEST))).code,
    'LICENSE_SEATS_EXHAUSTED',
  );
  assert.is((await refusal(createClient(deps, { name: 'Over', owner: { email: 'over@example.com' } }))).code, 'LICENSE_SEATS_EXHAUSTED');
  assert.equal((await licenseOverview(deps)).usage.seats.full, { total: 10, allocated: 10, used: 1, unallocated: 0 });
});

test('a key is refused with its reason — signature, key id, expired, another installation, malformed — and the previous stays; one bound here is taken', async ({
  deps,
}) => {
  const now = deps.clock.now();
  await installLicense(deps, issueTestLicense({ licenseId: 'L-previous' }, { now }), BY_TEST);
  const cases: [string, string][] = [
    [issueTestLicense({}, { now, privateKey: FOREIGN_PRIVATE_KEY }), 'bad_signature'],
    [issueTestLicense({ kid: 'vendor-x' }, { now, privateKey: FOREIGN_PRIVATE_KEY }), 'unknown_key_id'],
    [
      issueTestLicense(
        { issuedAt: new Date(now.getTime() - 40 * DAY).toISOString(), expiresAt: new Date(now.getTime() - DAY).toISOString() },
        { now },
      ),
      'expired',
    ],
    [issueTestLicense({ installationId: 'some-other-installation' }, { now }), 'wrong_deployment'],
    ['not-a-key', 'malformed'],
  ];
  // each refused with its reason, a security-log entry, and nothing installed
  for (const [key, reason] of cases)
    await play(deps, null, {
      when: () => installLicense(deps, key, BY_TEST),
      then: {
        error: { code: 'LICENSE_INVALID', status: 422, details: { reason } },
        securityLog: [{ event: 'license.install_failed', level: 'warn', data: { reason } }],
        signals: { logWritten: 1 },
      },
    }).catch((error: Error) => {
      throw new Error(`${reason}: ${error.message}`);
    });
  assert.is((await currentLicense(deps)).terms.licenseId, 'L-previous');
  const { installation_id: installationId } = await getDeploymentState(deps.db.kysely);
  const bound = await installLicense(deps, issueTestLicense({ installationId, licenseId: 'L-bound' }, { now }), BY_TEST);
  assert.equal([bound.license.status, bound.license.terms.licenseId], ['active', 'L-bound']);
});

test.run();
