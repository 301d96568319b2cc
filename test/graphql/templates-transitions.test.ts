import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, PASSWORD, type BuiltClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { advance, APPROVE, buildTeam, createTemplate, ok, PUBLISH, REJECT, RETIRE, SUBMIT, type Users } from '../helpers/templates';
import { rolesFor, VERSION_TRANSITIONS, type VersionAction } from '#policies/transitions';
import { PERMISSIONS } from '#policies/permissions';
import { ROLES } from '#policies/roles';
import type { VersionState } from '#db/schema';

// The role lists and the states come from VERSION_TRANSITIONS itself, so this
// test and the table cannot drift apart.

let server: TestServer;
const transitions = suite('GraphQL version transitions: allowed and refused per role and per state');
transitions.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
transitions.after(async () => server.stop());

const MUTATION: Record<VersionAction, { doc: string; field: string; vars: Record<string, unknown> }> = {
  submit: { doc: SUBMIT, field: 'submitVersion', vars: {} },
  reject: { doc: REJECT, field: 'rejectVersion', vars: { reason: 'Not yet' } },
  approve: { doc: APPROVE, field: 'approveVersion', vars: { password: PASSWORD } },
  publish: { doc: PUBLISH, field: 'publishVersion', vars: { password: PASSWORD } },
  retire: { doc: RETIRE, field: 'retireVersion', vars: {} },
};
const ACTIONS = [...new Set(VERSION_TRANSITIONS.map((t) => t.action))];
const STATES: VersionState[] = ['DRAFT', 'IN_REVIEW', 'APPROVED', 'PUBLISHED', 'RETIRED'];

interface World {
  client: BuiltClient;
  team: Users;
  /** one signed-in user per role, holding only that role (none of them authored anything) */
  byRole: Map<string, string>;
}

async function world(): Promise<World> {
  const client = await buildClient(server, { seats: { full: 20, connect: 5 } });
  const team = await buildTeam(server, client);
  const byRole = new Map<string, string>();
  for (const role of ROLES) byRole.set(role, (await buildUser(server, client, { roles: [role] })).token!);
  return { client, team, byRole };
}

/** A fresh version in `state`, authored by the team's author. */
async function versionIn(w: World, state: VersionState): Promise<string> {
  const created = await createTemplate(server, w.team.author.token);
  if (state !== 'DRAFT') await advance(server, w.team, created.latestVersion.id, state);
  return created.latestVersion.id;
}

const act = (token: string, action: VersionAction, id: string) =>
  gql(server, token, MUTATION[action].doc, { id, ...MUTATION[action].vars });

transitions('each action from its state: the roles of the table succeed, every other role → FORBIDDEN', async () => {
  const w = await world();
  for (const action of ACTIONS) {
    const rule = VERSION_TRANSITIONS.find((t) => t.action === action)!;
    const allowed = rolesFor(VERSION_TRANSITIONS, action);
    for (const role of ROLES) {
      const id = await versionIn(w, rule.from[0]);
      const result = await act(w.byRole.get(role)!, action, id);
      if (allowed.includes(role)) {
        assert.equal(result.errors, undefined, `${role} ${action}: ${JSON.stringify(result.errors)}`);
        assert.is(result.data[MUTATION[action].field].version.state, rule.to, `${role} ${action}`);
      } else {
        assert.equal(result.codes, ['FORBIDDEN'], `${role} ${action}`);
        assert.is(result.data, null);
      }
    }
  }
});

transitions('each action from every other state → INVALID_TRANSITION, for every role allowed to act', async () => {
  const w = await world();
  for (const action of ACTIONS) {
    const from = VERSION_TRANSITIONS.filter((t) => t.action === action).flatMap((t) => t.from);
    for (const state of STATES.filter((s) => !from.includes(s))) {
      const id = await versionIn(w, state);
      for (const role of rolesFor(VERSION_TRANSITIONS, action)) {
        const result = await act(w.byRole.get(role)!, action, id);
        assert.equal(result.codes, ['INVALID_TRANSITION'], `${role} ${action} in ${state}`);
        assert.is(result.errors![0].extensions!.details.state, state);
      }
    }
  }
});

transitions('only the author role (and admin) creates templates and edits drafts: every other role → FORBIDDEN', async () => {
  const w = await world();
  const id = await versionIn(w, 'DRAFT');
  for (const role of ROLES) {
    const result = await gql(
      server,
      w.byRole.get(role),
      `mutation ($id: ID!) { updateDraft(input: { versionId: $id, content: { sections: [] } }) { version { id } } }`,
      { id },
    );
    if ((PERMISSIONS.author as readonly string[]).includes(role)) assert.equal(result.errors, undefined, role);
    else assert.equal(result.codes, ['FORBIDDEN'], role);
  }
  const created = await gql(server, w.byRole.get('viewer'), `mutation { createTemplate(input: { title: "x" }) { template { id } } }`);
  assert.equal(created.codes, ['FORBIDDEN']);
});

const duties = suite('GraphQL separation of duties');
duties.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
duties.after(async () => server.stop());

duties('an approver cannot approve a version they created → SEPARATION_OF_DUTIES; another approver can', async () => {
  const client = await buildClient(server, { seats: { full: 10, connect: 5 } });
  const both = await buildUser(server, client, { roles: ['author', 'approver'] });
  const other = await buildUser(server, client, { roles: ['approver'] });
  const created = await createTemplate(server, both.token!);
  ok(await gql(server, both.token, SUBMIT, { id: created.latestVersion.id }));
  const refused = await gql(server, both.token, APPROVE, { id: created.latestVersion.id, password: PASSWORD });
  assert.equal(refused.codes, ['SEPARATION_OF_DUTIES']);
  // an admin is bound by it as well: the rule is about the person
  const admin = await buildUser(server, client, { roles: ['admin', 'author'] });
  const own = await createTemplate(server, admin.token!);
  ok(await gql(server, admin.token, SUBMIT, { id: own.latestVersion.id }));
  assert.equal((await gql(server, admin.token, APPROVE, { id: own.latestVersion.id, password: PASSWORD })).codes, ['SEPARATION_OF_DUTIES']);
  assert.is(
    ok(await gql(server, other.token, APPROVE, { id: created.latestVersion.id, password: PASSWORD })).approveVersion.version.state,
    'APPROVED',
  );
});

duties('an approver cannot approve a version they last edited, though someone else created it', async () => {
  const client = await buildClient(server, { seats: { full: 10, connect: 5 } });
  const team = await buildTeam(server, client);
  const editor = await buildUser(server, client, { roles: ['author', 'approver'] });
  const created = await createTemplate(server, team.author.token);
  const id = created.latestVersion.id;
  ok(
    await gql(
      server,
      editor.token,
      `mutation ($id: ID!) { updateDraft(input: { versionId: $id, content: { sections: [] } }) { version { id } } }`,
      { id },
    ),
  );
  ok(await gql(server, team.author.token, SUBMIT, { id }));
  assert.equal((await gql(server, editor.token, APPROVE, { id, password: PASSWORD })).codes, ['SEPARATION_OF_DUTIES']);
  const version = ok(
    await gql(
      server,
      team.author.token,
      `query ($id: ID!) { templateVersion(id: $id) { state createdBy { id: databaseId } updatedBy { id: databaseId } signatures { meaning } } }`,
      { id },
    ),
  );
  assert.equal(version.templateVersion, {
    state: 'IN_REVIEW',
    createdBy: { id: team.author.id },
    updatedBy: { id: editor.id },
    signatures: [],
  });
});

duties('the client setting allowSelfApproval relaxes it', async () => {
  const client = await buildClient(server, { seats: { full: 10, connect: 5 } });
  const both = await buildUser(server, client, { roles: ['author', 'approver'] });
  const created = await createTemplate(server, both.token!);
  ok(await gql(server, both.token, SUBMIT, { id: created.latestVersion.id }));
  const put = await server.request('PUT', '/api/client/auth/client-security-settings', {
    token: client.owner.token,
    body: { allowSelfApproval: true },
  });
  assert.is(put.status, 200, put.text);
  const approved = ok(await gql(server, both.token, APPROVE, { id: created.latestVersion.id, password: PASSWORD })).approveVersion.version;
  assert.is(approved.state, 'APPROVED');
  assert.equal(approved.signatures[0].signer, { id: both.id });
});

transitions.run();
duties.run();
