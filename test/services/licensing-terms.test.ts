import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createClient } from '#services/clients';
import { currentLicense, installLicense } from '#services/licensing/index';
import { BY_TEST, PASSWORD, refusal, seedClient, serviceDeps, type ServiceDeps } from '../helpers/service-deps';
import { DAY, FOREIGN_PRIVATE_KEY, issueTestLicense } from '../helpers/licenses';

// The license's terms as the services apply them: evaluation, an installed key's limits, expiry and grace.

const test = suite<{ deps: ServiceDeps }>('licensing terms (services)');

test.before.each(async (ctx) => {
  ctx.deps = await serviceDeps();
});

test.after.each(async ({ deps }) => {
  await deps.close();
});

const owner = (n: number) => ({ email: `licensing-owner${n}@example.com`, password: PASSWORD });

test('without a key the evaluation terms apply', async ({ deps }) => {
  const license = await currentLicense(deps);
  assert.is(license.status, 'evaluation');
  assert.is(license.readOnly, false);
  assert.is(license.terms.maxClients, 5);
});

test('an installed key limits clients and seats', async ({ deps }) => {
  await seedClient(deps, 2);
  await installLicense(deps, issueTestLicense({ maxClients: 1, seats: { full: 3, connect: 0 } }, { now: deps.clock.now() }), BY_TEST);
  assert.is((await currentLicense(deps)).status, 'active');
  const second = await refusal(createClient(deps, { name: 'One too many', owner: owner(1) }));
  assert.is(second.code, 'LICENSE_CLIENTS_EXHAUSTED');
  assert.equal(second.details, { maxClients: 1 });
});

test('a key not signed by a trusted key is refused and the previous terms stay', async ({ deps }) => {
  const refused = await refusal(
    installLicense(deps, issueTestLicense({}, { now: deps.clock.now(), privateKey: FOREIGN_PRIVATE_KEY }), BY_TEST),
  );
  assert.is(refused.code, 'LICENSE_INVALID');
  assert.is((await currentLicense(deps)).status, 'evaluation');
});

test('past expiry the grace period keeps full service with a warning; after it the appliance is read-only', async ({ deps }) => {
  const now = deps.clock.now();
  await installLicense(deps, issueTestLicense({ expiresAt: new Date(now.getTime() + 10 * DAY).toISOString() }, { now }), BY_TEST);
  deps.clock.advance(11 * DAY);
  const grace = await currentLicense(deps);
  assert.is(grace.status, 'grace');
  assert.ok(grace.warning);
  assert.not.ok(grace.readOnly);
  deps.clock.advance(deps.config.licenseGracePeriod);
  const expired = await currentLicense(deps);
  assert.is(expired.status, 'expired');
  assert.ok(expired.readOnly);
});

test.run();
