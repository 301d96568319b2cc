import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sql } from 'kysely';
import { verifyAuditTrailAcrossClients } from '#services/audit';
import {
  approveVersion,
  createDraft,
  createTemplate,
  diffVersions,
  publishVersion,
  rejectVersion,
  submitVersion,
  updateDraft,
} from '#services/templates';
import type { UserActor } from '#services/actor';
import { PASSWORD, refusal, seedClient, serviceDeps, type ServiceDeps } from '../helpers/service-deps';

// The version life cycle, its signatures, the diff and the audit chain, called on the services directly:
// no server, no HTTP, an in-memory database.

const META = { ip: null, userAgent: null };
const CONTENT = {
  sections: [
    {
      title: 'Preparation',
      steps: [
        { id: 'isolate', title: 'Isolate the pump', fields: [{ key: 'locked', type: 'PASS_FAIL', required: true }] },
        {
          id: 'pressure',
          title: 'Read the pressure',
          fields: [{ key: 'bar', type: 'NUMBER', unit: 'bar', min: 1, max: 3, required: true }],
        },
      ],
    },
  ],
};

const test = suite<{
  deps: ServiceDeps;
  author: UserActor;
  approver: UserActor;
  publisher: UserActor;
  operator: UserActor;
  clientId: number;
}>('template versions (services)');

test.before(async (ctx) => {
  ctx.deps = await serviceDeps();
  const seeded = await seedClient(ctx.deps);
  ctx.clientId = seeded.client.id;
  ctx.author = await seeded.user(['author']);
  ctx.approver = await seeded.user(['approver']);
  ctx.publisher = await seeded.user(['publisher']);
  ctx.operator = await seeded.user(['operator']);
});

test.after(async ({ deps }) => {
  await deps.close();
});

test('a version goes DRAFT → IN_REVIEW → APPROVED → PUBLISHED, by the table of transitions and its roles', async ({
  deps,
  author,
  approver,
  publisher,
  operator,
}) => {
  const template = await createTemplate(deps, author, { title: 'Pump maintenance', content: CONTENT });
  const v1 = (
    await deps.db.kysely.selectFrom('template_versions').selectAll().where('template_id', '=', template.id).executeTakeFirstOrThrow()
  ).id;

  assert.is((await refusal(submitVersion(deps, operator, v1))).code, 'FORBIDDEN', 'an operator may not submit');
  assert.is(
    (await refusal(approveVersion(deps, approver, v1, { password: PASSWORD }, META))).code,
    'INVALID_TRANSITION',
    'a draft cannot be approved',
  );

  const events = deps.signalled.clientEvent;
  assert.is((await submitVersion(deps, author, v1)).state, 'IN_REVIEW');
  assert.ok(deps.signalled.clientEvent > events, 'the committed event is announced through the signals port');

  const wrong = await refusal(approveVersion(deps, approver, v1, { password: 'not the password at all' }, META));
  assert.is(wrong.code, 'INVALID_CREDENTIALS', 'a signature re-authenticates the signer');
  assert.is((await refusal(approveVersion(deps, author, v1, { password: PASSWORD }, META))).code, 'FORBIDDEN', 'an author is no approver');

  assert.is((await approveVersion(deps, approver, v1, { password: PASSWORD }, META)).state, 'APPROVED');
  assert.is((await publishVersion(deps, publisher, v1, { password: PASSWORD }, META)).state, 'PUBLISHED');
  assert.is((await refusal(submitVersion(deps, author, v1))).code, 'INVALID_TRANSITION', 'a published version is not submitted again');
});

test('a rejection needs a reason and returns the version to DRAFT', async ({ deps, author, approver }) => {
  const template = await createTemplate(deps, author, { title: 'Valve check', content: CONTENT });
  const v1 = (
    await deps.db.kysely.selectFrom('template_versions').select('id').where('template_id', '=', template.id).executeTakeFirstOrThrow()
  ).id;
  await submitVersion(deps, author, v1);
  const empty = await refusal(rejectVersion(deps, approver, v1, '   '));
  assert.is(empty.code, 'VALIDATION_ERROR');
  const rejected = await rejectVersion(deps, approver, v1, 'The pressure range is wrong');
  assert.is(rejected.state, 'DRAFT');
});

test('the diff of two versions names the changed, added and removed steps', async ({ deps, author, approver, publisher }) => {
  const template = await createTemplate(deps, author, { title: 'Filter change', content: CONTENT });
  const v1 = (
    await deps.db.kysely.selectFrom('template_versions').select('id').where('template_id', '=', template.id).executeTakeFirstOrThrow()
  ).id;
  await submitVersion(deps, author, v1);
  await approveVersion(deps, approver, v1, { password: PASSWORD }, META);
  await publishVersion(deps, publisher, v1, { password: PASSWORD }, META);
  const v2 = await createDraft(deps, author, template.id);
  const [section] = CONTENT.sections;
  await updateDraft(deps, author, v2.id, {
    sections: [
      {
        ...section,
        steps: [
          { ...section.steps[1], title: 'Read the pressure twice' },
          { id: 'vent', title: 'Vent the housing', fields: [] },
        ],
      },
    ],
  });
  const diff = await diffVersions(deps, author, v1, v2.id);
  assert.equal(
    diff.removed.map((s) => s.id),
    ['isolate'],
  );
  assert.equal(
    diff.added.map((s) => s.id),
    ['vent'],
  );
  assert.equal(
    diff.changed.map((s) => s.id),
    ['pressure'],
  );
  assert.ok(diff.changed[0].changedFields.includes('title'), JSON.stringify(diff.changed));
});

test('the audit chain verifies, and names the entry edited behind its back', async ({ deps, clientId }) => {
  const before = await verifyAuditTrailAcrossClients(deps, { clientId });
  assert.ok(before.ok, JSON.stringify(before));
  assert.ok(before.clients[0].entries >= 4, 'the life cycle above wrote audit entries');
  await sql`UPDATE audit_entries SET action = 'template.forged' WHERE client_id = ${clientId} AND seq = 2`.execute(deps.db.kysely);
  const after = await verifyAuditTrailAcrossClients(deps, { clientId });
  assert.not.ok(after.ok);
  assert.is(after.clients[0].broken?.seq, 2, JSON.stringify(after.clients[0]));
});

test.run();
