import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { CONNECTION_ARGS, pageInput, toConnection, type ConnectionArgs } from '../connection';
import { presentVersionSummary, type PresentedVersionSummary } from '#presenters/templates';
import { presentJob } from '#presenters/jobs';
import type { SecuritySettings } from '#services/security-settings';
import {
  allowedVersionActions,
  openJobsOnOlderVersions,
  reviewQueue,
  reviewSettings,
  waitingSince,
  type QueueAction,
} from '#services/reviews';
import { VERSION_ACTIONS } from '#policies/transitions';
import { enumSdl } from '../enum-sdl';

/**
 * What approvers and publishers read (the floor app's review screens): the
 * queue of versions waiting for the caller, how long each has waited, what
 * the caller may do with a version now, and the jobs still running on older
 * versions of its template. The rules are in src/services/reviews.ts.
 */
type Ctx = GraphQLContext;
/** a version as the templates module presents it (rows read whole, or the columns a query selects) */
type Version = Pick<PresentedVersionSummary, 'id' | 'state' | 'createdById' | 'updatedById' | 'submittedAt' | 'approvedAt'>;

/** The client's security settings, read once per request however many versions ask for their actions. */
const settingsOf = new WeakMap<Ctx, Promise<SecuritySettings>>();
function settings(ctx: Ctx): Promise<SecuritySettings> {
  let found = settingsOf.get(ctx);
  if (!found) settingsOf.set(ctx, (found = reviewSettings(ctx.deps, ctx.actor)));
  return found;
}

const QUEUE_ACTION: Record<string, QueueAction> = { APPROVE: 'approve', PUBLISH: 'publish' };

export const reviewsModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    "An action of a version's life cycle (the transition table's)."
    ${enumSdl(
      'VersionAction',
      VERSION_ACTIONS.map((action) => action.toUpperCase()),
    )}

    "What a reviewer's queue holds: versions to approve (IN_REVIEW) or to publish (APPROVED)."
    enum ReviewQueueAction {
      APPROVE
      PUBLISH
    }

    extend type TemplateVersion {
      "when the version began waiting for its next step: submitted (IN_REVIEW) or approved (APPROVED); null in other states"
      waitingSince: DateTime
      "when it was last submitted for review"
      submittedAt: DateTime
      approvedAt: DateTime
      publishedAt: DateTime
      retiredAt: DateTime
      "what the caller may do with the version now, as its state, their roles and the separation of duties allow (a list: at most the five actions; the mutations check again)"
      viewerActions: [VersionAction!]!
      "jobs still running (OPEN, IN_PROGRESS, PAUSED) on older versions (lower numbers) of the template, in id order"
      openJobsOnOlderVersions(${CONNECTION_ARGS}): JobConnection!
    }

    extend type Query {
      """
      Versions waiting for an action the caller may take, in id order: IN_REVIEW ones when they may approve (not those
      they created or last edited, unless the client allows self-approval), APPROVED ones when they may publish;
      action: only those. Empty for a caller who may do neither.
      """
      reviewQueue(${CONNECTION_ARGS}, action: ReviewQueueAction): TemplateVersionConnection!
    }
  `,
  resolvers: {
    Query: {
      reviewQueue: async (_root, args: ConnectionArgs & { action?: string | null }, ctx: Ctx) => {
        const page = pageInput(args);
        const only = args.action ? QUEUE_ACTION[args.action] : null;
        return toConnection(await reviewQueue(ctx.deps, ctx.actor, only, page), page, presentVersionSummary);
      },
    },
    TemplateVersion: {
      waitingSince: (v: Version) => waitingSince({ state: v.state, submitted_at: v.submittedAt, approved_at: v.approvedAt }),
      viewerActions: async (v: Version, _args, ctx: Ctx) =>
        allowedVersionActions(ctx.actor, { state: v.state, created_by: v.createdById, updated_by: v.updatedById }, await settings(ctx)).map(
          (action) => action.toUpperCase(),
        ),
      openJobsOnOlderVersions: async (v: Version, args: ConnectionArgs, ctx: Ctx) => {
        const page = pageInput(args);
        return toConnection(await openJobsOnOlderVersions(ctx.deps, ctx.actor, v.id, page), page, presentJob);
      },
    },
  },
};
