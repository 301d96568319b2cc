import { z } from 'zod';
import { notFound } from '#errors';
import { CONSOLE_CSP } from '../../console';
import { consoleAssets } from '#lib/executable';
import { VERIFIER_DOWNLOAD, VERIFIER_PAGE } from '#lib/verifier-assets';
import { packageFiles } from '#services/package-files';
import { recordBundle } from '#services/record-bundles';
import { signingKeySet } from '#services/signing-keys';
import { defineRoute, IdParams, principalBudget, type RouteSpec } from '../../../route';
import { sendJson } from '../../../json-body';

/**
 * Records anyone can verify: a finished job's signed record bundle,
 * the appliance's published signing keys, and the static verifier page (served
 * here under the console's strict CSP, and downloadable as one self-contained
 * HTML file that verifies bundles with no server at all).
 */

const BundleQuery = z.object({
  /** include the photos and signature images themselves (the bundle always has their SHA-256) */
  photos: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true'),
});

const PublishedKeySchema = z
  .object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string(),
    kid: z.string(),
    alg: z.literal('EdDSA'),
    use: z.literal('sig'),
    createdAt: z.string(),
    retiredAt: z.string().optional(),
  })
  .meta({ id: 'SigningKey' });
const SigningKeySet = z.object({ keys: z.array(PublishedKeySchema) }).meta({ id: 'SigningKeySet' });

/** Generating a bundle reads the whole job and its chain slice, and signs: a budget per user. */
const perCaller = (max: number) => principalBudget('documents', max, 60_000);
/** Public, cheap answers: per IP. */
const perIp = (max: number) => ({ max, windowMs: 60_000 });

function verifierAsset(name: string): Buffer {
  const content = consoleAssets().get(name);
  if (!content) throw notFound('The verifier page (not built: run npm run build)');
  return content;
}

export const clientRecordRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/jobs/:id/record-bundle',
    operationId: 'getJobRecordBundle',
    produces: { type: 'application/json', attachment: true },
    errors: ['JOB_NOT_FINISHED', 'PAYLOAD_TOO_LARGE'],
    summary:
      "A finished (completed or cancelled) job's record bundle (format wip-record-bundle v1, docs/records.md): the approved version's content, hash and signatures, every recorded value, comment, sign-off, fault and hand-off, the files' SHA-256 (the files themselves with ?photos=true), the audit chain slice covering the job — signed by the appliance key (JWS), time-stamped when timestampAuthorityUrl is set. Verify it with `wip verify-bundle` or the page /verify/",
    auth: 'user',
    feature: 'reports',
    params: IdParams,
    query: BundleQuery,
    rateLimit: perCaller(30),
    async handler({ deps, actor, params, query, ctx }) {
      const bundle = await recordBundle(deps, packageFiles(deps), actor, params.id, { photos: query.photos });
      ctx.attachment(bundle.fileName);
      ctx.type = 'application/json';
      ctx.body = bundle.text;
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/.well-known/wip-signing-keys.json',
    operationId: 'getSigningKeys',
    produces: { type: 'application/json', schema: SigningKeySet },
    summary:
      "The appliance's signing keys as a JWKS (RFC 7517; Ed25519, alg EdDSA): the active key and every retired one, so bundles and checkpoints signed before a rotation still verify. Each kid is the key's RFC 7638 thumbprint — the fingerprint wip doctor and the console show",
    auth: 'public',
    rateLimit: perIp(120),
    cacheControl: 'no-cache',
    async handler({ deps, ctx }) {
      sendJson(ctx, await signingKeySet(deps));
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/verify/',
    operationId: 'getVerifierPage',
    produces: { type: 'text/html' },
    summary: 'The record bundle verifier: drop a bundle, it is checked in the browser (WebCrypto) and never sent anywhere',
    auth: 'public',
    envelope: false,
    cacheControl: 'no-cache',
    rateLimit: perIp(120),
    async handler({ ctx }) {
      const page = verifierAsset(VERIFIER_PAGE);
      ctx.set('Content-Security-Policy', CONSOLE_CSP);
      ctx.type = 'html';
      ctx.body = page;
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/verify/wip-verifier.html',
    operationId: 'downloadVerifierPage',
    produces: { type: 'text/html', attachment: true },
    summary:
      'The verifier as one self-contained HTML file (its script inline) to keep and open offline, on a machine that never sees this appliance',
    auth: 'public',
    envelope: false,
    rateLimit: perIp(30),
    async handler({ ctx }) {
      const page = verifierAsset(VERIFIER_DOWNLOAD);
      // the file runs its inline script once saved and opened from disk; served here it must not run under this origin
      ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
      ctx.attachment(VERIFIER_DOWNLOAD);
      ctx.type = 'html';
      ctx.body = page;
      return undefined;
    },
  }),
];
