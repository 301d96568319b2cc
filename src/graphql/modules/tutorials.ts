import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { completeTutorial, tutorialsInfo } from '#services/tutorials';
import { tutorialId, tutorialKeyOf } from '../ids';

/** The tutorials shipped with the build, and the caller's progress through them. */
export const tutorialsModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    type Tutorial implements Node {
      id: ID!
      "the tutorial's id in REST (GET /api/client/get-tutorials-info)"
      tutorialId: String!
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
      "Every tutorial of the build with the caller's completion state (as GET /api/client/get-tutorials-info): a list, the build's few."
      tutorials: [Tutorial!]!
    }

    input CompleteTutorialInput {
      tutorialId: ID!
    }

    type CompleteTutorialPayload {
      tutorial: Tutorial!
    }

    extend type Mutation {
      "Marks a tutorial completed for the caller; idempotent. Unknown id: NOT_FOUND."
      completeTutorial(input: CompleteTutorialInput!): CompleteTutorialPayload!
    }
  `,
  resolvers: {
    Query: {
      tutorials: (_root, _args, ctx: GraphQLContext) => tutorialsInfo(ctx.deps, ctx.actor),
    },
    Mutation: {
      completeTutorial: async (_root, { input }: { input: { tutorialId: string } }, ctx: GraphQLContext) => ({
        tutorial: await completeTutorial(ctx.deps, ctx.actor, tutorialKeyOf(input.tutorialId, 'input.tutorialId')),
      }),
    },
    Tutorial: {
      id: (tutorial: { id: string }) => tutorialId(tutorial.id),
      tutorialId: (tutorial: { id: string }) => tutorial.id,
    },
  },
};
