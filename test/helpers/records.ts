import * as assert from 'uvu/assert';
import { generateKeyPairSync } from 'node:crypto';
import { FlattenedSign, calculateJwkThumbprint } from 'jose';
import type { TestServer } from './server';
import { buildClient, buildUser } from './factories';
import { gql } from './graphql';
import { createJob, publishedTemplate } from './domain';
import { solidPng } from './images';
import { upload } from './upload';
import { canonicalJson } from '#lib/canonical-json';
import { hashAuditEntry } from '#repos/audit';

/**
 * Record bundle tests: a finished job with photos, a signature
 * sign-off, an out-of-limits value and a fault, made through the API; and
 * the tampering an attacker would do to its bundle.
 */

export const RECORD_CONTENT = {
  sections: [
    {
      id: 'main',
      title: 'Main',
      steps: [
        {
          id: 'measure',
          title: 'Measure the torque',
          fields: [{ key: 'torque', label: 'Torque', type: 'NUMBER', required: true, unit: 'Nm', min: 10, max: 20 }],
        },
        { id: 'look', title: 'Photograph the seal', fields: [{ key: 'picture', label: 'Photo', type: 'PHOTO', required: true }] },
        { id: 'sign', title: 'Sign off', fields: [{ key: 'signature', label: 'Signature', type: 'SIGNATURE', required: true }] },
      ],
    },
  ],
};
const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }';

export const PHOTO = solidPng(64, 48, [20, 200, 20]);
export const OTHER_PHOTO = solidPng(64, 48, [200, 20, 20]);

export async function finishedJob(server: TestServer, options: { complete?: boolean } = {}) {
  const client = await buildClient(server, { name: 'Acme Pumps Ltd', seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, RECORD_CONTENT, 'Pump overhaul');
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const job = await createJob(server, client.owner.token, {
    templateId: template.templateId,
    title: 'Overhaul pump 7',
    assigneeIds: [operator.id],
  });
  const uploaded = async (name: string, data: Buffer) => {
    const res = await upload(server, operator.token!, [{ name, data }]);
    assert.is(res.status, 201, res.text);
    return res.body.data.files[0] as { id: number; name: string };
  };
  const photo = await uploaded('seal.png', PHOTO);
  const signature = await uploaded('sig.png', solidPng(90, 30, [20, 20, 200]));
  const leak = await uploaded('leak.png', solidPng(50, 50, [128, 128, 128]));
  const rec = (stepId: string, values: unknown[]) =>
    gql(server, operator.token, RECORD, { i: { jobId: `Job:${job.id}`, stepId, status: 'DONE', values, comment: `${stepId} done` } });
  assert.equal((await rec('measure', [{ key: 'torque', value: 25 }])).codes, []);
  assert.equal((await rec('look', [{ key: 'picture', value: [photo.id] }])).codes, []);
  assert.equal((await rec('sign', [{ key: 'signature', value: signature.id }])).codes, []);
  const fault = await gql(server, operator.token, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id } } }', {
    i: { jobId: `Job:${job.id}`, stepId: 'look', description: 'Seal weeps oil', severity: 'HIGH', photos: [leak.id] },
  });
  assert.equal(fault.codes, [], JSON.stringify(fault.errors));
  if (options.complete !== false) {
    const done = await gql(server, operator.token, 'mutation($i: JobTransitionInput!) { completeJob(input: $i) { revision } }', {
      i: { jobId: `Job:${job.id}` },
    });
    assert.equal(done.codes, [], JSON.stringify(done.errors));
  }
  return { client, template, operator, job, files: { photo, signature, leak } };
}

export async function fetchBundle(
  server: TestServer,
  token: string,
  jobId: number,
  photos = false,
): Promise<{ status: number; text: string; disposition: string | null; type: string | null }> {
  const response = await fetch(`${server.url}/api/client/jobs/${jobId}/record-bundle${photos ? '?photos=true' : ''}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    status: response.status,
    text: await response.text(),
    disposition: response.headers.get('content-disposition'),
    type: response.headers.get('content-type'),
  };
}

export async function publishedKeys(server: TestServer): Promise<{ keys: any[] }> {
  const response = await fetch(`${server.url}/.well-known/wip-signing-keys.json`);
  assert.is(response.status, 200);
  return (await response.json()) as { keys: any[] };
}

const b64u = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
export const payloadOf = (bundle: any) => JSON.parse(Buffer.from(bundle.jws.payload, 'base64url').toString('utf8'));

/** The bundle with its payload changed and NOT re-signed (an edit of the file). */
export function edited(text: string, change: (payload: any) => void): string {
  const bundle = JSON.parse(text);
  const payload = payloadOf(bundle);
  change(payload);
  bundle.jws.payload = b64u(canonicalJson(payload));
  return JSON.stringify(bundle);
}

/** An attacker's Ed25519 key, shaped like the appliance's. */
export async function attackerKey() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = (publicKey.export({ format: 'jwk' }) as { x: string }).x;
  const jwk = { kty: 'OKP' as const, crv: 'Ed25519' as const, x };
  return { privateKey, jwk, kid: await calculateJwkThumbprint(jwk, 'sha256') };
}

/** The bundle with its payload changed and re-signed with another key (a forger who has no appliance key). */
export async function resigned(text: string, change: (payload: any) => void = () => {}): Promise<string> {
  const bundle = JSON.parse(text);
  const payload = payloadOf(bundle);
  change(payload);
  const key = await attackerKey();
  const jws = await new FlattenedSign(new TextEncoder().encode(canonicalJson(payload)))
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'wip-record+json', jwk: key.jwk })
    .sign(key.privateKey);
  bundle.jws = { protected: jws.protected, payload: jws.payload, signature: jws.signature };
  delete bundle.timestamp;
  return JSON.stringify(bundle);
}

/**
 * A complete forgery: the payload changed, the job's
 * job.step_recorded audit entries rewritten to match the changed steps, every
 * entry's hash and link recomputed, the chain head moved, the checkpoint
 * dropped, and the whole re-signed with the forger's own key. Only a trusted
 * key tells it apart from the real record.
 */
export async function forged(text: string, change: (payload: any) => void): Promise<string> {
  return resigned(text, (payload) => {
    change(payload);
    const steps = new Map<string, any>(payload.steps.map((s: any) => [s.stepId, s]));
    let previous: string | null = null;
    for (const entry of payload.audit.entries) {
      if (previous !== null) entry.prevHash = previous;
      if ('elided' in entry) {
        previous = entry.hash;
        continue;
      }
      const after = entry.after === null ? null : JSON.parse(entry.after);
      const step = entry.action === 'job.step_recorded' ? steps.get(after?.record?.stepId) : undefined;
      if (step) {
        after.record.values = after.record.values.map((v: any) => ({ ...v, value: step.values.find((s: any) => s.key === v.key).value }));
        entry.after = canonicalJson(after);
      }
      entry.hash = hashAuditEntry({
        client_id: payload.audit.clientId,
        seq: entry.seq,
        actor_user_id: entry.actorUserId,
        actor: entry.actor,
        action: entry.action,
        entity_type: entry.entityType,
        entity_id: entry.entityId,
        before: entry.before,
        after: entry.after,
        at: entry.at,
        prev_hash: entry.prevHash,
      });
      previous = entry.hash;
    }
    payload.audit.chainHead = { seq: payload.audit.entries.at(-1).seq, hash: previous };
    payload.audit.checkpoint = null;
  });
}
