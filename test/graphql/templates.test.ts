import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, PASSWORD } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { verifyAuditChain } from '#repos/audit';
import {
  advance,
  APPROVE,
  buildTeam,
  CREATE_DRAFT,
  createTemplate,
  ok,
  PUBLISH,
  SUBMIT,
  UPDATE_DRAFT,
  VERSION_FIELDS,
} from '../helpers/templates';

let server: TestServer;
const lifecycle = suite('GraphQL templates: authoring and the version life cycle');
lifecycle.before(async () => {
  // many sign-ins: the per-IP sign-in rate limit is not under test
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
lifecycle.after(async () => server.stop());

lifecycle('createTemplate makes version 1 a DRAFT owned by the author, content with generated ids', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token, {
    content: { sections: [{ title: 'S', steps: [{ title: 'New step' }] }] },
  });
  assert.is(created.latestVersion.number, 1);
  assert.is(created.latestVersion.state, 'DRAFT');
  const read = ok(
    await gql(
      server,
      team.author.token,
      `query ($id: ID!) { template(id: $id) { id title description tags owner { id: databaseId } versions { nodes { ${VERSION_FIELDS} } } publishedVersion { id } } }`,
      {
        id: created.id,
      },
    ),
  ).template;
  assert.is(read.owner.id, team.author.id);
  assert.equal(read.tags, ['pump']);
  assert.is(read.publishedVersion, null);
  const [v1] = read.versions.nodes;
  assert.is(v1.createdBy.id, team.author.id);
  assert.match(v1.content.sections[0].steps[0].stepId, /^step_[0-9a-f]{16}$/);
  assert.match(v1.contentHash, /^[0-9a-f]{64}$/);
});

lifecycle('create → submit → approve with password → publish: signatures record signer, meaning, time and content hash', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  const versionId = created.latestVersion.id;
  assert.is(ok(await gql(server, team.author.token, SUBMIT, { id: versionId })).submitVersion.version.state, 'IN_REVIEW');
  const approved = ok(await gql(server, team.approver.token, APPROVE, { id: versionId, password: PASSWORD })).approveVersion.version;
  assert.is(approved.state, 'APPROVED');
  const published = ok(await gql(server, team.publisher.token, PUBLISH, { id: versionId, password: PASSWORD })).publishVersion.version;
  assert.is(published.state, 'PUBLISHED');
  const version = ok(
    await gql(server, team.author.token, `query ($id: ID!) { templateVersion(id: $id) { ${VERSION_FIELDS} } }`, { id: versionId }),
  ).templateVersion;
  assert.equal(
    version.signatures.map((s: any) => [s.signer.id, s.meaning, s.contentHash]),
    [
      [team.approver.id, 'APPROVED', version.contentHash],
      [team.publisher.id, 'PUBLISHED', version.contentHash],
    ],
  );
  assert.is(version.signatures[0].signedAt, server.clock.now().toISOString());
  const template = ok(
    await gql(server, team.author.token, `query ($id: ID!) { template(id: $id) { publishedVersion { id } latestVersion { id } } }`, {
      id: created.id,
    }),
  ).template;
  assert.is(template.publishedVersion.id, versionId);
});

lifecycle('publishing a new version retires the previously published one in the same step', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  const v1 = created.latestVersion.id;
  await advance(server, team, v1, 'PUBLISHED');
  const draft = ok(await gql(server, team.author.token, CREATE_DRAFT, { id: created.id })).createDraft.version;
  assert.is(draft.number, 2);
  await advance(server, team, draft.id, 'PUBLISHED');
  const template = ok(
    await gql(
      server,
      team.author.token,
      `query ($id: ID!) { template(id: $id) { versions { nodes { id number state } } publishedVersion { id } } }`,
      { id: created.id },
    ),
  ).template;
  assert.equal(
    template.versions.nodes.map((v: any) => [v.number, v.state]),
    [
      [1, 'RETIRED'],
      [2, 'PUBLISHED'],
    ],
  );
  assert.is(template.publishedVersion.id, draft.id);
});

lifecycle('a new draft copies the latest version; a second createDraft while a draft exists is a CONFLICT naming it', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  const again = await gql(server, team.author.token, CREATE_DRAFT, { id: created.id });
  assert.equal(again.codes, ['CONFLICT']);
  assert.is(again.errors![0].extensions!.details.draftVersionId, created.latestVersion.databaseId);
  await advance(server, team, created.latestVersion.id, 'IN_REVIEW');
  const draft = ok(await gql(server, team.author.token, CREATE_DRAFT, { id: created.id })).createDraft.version;
  assert.is(draft.number, 2);
  assert.equal(
    draft.content.sections[0].steps.map((s: any) => s.stepId),
    ['isolate', 'pressure'],
  );
});

lifecycle('only a DRAFT is editable: edits of IN_REVIEW, APPROVED, PUBLISHED and RETIRED versions → VERSION_NOT_EDITABLE', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const content = { sections: [{ title: 'Only', steps: [{ stepId: 'isolate', title: 'Renamed' }, { title: 'Brand new' }] }] };
  const created = await createTemplate(server, team.author.token);
  const edited = ok(await gql(server, team.author.token, UPDATE_DRAFT, { id: created.latestVersion.id, content })).updateDraft.version;
  assert.is(edited.content.sections[0].steps[0].stepId, 'isolate');
  assert.is(edited.content.sections[0].steps[0].title, 'Renamed');
  for (const state of ['IN_REVIEW', 'APPROVED', 'PUBLISHED', 'RETIRED'] as const) {
    const t = await createTemplate(server, team.author.token);
    await advance(server, team, t.latestVersion.id, state);
    const refused = await gql(server, team.author.token, UPDATE_DRAFT, { id: t.latestVersion.id, content });
    assert.equal(refused.codes, ['VERSION_NOT_EDITABLE'], state);
    assert.is(refused.data, null);
  }
});

lifecycle('invalid content is a VALIDATION_ERROR naming the path', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  const bad = await gql(server, team.author.token, UPDATE_DRAFT, {
    id: created.latestVersion.id,
    content: { sections: [{ title: 'S', steps: [{ title: 'T', fields: [{ key: 'c', type: 'CHOICE' }] }] }] },
  });
  assert.equal(bad.codes, ['VALIDATION_ERROR']);
  assert.is(bad.errors![0].extensions!.details.fields[0].path, 'content.sections.0.steps.0.fields.0.options');
});

lifecycle('every problem of the document is reported at once, duplicates with the rest', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  const content = {
    sections: [
      {
        sectionId: 'prep',
        title: 'Preparation',
        steps: [
          {
            stepId: 'measure',
            title: 'Measure',
            fields: [
              { key: 'torque', type: 'NUMBER', min: 20, max: 10 },
              { key: 'torque', type: 'TEXT' },
              { key: 'pick', type: 'CHOICE' },
            ],
          },
          { stepId: 'measure', title: '' },
        ],
      },
    ],
  };
  const bad = await gql(server, team.author.token, UPDATE_DRAFT, { id: created.latestVersion.id, content });
  assert.equal(bad.codes, ['VALIDATION_ERROR']);
  assert.equal(
    bad.errors![0].extensions!.details.fields.map((f: { path: string; message: string }) => `${f.path}: ${f.message}`),
    [
      'content.sections.0.steps.0.fields.0.min: min is greater than max',
      'content.sections.0.steps.0.fields.1.key: duplicate key "torque" in the step',
      'content.sections.0.steps.0.fields.2.options: a CHOICE field needs options',
      'content.sections.0.steps.1.stepId: duplicate id "measure"',
      'content.sections.0.steps.1.title: Too small: expected string to have >=1 characters',
    ],
  );
});

lifecycle('reject sends a version back to DRAFT with the reason; it can be edited and submitted again', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  const id = created.latestVersion.id;
  await advance(server, team, id, 'IN_REVIEW');
  const rejected = ok(
    await gql(
      server,
      team.approver.token,
      `mutation ($id: ID!) { rejectVersion(input: { versionId: $id, reason: "Step 2 lacks limits" }) { version { state rejectReason } } }`,
      { id },
    ),
  ).rejectVersion.version;
  assert.equal(rejected, { state: 'DRAFT', rejectReason: 'Step 2 lacks limits' });
  ok(await gql(server, team.author.token, UPDATE_DRAFT, { id, content: { sections: [] } }));
  assert.is(ok(await gql(server, team.author.token, SUBMIT, { id })).submitVersion.version.state, 'IN_REVIEW');
});

lifecycle('every change appends to the audit chain', async () => {
  const client = await buildClient(server);
  const team = await buildTeam(server, client);
  const created = await createTemplate(server, team.author.token);
  await advance(server, team, created.latestVersion.id, 'PUBLISHED');
  const rows = await server.deps.db.kysely
    .selectFrom('audit_entries')
    .select(['action', 'actor_user_id'])
    .where('client_id', '=', client.id)
    .orderBy('seq')
    .execute();
  assert.equal(
    rows.map((r) => r.action),
    ['template.created', 'version.created', 'version.submitted', 'version.approved', 'version.published'],
  );
  assert.equal(
    rows.map((r) => r.actor_user_id),
    [team.author.id, team.author.id, team.author.id, team.approver.id, team.publisher.id],
  );
  const report = await verifyAuditChain(server.deps.db.kysely, client.id);
  assert.is(report.broken, null);
});

lifecycle.run();
