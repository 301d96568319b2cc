import type { GraphQLResolveInfo } from 'graphql';
import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { CONNECTION_ARGS, connectionFromArray, connectionTypeDefs, type ConnectionArgs } from '../connection';
import { featureNotLicensed } from '#errors';
import type { JobRow } from '#db/schema';
import { presentHandOff, presentJob, type PresentedJob } from '#presenters/jobs';
import { currentLicense } from '#services/licensing/index';
import { userColumns } from './me';
import { HAND_OFF_STATUSES } from '#domain/vocabulary';
import { enumSdl } from '../enum-sdl';

type Ctx = GraphQLContext;
type PresentedHandOff = ReturnType<typeof presentHandOff>;

/**
 * A job's hand-offs from one operator to another (docs/api/contract.md 4.6), for whoever may read the job: the REST
 * routes list only the caller's own. Licensed like them (the `collaboration` feature); the field is nullable so that
 * an unlicensed installation still gets the rest of the job, with a FEATURE_NOT_LICENSED error at the field.
 */

/** @throws AppError FEATURE_NOT_LICENSED — the same licence feature as the REST hand-off routes */
export async function requireCollaboration(ctx: Ctx): Promise<void> {
  if (!(await currentLicense(ctx.deps)).terms.features.includes('collaboration')) throw featureNotLicensed('collaboration');
}

export const handOffsModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    ${enumSdl('HandOffStatus', HAND_OFF_STATUSES, {
      PENDING: 'offered, not yet decided',
      ACCEPTED: 'the receiver took the job over (became its assignee)',
      CANCELLED: 'withdrawn by the sender',
    })}

    "A job handed from one operator to another (POST /api/client/workingTogether)."
    type HandOff implements Node {
      id: ID!
      "the hand-off's id in REST (handOffId of POST /api/client/workingTogether)"
      databaseId: Int!
      job: Job!
      "who handed the job off (null: the account is gone)"
      from: User
      "to whom (null: the account is gone)"
      to: User
      status: HandOffStatus!
      "the sender's note (may be empty)"
      note: String!
      "when the job was handed off"
      createdAt: DateTime!
      "when it was accepted, declined or cancelled (null while PENDING)"
      decidedAt: DateTime
    }

    ${connectionTypeDefs('HandOff')}

    extend type Job {
      "in id order (the oldest first); null, with FEATURE_NOT_LICENSED, when the licence lacks collaboration"
      handOffs(${CONNECTION_ARGS}): HandOffConnection
    }
  `,
  resolvers: {
    Job: {
      // a job's hand-offs are batched for a page of jobs (one statement): paged in memory, like its faults
      handOffs: async (job: PresentedJob, args: ConnectionArgs, ctx: Ctx) => {
        await requireCollaboration(ctx);
        return connectionFromArray(await ctx.loaders.jobHandOffs.load(job.id), args, presentHandOff);
      },
    },
    HandOff: {
      job: async (h: PresentedHandOff, _: unknown, ctx: Ctx) => {
        const job: JobRow | undefined = await ctx.loaders.job.load(h.jobId);
        return job ? presentJob(job) : null;
      },
      from: (h: PresentedHandOff, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .user(userColumns.of(info))
          .load(h.fromUserId)
          .then((u) => u ?? null),
      to: (h: PresentedHandOff, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders
          .user(userColumns.of(info))
          .load(h.toUserId)
          .then((u) => u ?? null),
    },
  },
};
