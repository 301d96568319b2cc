import type { SchemaModule } from '../schema';
import type { GraphQLContext } from '../context';
import { completeTutorial, tutorialsInfo } from '../../services/tutorials';

/** The tutorials shipped with the build, and the caller's progress through them. */
export const tutorialsModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    type Tutorial {
      id: String!
      title: String!
      description: String!
      "the roles the tutorial is meant for"
      roles: [String!]!
      estimatedMinutes: Int!
      "meant for one of the caller's roles"
      forYou: Boolean!
      completed: Boolean!
      completedAt: DateTime
    }

    extend type Query {
      "Every tutorial of the build with the caller's completion state (as GET /api/client/get-tutorials-info)."
      tutorials: [Tutorial!]!
    }

    extend type Mutation {
      "Marks a tutorial completed for the caller; idempotent. Unknown id: NOT_FOUND."
      completeTutorial(tutorialId: String!): Tutorial!
    }
  `,
  resolvers: {
    Query: {
      tutorials: (_root, _args, ctx: GraphQLContext) => tutorialsInfo(ctx.deps, ctx.actor),
    },
    Mutation: {
      completeTutorial: (_root, args: { tutorialId: string }, ctx: GraphQLContext) => completeTutorial(ctx.deps, ctx.actor, args.tutorialId),
    },
  },
};
