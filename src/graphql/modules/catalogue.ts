import type { SchemaModule } from '../schema';
import type { GraphQLContext } from '../context';
import type { AssetRow, LocationRow, OrganizationRow, SensorRow } from '../../repos/catalogue';
import { presentSensorReading } from '../../presenters/catalogue';
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
} from '../../services/catalogue';

/**
 * The client's catalogue: organizations (visibility of templates), asset
 * classes, locations, assets, and sensor definitions.
 *
 * These types resolve from rows (as User does), so any module can answer an
 * `asset` field with `ctx.loaders.asset.load(id)` and nothing else.
 */
export const catalogueModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    type Organization {
      id: Int!
      name: String!
      parent: Organization
    }

    type AssetClass {
      id: Int!
      name: String!
      description: String!
    }

    type Location {
      id: Int!
      name: String!
      parent: Location
    }

    type Asset {
      id: Int!
      name: String!
      serialNumber: String
      location: Location
      assetClass: AssetClass
      "the spatial origin of 3D content placed on this asset"
      anchorId: String
      createdAt: DateTime!
    }

    type Sensor {
      id: Int!
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

    input CreateOrganizationInput {
      name: String!
      parentId: Int
    }

    input CreateAssetInput {
      name: String!
      serialNumber: String
      locationId: Int
      assetClassId: Int
      anchorId: String
    }

    input CreateAssetClassInput {
      name: String!
      description: String
    }

    input CreateLocationInput {
      name: String!
      parentId: Int
    }

    input CreateSensorInput {
      name: String!
      unit: String
      kind: String
    }

    extend type Query {
      organizations: [Organization!]!
      assets: [Asset!]!
      assetClasses: [AssetClass!]!
      locations: [Location!]!
      sensors: [Sensor!]!
    }

    extend type Mutation {
      createOrganization(input: CreateOrganizationInput!): Organization!
      createAsset(input: CreateAssetInput!): Asset!
      createAssetClass(input: CreateAssetClassInput!): AssetClass!
      createLocation(input: CreateLocationInput!): Location!
      createSensor(input: CreateSensorInput!): Sensor!
    }
  `,
  resolvers: {
    Query: {
      organizations: (_root, _args, ctx: GraphQLContext) => listOrganizations(ctx.deps, ctx.actor),
      assets: (_root, _args, ctx: GraphQLContext) => listAssets(ctx.deps, ctx.actor),
      assetClasses: (_root, _args, ctx: GraphQLContext) => listAssetClasses(ctx.deps, ctx.actor),
      locations: (_root, _args, ctx: GraphQLContext) => listLocations(ctx.deps, ctx.actor),
      sensors: (_root, _args, ctx: GraphQLContext) => listSensors(ctx.deps, ctx.actor),
    },
    Mutation: {
      createOrganization: (_root, args, ctx: GraphQLContext) => createOrganization(ctx.deps, ctx.actor, args.input),
      createAsset: (_root, args, ctx: GraphQLContext) => createAsset(ctx.deps, ctx.actor, args.input),
      createAssetClass: (_root, args, ctx: GraphQLContext) => createAssetClass(ctx.deps, ctx.actor, args.input),
      createLocation: (_root, args, ctx: GraphQLContext) => createLocation(ctx.deps, ctx.actor, args.input),
      createSensor: (_root, args, ctx: GraphQLContext) => createSensor(ctx.deps, ctx.actor, args.input),
    },
    Organization: {
      parent: (row: OrganizationRow, _args, ctx: GraphQLContext) => (row.parent_id === null ? null : ctx.loaders.organization.load(row.parent_id)),
    },
    Location: {
      parent: (row: LocationRow, _args, ctx: GraphQLContext) => (row.parent_id === null ? null : ctx.loaders.location.load(row.parent_id)),
    },
    Asset: {
      serialNumber: (row: AssetRow) => row.serial_number,
      anchorId: (row: AssetRow) => row.anchor_id,
      createdAt: (row: AssetRow) => row.created_at,
      location: (row: AssetRow, _args, ctx: GraphQLContext) => (row.location_id === null ? null : ctx.loaders.location.load(row.location_id)),
      assetClass: (row: AssetRow, _args, ctx: GraphQLContext) =>
        row.asset_class_id === null ? null : ctx.loaders.assetClass.load(row.asset_class_id),
    },
    Sensor: {
      latestReading: async (row: SensorRow, _args, ctx: GraphQLContext) => {
        const reading = await ctx.loaders.latestReading.load(row.id);
        return reading ? presentSensorReading(reading) : null;
      },
    },
  },
};
