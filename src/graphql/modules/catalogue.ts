import type { SchemaModule } from '../schema';

/**
 * The client's catalogue: organizations (visibility of templates), asset
 * classes, locations, assets, and sensor definitions.
 * TODO(issue 8): resolvers — owned by the catalogue/templates work.
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
  resolvers: {},
};
