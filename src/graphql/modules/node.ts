import type { GraphQLResolveInfo } from 'graphql';
import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { getDeviation, presentDeviation } from '#services/deviations';
import { decodeGlobalId, notANodeId, type DecodedId } from '../ids';
import { notFound, validationFailed } from '#errors';
import { getTemplate, getVersion } from '#services/templates';
import { getJob } from '#services/jobs';
import { getScheduleOfClient } from '#services/schedules';
import { presentSchedule } from '#presenters/schedules';
import { tutorialsInfo } from '#services/tutorials';
import { getFaultById } from '#repos/faults';
import { getHandOffById } from '#repos/hand-offs';
import { presentTemplate, presentVersion } from '#presenters/templates';
import { presentFault, presentHandOff, presentJob } from '#presenters/jobs';
import { presentFile } from '#presenters/files';
import { presentSkill } from '#services/qualifications';
import { userColumns } from './me';
import { requireCollaboration } from './hand-offs';

type Ctx = GraphQLContext;
/** nodes(ids) reads each id on its own (templates and jobs through their services): bounded like a page */
const MAX_NODES_IDS = 100;

/**
 * `node(id)` and `nodes(ids)`: any object by its global id, read through the same services and tenant-scoped
 * loaders as the type's own field — another client's id, or a template out of the caller's sight, is `null` with
 * NOT_FOUND exactly as `template(id)` answers it (and as REST's 404); an id that is none of the schema's is a
 * VALIDATION_ERROR naming the argument (in nodes(ids), that entry's: the others are answered). Each object is tagged with its type for the Node interface.
 */
async function fetchNode(decoded: DecodedId, ctx: Ctx, info: GraphQLResolveInfo): Promise<{ __typename: string }> {
  const found = await read(decoded, ctx, info);
  if (found === undefined || found === null) throw notFound(decoded.type);
  return { ...found, __typename: decoded.type };
}

async function read(decoded: DecodedId, ctx: Ctx, info: GraphQLResolveInfo): Promise<object | undefined | null> {
  const { deps, actor, loaders } = ctx;
  switch (decoded.type) {
    case 'User':
      return loaders.user(userColumns.of(info)).load(decoded.id);
    case 'Organization':
      return loaders.organization.load(decoded.id);
    case 'AssetClass':
      return loaders.assetClass.load(decoded.id);
    case 'Location':
      return loaders.location.load(decoded.id);
    case 'Asset':
      return loaders.asset.load(decoded.id);
    case 'Sensor':
      return loaders.sensor.load(decoded.id);
    case 'File': {
      const file = await loaders.file.load(decoded.id);
      return file && presentFile(file);
    }
    case 'Template':
      return presentTemplate(await getTemplate(deps, actor, decoded.id));
    case 'TemplateVersion':
      return presentVersion(await getVersion(deps, actor, decoded.id));
    case 'Job':
      return presentJob(await getJob(deps, actor, decoded.id));
    case 'Fault':
      return presentFault(await getFaultById(deps.db.kysely, actor.scope, decoded.id));
    case 'HandOff':
      // every user of the client reads the client's jobs, so their hand-offs (licensed like Job.handOffs)
      await requireCollaboration(ctx);
      return presentHandOff(await getHandOffById(deps.db.kysely, actor.scope, decoded.id));
    case 'Deviation':
      return presentDeviation(await getDeviation(deps, actor, decoded.id));
    case 'Skill': {
      const skill = await loaders.skill.load(decoded.id);
      return skill && presentSkill(skill);
    }
    case 'Schedule':
      return presentSchedule(await getScheduleOfClient(deps, actor, decoded.id), await loaders.timeZone.load(actor.scope.clientId));
    case 'Tutorial':
      return (await tutorialsInfo(deps, actor)).find((tutorial) => tutorial.id === decoded.key);
    case 'Section':
    case 'Step': {
      const version = presentVersion(await getVersion(deps, actor, decoded.versionId));
      for (const section of version.content.sections) {
        if (decoded.type === 'Section' && section.id === decoded.key) return { ...section, versionId: version.id };
        const step = decoded.type === 'Step' ? section.steps.find((s) => s.id === decoded.key) : undefined;
        if (step) return { ...step, versionId: version.id };
      }
      return undefined;
    }
  }
}

function decodeArgument(id: unknown, path: string): DecodedId {
  const decoded = decodeGlobalId(id);
  if (!decoded) throw notANodeId(path);
  return decoded;
}

/**
 * One entry of nodes(ids): the object, or its error as the entry's value — never a rejected promise. Both executors
 * answer an Error value as null plus an error at the entry's index; graphql-jit (0.8) pushes the null of a rejected
 * item at the end of the list instead, so a compiled run lost or moved entries.
 */
async function entryOf(fetch: () => Promise<object>): Promise<object> {
  try {
    return await fetch();
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

export const nodeModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    extend type Query {
      "Any object by its global id (the id field of a Node). Not the caller's to see: null, with NOT_FOUND."
      node(id: ID!): Node
      "Objects by their global ids, in the order given (at most 100); one not the caller's to see is null, with NOT_FOUND at its index; a malformed one null, with VALIDATION_ERROR at its index."
      nodes(ids: [ID!]!): [Node]!
    }
  `,
  resolvers: {
    Query: {
      node: (_root, args: { id: string }, ctx: Ctx, info) => fetchNode(decodeArgument(args.id, 'id'), ctx, info),
      nodes: (_root, args: { ids: string[] }, ctx: Ctx, info) => {
        if (args.ids.length > MAX_NODES_IDS) throw validationFailed({ fields: [{ path: 'ids', message: `at most ${MAX_NODES_IDS} ids` }] });
        return args.ids.map((id, i) => entryOf(() => fetchNode(decodeArgument(id, `ids.${i}`), ctx, info)));
      },
    },
  },
};
