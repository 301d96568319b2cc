import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import type { AssetRow, LocationRow, OrganizationRow, SensorRow } from '#repos/catalogue';
import { presentSensorReading } from '#presenters/catalogue';
import { CONNECTION_ARGS, connectionTypeDefs, pageInput, toConnection, type ConnectionArgs } from '../connection';
import type { CountedPage, PageInput } from '#db/pagination';
import { optionalDatabaseIdOf } from '../ids';
import {
  createAsset,
  createAssetClass,
  createLocation,
  createOrganization,
  createSensor,
  listAssetClasses,
  listAssets,
  listLocations,
  listOrganizations,
  listSensors,
} from '#services/catalogue';

type Ctx = GraphQLContext;
const same = <T>(row: T) => row;

/** A catalogue list as a connection: the rows resolve as they are (the types resolve from rows). */
const listed =
  <T extends { id: number }>(list: (deps: Ctx['deps'], actor: Ctx['actor'], page: PageInput) => Promise<CountedPage<T>>) =>
  async (_root: unknown, args: ConnectionArgs, ctx: Ctx) => {
    const page = pageInput(args);
    return toConnection(await list(ctx.deps, ctx.actor, page), page, same);
  };

/**
 * The client's catalogue: organizations (visibility of templates), asset
 * classes, locations, assets, and sensor definitions.
 *
 * These types resolve from rows (as User does), so any module can answer an
 * `asset` field with `ctx.loaders.asset.load(id)` and nothing else.
 */
export const catalogueModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    type Organization implements Node {
      id: ID!
      databaseId: Int!
      name: String!
      parent: Organization
    }

    type AssetClass implements Node {
      id: ID!
      databaseId: Int!
      name: String!
      description: String!
    }

    type Location implements Node {
      id: ID!
      databaseId: Int!
      name: String!
      parent: Location
    }

    type Asset implements Node {
      id: ID!
      databaseId: Int!
      name: String!
      serialNumber: String
      location: Location
      assetClass: AssetClass
      "the spatial origin of 3D content placed on this asset"
      anchorId: String
      createdAt: DateTime!
    }

    type Sensor implements Node {
      id: ID!
      "the id readings name (POST /api/client/update-sensors) and SENSOR fields hold"
      databaseId: Int!
      name: String!
      unit: String!
      kind: String!
      "the newest reading received, if any"
      latestReading: SensorReading
    }

    type SensorReading {
      readingId: String!
      value: Float!
      timestamp: DateTime!
    }

    ${connectionTypeDefs('Organization')}
    ${connectionTypeDefs('AssetClass')}
    ${connectionTypeDefs('Location')}
    ${connectionTypeDefs('Asset')}
    ${connectionTypeDefs('Sensor')}

    input CreateOrganizationInput {
      name: String!
      parentId: ID
    }

    input CreateAssetInput {
      name: String!
      serialNumber: String
      locationId: ID
      assetClassId: ID
      anchorId: String
    }

    input CreateAssetClassInput {
      name: String!
      description: String
    }

    input CreateLocationInput {
      name: String!
      parentId: ID
    }

    input CreateSensorInput {
      name: String!
      unit: String
      kind: String
    }

    type CreateOrganizationPayload {
      organization: Organization!
    }

    type CreateAssetPayload {
      asset: Asset!
    }

    type CreateAssetClassPayload {
      assetClass: AssetClass!
    }

    type CreateLocationPayload {
      location: Location!
    }

    type CreateSensorPayload {
      sensor: Sensor!
    }

    extend type Query {
      "in id (creation) order"
      organizations(${CONNECTION_ARGS}): OrganizationConnection!
      assets(${CONNECTION_ARGS}): AssetConnection!
      assetClasses(${CONNECTION_ARGS}): AssetClassConnection!
      locations(${CONNECTION_ARGS}): LocationConnection!
      sensors(${CONNECTION_ARGS}): SensorConnection!
    }

    extend type Mutation {
      createOrganization(input: CreateOrganizationInput!): CreateOrganizationPayload!
      createAsset(input: CreateAssetInput!): CreateAssetPayload!
      createAssetClass(input: CreateAssetClassInput!): CreateAssetClassPayload!
      createLocation(input: CreateLocationInput!): CreateLocationPayload!
      createSensor(input: CreateSensorInput!): CreateSensorPayload!
    }
  `,
  resolvers: {
    Query: {
      organizations: listed(listOrganizations),
      assets: listed(listAssets),
      assetClasses: listed(listAssetClasses),
      locations: listed(listLocations),
      sensors: listed(listSensors),
    },
    // the services answer REST's presented shape; the payload's entity is the row (these types resolve from rows), read
    // back — awaited here: graphql-jit does not await a promise found in a payload's property
    Mutation: {
      createOrganization: async (_root, { input }, ctx: Ctx) => {
        const created = await createOrganization(ctx.deps, ctx.actor, {
          ...input,
          parentId: optionalDatabaseIdOf(input.parentId, 'Organization', 'input.parentId'),
        });
        return { organization: await ctx.loaders.organization.load(created.id) };
      },
      createAsset: async (_root, { input }, ctx: Ctx) => {
        const created = await createAsset(ctx.deps, ctx.actor, {
          ...input,
          locationId: optionalDatabaseIdOf(input.locationId, 'Location', 'input.locationId'),
          assetClassId: optionalDatabaseIdOf(input.assetClassId, 'AssetClass', 'input.assetClassId'),
        });
        return { asset: await ctx.loaders.asset.load(created.id) };
      },
      createAssetClass: async (_root, { input }, ctx: Ctx) => ({
        assetClass: await ctx.loaders.assetClass.load((await createAssetClass(ctx.deps, ctx.actor, input)).id),
      }),
      createLocation: async (_root, { input }, ctx: Ctx) => {
        const created = await createLocation(ctx.deps, ctx.actor, {
          ...input,
          parentId: optionalDatabaseIdOf(input.parentId, 'Location', 'input.parentId'),
        });
        return { location: await ctx.loaders.location.load(created.id) };
      },
      createSensor: async (_root, { input }, ctx: Ctx) => ({
        sensor: await ctx.loaders.sensor.load((await createSensor(ctx.deps, ctx.actor, input)).id),
      }),
    },
    Organization: {
      parent: (row: OrganizationRow, _args, ctx: Ctx) => (row.parent_id === null ? null : ctx.loaders.organization.load(row.parent_id)),
    },
    Location: {
      parent: (row: LocationRow, _args, ctx: Ctx) => (row.parent_id === null ? null : ctx.loaders.location.load(row.parent_id)),
    },
    Asset: {
      serialNumber: (row: AssetRow) => row.serial_number,
      anchorId: (row: AssetRow) => row.anchor_id,
      createdAt: (row: AssetRow) => row.created_at,
      location: (row: AssetRow, _args, ctx: Ctx) => (row.location_id === null ? null : ctx.loaders.location.load(row.location_id)),
      assetClass: (row: AssetRow, _args, ctx: Ctx) =>
        row.asset_class_id === null ? null : ctx.loaders.assetClass.load(row.asset_class_id),
    },
    Sensor: {
      latestReading: async (row: SensorRow, _args, ctx: Ctx) => {
        const reading = await ctx.loaders.latestReading.load(row.id);
        return reading ? presentSensorReading(reading) : null;
      },
    },
  },
};
