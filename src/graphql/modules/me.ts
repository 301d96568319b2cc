import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { USER_SUMMARY_COLUMNS, type UserWithRoles } from '#repos/users';
import { SelectedColumns } from '../columns';
import { currentDataEpoch } from '#services/sync';

/** What each User field reads of a user row (loaders read only those: `ctx.loaders.user(userColumns.of(info))`). */
export const userColumns = new SelectedColumns({
  all: USER_SUMMARY_COLUMNS,
  always: ['id'],
  byField: {
    id: [],
    databaseId: [],
    email: ['email'],
    firstName: ['first_name'],
    lastName: ['last_name'],
    title: ['title'],
    roles: [],
    licenseType: ['license_type'],
  },
});

/** The signed-in user, and the User type every other module points at. */
export const meModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    type User implements Node {
      id: ID!
      "the user's id in REST"
      databaseId: Int!
      email: String!
      firstName: String!
      lastName: String!
      title: String!
      roles: [String!]!
      licenseType: String!
    }

    extend type Query {
      "The signed-in user."
      me: User!
      "The data epoch (also the Wip-Data-Epoch header of every answer under /api/client): replaced by every restore; a device resends what was acknowledged under another (docs/reliability.md)."
      dataEpoch: String!
    }
  `,
  resolvers: {
    Query: {
      me: (_root, _args, ctx: GraphQLContext) => ctx.actor.user,
      dataEpoch: (_root, _args, ctx: GraphQLContext) => currentDataEpoch(ctx.deps),
    },
    User: {
      // the signed-in user comes with its roles; users from the loaders get them when asked
      roles: (user: { id: number; roles?: string[] }, _args, ctx: GraphQLContext) => user.roles ?? ctx.loaders.rolesOfUser.load(user.id),
      firstName: (user: UserWithRoles) => user.first_name,
      lastName: (user: UserWithRoles) => user.last_name,
      licenseType: (user: UserWithRoles) => user.license_type,
    },
  },
};
