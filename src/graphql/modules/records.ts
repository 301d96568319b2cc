import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { databaseIdOf } from '../ids';
import { featureNotLicensed } from '#errors';
import { currentLicense } from '#services/licensing/index';
import { packageFiles } from '#services/package-files';
import { recordBundle } from '#services/record-bundles';
import { signingKeySet } from '#services/signing-keys';

/**
 * Records anyone can verify in GraphQL, for the floor app: the
 * signed record bundle of a finished job (a mutation: each export signs
 * anew), and the appliance's key fingerprints to show next to it. Photos are
 * not carried here (their size): the REST download adds them (?photos=true).
 */
export const recordsModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    "A finished job's signed record bundle (format wip-record-bundle v1, docs/records.md)"
    type RecordBundle {
      "the name to save it under"
      fileName: String!
      "the file's JSON text, to save exactly as it is (verify it with wip verify-bundle or the page /verify/)"
      content: String!
      "the fingerprint (RFC 7638 thumbprint) of the appliance key that signed it"
      keyFingerprint: String!
      "the REST path of the same bundle; add ?photos=true to include the photos"
      downloadPath: String!
    }

    "An appliance signing key: the active one, or a retired one still published so what it signed verifies"
    type SigningKey {
      "RFC 7638 thumbprint of the Ed25519 public key: what an auditor compares"
      fingerprint: String!
      active: Boolean!
      createdAt: String!
      retiredAt: String
    }

    input ExportRecordBundleInput {
      "a COMPLETED or CANCELLED job"
      jobId: ID!
    }

    type ExportRecordBundlePayload {
      bundle: RecordBundle!
    }

    extend type Query {
      "the appliance's signing keys, active first"
      signingKeys: [SigningKey!]!
    }

    extend type Mutation {
      "signs and returns the record bundle of a finished job (JOB_NOT_FINISHED otherwise)"
      exportRecordBundle(input: ExportRecordBundleInput!): ExportRecordBundlePayload!
    }
  `,
  resolvers: {
    Query: {
      signingKeys: async (_: unknown, __: unknown, ctx: GraphQLContext) =>
        (await signingKeySet(ctx.deps)).keys
          .map((k) => ({ fingerprint: k.kid, active: k.retiredAt === undefined, createdAt: k.createdAt, retiredAt: k.retiredAt ?? null }))
          .sort((a, b) => Number(b.active) - Number(a.active)),
    },
    Mutation: {
      exportRecordBundle: async (_: unknown, { input }: { input: { jobId: string } }, ctx: GraphQLContext) => {
        const jobId = databaseIdOf(input.jobId, 'Job', 'input.jobId');
        // the same license feature as the REST download
        if (!(await currentLicense(ctx.deps)).terms.features.includes('reports')) throw featureNotLicensed('reports');
        const bundle = await recordBundle(ctx.deps, packageFiles(ctx.deps), ctx.actor, jobId);
        return {
          bundle: {
            fileName: bundle.fileName,
            content: bundle.text,
            keyFingerprint: bundle.kid,
            downloadPath: `/api/client/jobs/${jobId}/record-bundle`,
          },
        };
      },
    },
  },
};
