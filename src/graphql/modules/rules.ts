import type { GraphQLResolveInfo } from 'graphql';
import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { databaseIdOf } from '../ids';
import { presentJob, type PresentedJob } from '#presenters/jobs';
import { presentStepSignature, signStep, type PresentedStepSignature, type SignStepInput } from '#services/signoffs';
import { userColumns } from './me';

type Ctx = GraphQLContext;

/**
 * Execution rules (docs/execution-rules.md) beyond what the templates and jobs
 * modules show of the content document: step sign-offs — what a step asks
 * for, the signatures a job's steps carry, and signStep.
 */
export const rulesModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    "The e-signatures a step needs before its job can complete."
    type StepSignoff {
      "the person who performed the step signs PERFORMED"
      performer: Boolean!
      "another person, holding one of the roles, signs VERIFIED (null: no verifier)"
      verifier: StepVerifier
    }

    type StepVerifier {
      "role names (admin, user_admin, author, operator, approver, publisher, viewer)"
      roles: [String!]!
    }

    extend type Step {
      "null: the step needs no sign-off"
      signoff: StepSignoff
    }

    input StepVerifierInput {
      roles: [String!]!
    }

    input StepSignoffInput {
      performer: Boolean
      verifier: StepVerifierInput
    }

    extend input StepInput {
      "the e-signatures the step needs (docs/execution-rules.md)"
      signoff: StepSignoffInput
    }

    "An e-signature on a step of a job: who, the printed name, the meaning, when, and the SHA-256 of the record it signed."
    type StepSignature {
      "the step's stable key (Step.stepId)"
      stepId: String!
      "null when the account is gone (signerName stays)"
      signer: User
      signerName: String!
      meaning: SignatureMeaning!
      signedAt: DateTime!
      "SHA-256 of the step's status, values and comment when signed"
      valuesHash: String!
      "set when the step was recorded again: the signature no longer counts (it stays in the record)"
      invalidatedAt: DateTime
    }

    extend type Job {
      "a list: every sign-off of the job's steps, invalidated ones too, oldest first"
      signoffs: [StepSignature!]!
    }

    "an electronic signature: the signer's password, or a current TOTP code for a user with two-factor"
    input SignStepInput {
      jobId: ID!
      stepId: String!
      "PERFORMED or VERIFIED"
      meaning: SignatureMeaning!
      password: String
      code: String
    }

    type SignStepPayload {
      job: Job!
      signature: StepSignature!
    }

    extend type Mutation {
      "an electronic signature on a step (docs/execution-rules.md): SEPARATION_OF_DUTIES, INVALID_CREDENTIALS, STEP_NOT_APPLICABLE, JOB_CLOSED"
      signStep(input: SignStepInput!): SignStepPayload!
    }
  `,
  resolvers: {
    Mutation: {
      signStep: async (_: unknown, { input }: { input: Omit<SignStepInput, 'jobId'> & { jobId: string } }, ctx: Ctx) => {
        const { job, signature } = await signStep(
          ctx.deps,
          ctx.actor,
          { ...input, jobId: databaseIdOf(input.jobId, 'Job', 'input.jobId') },
          ctx.meta,
        );
        return { job: presentJob(job), signature: presentStepSignature(signature) };
      },
    },
    Job: {
      signoffs: async (job: PresentedJob, _: unknown, ctx: Ctx) =>
        (await ctx.loaders.stepSignatures.load(job.id)).map(presentStepSignature),
    },
    StepSignature: {
      signer: (s: PresentedStepSignature, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .user(userColumns.of(info))
          .load(s.signerId)
          .then((u) => u ?? null),
    },
  },
};
