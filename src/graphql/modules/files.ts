import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import type { FileRow } from '#db/schema';
import { presentFile } from '#presenters/files';

type Ctx = GraphQLContext;

/** Loads files by id, in the order given; ids that name no file of the client are left out. */
async function files(ctx: Ctx, ids: readonly number[]) {
  const rows = await ctx.loaders.file.loadMany([...ids]);
  return rows.filter((row): row is FileRow => row !== undefined && !(row instanceof Error)).map(presentFile);
}

/**
 * Files where the domain refers to them: step media and models, fault photos,
 * recorded PHOTO and SIGNATURE values. The id lists stay on their types
 * (media, photos, model.fileId, value); these fields
 * add the files themselves, with the URL to download them from.
 */
export const filesModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    "A stored file of the client. Its bytes: GET url (ETag, If-None-Match, single byte ranges)."
    type File implements Node {
      id: ID!
      "the file's id in REST (GET /api/client/files/:id…), and what documents hold: media, photos, PHOTO and SIGNATURE values"
      databaseId: Int!
      name: String!
      "bytes (a Float: files may pass 2 GiB)"
      size: Float!
      "detected from the bytes when uploaded"
      contentType: String!
      url: String!
      sha256: String!
      description: String!
      createdAt: DateTime!
    }

    extend type Step {
      "the files of media, in order"
      mediaFiles: [File!]!
    }

    extend type StepModel {
      file: File
    }

    extend type Fault {
      "the files of photos, in order"
      photoFiles: [File!]!
    }

    extend type FieldValue {
      "the files of a PHOTO (in order) or SIGNATURE value; empty for other fields"
      files: [File!]!
    }
  `,
  resolvers: {
    Step: {
      mediaFiles: (step: { media: number[] }, _: unknown, ctx: Ctx) => files(ctx, step.media),
    },
    StepModel: {
      file: async (model: { fileId: number }, _: unknown, ctx: Ctx) => (await files(ctx, [model.fileId]))[0] ?? null,
    },
    Fault: {
      photoFiles: (fault: { photos: number[] }, _: unknown, ctx: Ctx) => files(ctx, fault.photos),
    },
    FieldValue: {
      files: (value: { fileIds: number[] }, _: unknown, ctx: Ctx) => files(ctx, value.fileIds),
    },
  },
};
