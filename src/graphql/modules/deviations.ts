import type { GraphQLResolveInfo } from 'graphql';
import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { CONNECTION_ARGS, connectionTypeDefs, pageInput, toConnection, type ConnectionArgs } from '../connection';
import { databaseIdOf, optionalDatabaseIdOf } from '../ids';
import type { JobRow } from '#db/schema';
import { findStep, stepsOf, type Step } from '#domain/content';
import { presentFault, presentJob, type PresentedJob } from '#presenters/jobs';
import {
  acknowledgeDeviation,
  listDeviations,
  markStepNotApplicable,
  presentDeviation,
  presentJobReview,
  reviewBlock,
  reviewJob,
  type DeviationFilterInput,
  type ReviewBlock,
  type PresentedDeviation,
  type PresentedJobReview,
} from '#services/deviations';
import { userColumns } from './me';
import { DEVIATION_KINDS, REVIEW_PARTS } from '#domain/vocabulary';
import { enumSdl } from '../enum-sdl';

type Ctx = GraphQLContext;

/**
 * Deviations and review by exception (docs/execution-rules.md): the
 * deviations the server records on jobs, a reviewer's acknowledgement of
 * each, the operator marking a step not applicable, and the REVIEWED
 * e-signature on a completed job.
 */
/** reviewBlock (services/deviations.ts) for the caller, from the job's records and signatures as loaded for the page */
async function viewerReviewBlock(job: PresentedJob, ctx: Ctx): Promise<ReviewBlock | null> {
  const [records, signatures] = await Promise.all([ctx.loaders.stepRecords.load(job.id), ctx.loaders.stepSignatures.load(job.id)]);
  return reviewBlock(ctx.actor, job, records, signatures);
}

export const deviationsModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    ${enumSdl('DeviationKind', DEVIATION_KINDS, {
      OUT_OF_LIMITS: "a value recorded outside its field's min/max",
      STEP_FAILED: 'a step recorded FAILED',
      NOT_APPLICABLE: 'a step the operator marked not applicable (detail: the reason)',
      FAULT: 'a fault raised on the job (detail: severity and description)',
      OVERRIDE: "a supervisor's override of a rule (detail: the justification)",
      LATE_COMPLETION: 'the job completed after it was due',
      UNAPPLIED_CHANGE:
        'a write a device had been told was recorded, lost with a restore and refused when sent again (detail: what it was and why; POST /api/client/sync/unapplied)',
    })}

    "What went other than planned on a job, recorded by the server with what caused it; a reviewer acknowledges each with a comment."
    type Deviation implements Node {
      id: ID!
      databaseId: Int!
      job: Job!
      kind: DeviationKind!
      "the step's stable key (Step.stepId), when the deviation is about a step"
      stepId: String
      "the step's title in the job's version"
      stepTitle: String
      "the field's key (OUT_OF_LIMITS)"
      fieldKey: String
      "the value that deviated (OUT_OF_LIMITS)"
      value: JSON
      "what happened, for people: the limits a value left, the operator's reason, the fault"
      detail: String!
      fault: Fault
      "who caused it (null: the server, or the account is gone)"
      raisedBy: User
      raisedAt: DateTime!
      acknowledged: Boolean!
      "the reviewer's comment"
      comment: String
      acknowledgedBy: User
      "the reviewer's printed name (stays when the account goes)"
      acknowledgedByName: String
      acknowledgedAt: DateTime
    }

    ${connectionTypeDefs('Deviation')}

    "The REVIEWED e-signature on a completed job."
    type JobReview {
      "null when the account is gone (signerName stays)"
      signer: User
      signerName: String!
      "REVIEWED"
      meaning: SignatureMeaning!
      signedAt: DateTime!
      comment: String
      "SHA-256 of the job's deviations as acknowledged when signed"
      deviationsHash: String!
    }

    extend type Job {
      "a list: every deviation of the job, oldest first"
      deviations: [Deviation!]!
      "the REVIEWED signature (null until the job is reviewed)"
      review: JobReview
      "whether the caller may sign the job REVIEWED (reviewJob) once its deviations are acknowledged: viewerReviewBlock is null"
      viewerMayReview: Boolean!
      "why the caller may not sign the job REVIEWED, by reviewJob's own rules (null: they may); the deviations still to acknowledge are not a block here (Deviation.acknowledged)"
      viewerReviewBlock: JobReviewBlock
    }

    enum JobReviewBlockReason {
      "the caller's roles do not review jobs (FORBIDDEN)"
      NOT_A_REVIEWER
      "the job is not COMPLETED (INVALID_TRANSITION)"
      NOT_COMPLETED
      "the caller recorded, performed or verified a step of the job: another reviewer must sign (SEPARATION_OF_DUTIES)"
      TOOK_PART
    }

    "How a person took part in a step of a job."
    ${enumSdl('JobStepPart', REVIEW_PARTS, {
      RECORDED: "recorded the step's values",
      PERFORMED: 'signed the step PERFORMED',
      VERIFIED: 'signed the step VERIFIED',
    })}

    "Why the caller may not sign a job REVIEWED (Job.viewerReviewBlock)."
    type JobReviewBlock {
      reason: JobReviewBlockReason!
      "TOOK_PART: the step (Step.stepId) the caller took part in"
      stepId: String
      "TOOK_PART: the step's title in the job's version"
      stepTitle: String
      "TOOK_PART: the step's number in the version's reading order, from 1"
      stepNumber: Int
      "TOOK_PART: how the caller took part in it"
      part: JobStepPart
    }

    extend type Step {
      "the operator may mark the step not applicable, with a reason (markStepNotApplicable)"
      allowNotApplicable: Boolean!
    }

    extend input StepInput {
      "let the operator mark the step not applicable, with a reason (docs/execution-rules.md)"
      allowNotApplicable: Boolean
    }

    input DeviationFilter {
      jobId: ID
      kind: DeviationKind
      "raised at or after"
      from: DateTime
      "raised before"
      to: DateTime
      "true: acknowledged ones; false: those still to acknowledge"
      reviewed: Boolean
    }

    input AcknowledgeDeviationInput {
      deviationId: ID!
      "the reviewer's comment (required)"
      comment: String!
    }

    type AcknowledgeDeviationPayload {
      deviation: Deviation!
    }

    input MarkStepNotApplicableInput {
      jobId: ID!
      "the step's stable key (Step.stepId); its template must allow it (Step.allowNotApplicable)"
      stepId: String!
      "why the step does not apply (required)"
      reason: String!
    }

    type MarkStepNotApplicablePayload {
      job: Job!
    }

    "an electronic signature: the reviewer's password, or a current TOTP code for a user with two-factor"
    input ReviewJobInput {
      jobId: ID!
      password: String
      code: String
      comment: String
    }

    type ReviewJobPayload {
      job: Job!
      review: JobReview!
    }

    extend type Query {
      "the client's deviations across jobs, in id order (docs/execution-rules.md)"
      deviations(${CONNECTION_ARGS}, filter: DeviationFilter): DeviationConnection!
    }

    extend type Mutation {
      "a reviewer (admin, approver) acknowledges a deviation with a comment: CONFLICT when it already is"
      acknowledgeDeviation(input: AcknowledgeDeviationInput!): AcknowledgeDeviationPayload!
      "the operator marks a step not applicable (recorded SKIPPED with the reason, and a NOT_APPLICABLE deviation): VALIDATION_ERROR when the template does not allow it"
      markStepNotApplicable(input: MarkStepNotApplicableInput!): MarkStepNotApplicablePayload!
      "the REVIEWED e-signature on a COMPLETED job: SEPARATION_OF_DUTIES, COMMENT_REQUIRED (deviations not acknowledged), INVALID_CREDENTIALS, INVALID_TRANSITION"
      reviewJob(input: ReviewJobInput!): ReviewJobPayload!
    }
  `,
  resolvers: {
    Query: {
      deviations: async (
        _: unknown,
        args: ConnectionArgs & { filter?: (Omit<NonNullable<DeviationFilterInput>, 'jobId'> & { jobId?: string | null }) | null },
        ctx: Ctx,
      ) => {
        const input = pageInput(args);
        const filter = args.filter && { ...args.filter, jobId: optionalDatabaseIdOf(args.filter.jobId, 'Job', 'filter.jobId') };
        return toConnection(await listDeviations(ctx.deps, ctx.actor, filter, input), input, presentDeviation);
      },
    },
    Mutation: {
      acknowledgeDeviation: async (_: unknown, { input }: { input: { deviationId: string; comment: string } }, ctx: Ctx) => ({
        deviation: presentDeviation(
          await acknowledgeDeviation(ctx.deps, ctx.actor, {
            deviationId: databaseIdOf(input.deviationId, 'Deviation', 'input.deviationId'),
            comment: input.comment,
          }),
        ),
      }),
      markStepNotApplicable: async (_: unknown, { input }: { input: { jobId: string; stepId: string; reason: string } }, ctx: Ctx) => ({
        job: presentJob(
          await markStepNotApplicable(ctx.deps, ctx.actor, { ...input, jobId: databaseIdOf(input.jobId, 'Job', 'input.jobId') }),
        ),
      }),
      reviewJob: async (
        _: unknown,
        { input }: { input: { jobId: string; password?: string | null; code?: string | null; comment?: string | null } },
        ctx: Ctx,
      ) => {
        const { job, review } = await reviewJob(
          ctx.deps,
          ctx.actor,
          { ...input, jobId: databaseIdOf(input.jobId, 'Job', 'input.jobId') },
          ctx.meta,
        );
        return { job: presentJob(job), review: presentJobReview(review) };
      },
    },
    Job: {
      deviations: async (job: PresentedJob, _: unknown, ctx: Ctx) => (await ctx.loaders.jobDeviations.load(job.id)).map(presentDeviation),
      review: async (job: PresentedJob, _: unknown, ctx: Ctx) => {
        const reviews = await ctx.loaders.jobReviews.load(job.id);
        return reviews.length > 0 ? presentJobReview(reviews[reviews.length - 1]) : null;
      },
      viewerMayReview: async (job: PresentedJob, _: unknown, ctx: Ctx) => (await viewerReviewBlock(job, ctx)) === null,
      viewerReviewBlock: async (job: PresentedJob, _: unknown, ctx: Ctx) => {
        const block = await viewerReviewBlock(job, ctx);
        if (block?.reason !== 'TOOK_PART') return block;
        const version = await ctx.loaders.versionContent.load(job.versionId);
        const at = version && stepsOf(version.content).find(({ step }) => step.id === block.stepId);
        return { ...block, stepTitle: at ? at.step.title : null, stepNumber: at ? at.index + 1 : null };
      },
    },
    Step: {
      allowNotApplicable: (step: Step) => step.allowNotApplicable === true,
    },
    Deviation: {
      job: async (d: PresentedDeviation, _: unknown, ctx: Ctx) => {
        const job: JobRow | undefined = await ctx.loaders.job.load(d.jobId);
        return job ? presentJob(job) : null;
      },
      stepTitle: async (d: PresentedDeviation, _: unknown, ctx: Ctx) => {
        if (d.stepId === null) return null;
        const job: JobRow | undefined = await ctx.loaders.job.load(d.jobId);
        const version = job && (await ctx.loaders.versionContent.load(job.version_id));
        return (version && findStep(version.content, d.stepId)?.title) ?? null;
      },
      fault: async (d: PresentedDeviation, _: unknown, ctx: Ctx) => {
        if (d.faultId === null) return null;
        const faults = await ctx.loaders.jobFaults.load(d.jobId);
        const fault = faults.find((f) => f.id === d.faultId);
        return fault ? presentFault(fault) : null;
      },
      raisedBy: (d: PresentedDeviation, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        d.raisedById === null
          ? null
          : ctx.loaders
              .user(userColumns.of(info))
              .load(d.raisedById)
              .then((u) => u ?? null),
      acknowledgedBy: (d: PresentedDeviation, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        d.acknowledgedById === null
          ? null
          : ctx.loaders
              .user(userColumns.of(info))
              .load(d.acknowledgedById)
              .then((u) => u ?? null),
    },
    JobReview: {
      signer: (r: PresentedJobReview, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .user(userColumns.of(info))
          .load(r.signerId)
          .then((u) => u ?? null),
    },
  },
};
