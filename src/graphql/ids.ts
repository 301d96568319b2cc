import { validationFailed } from '#errors';

/**
 * Global object ids (the `ID` of every `Node`): the type name and the object's key, `Type:key` — readable in a
 * log or a README example, and opaque to clients, who only hand them back. The key is the database id for the
 * types REST also speaks of (`Template:12`; the integer stays readable as `databaseId`), the tutorial's own id
 * (`Tutorial:first-job`), and for a version's sections and steps the version's database id and the stable key
 * (`Step:34:step_9f…`): a step keeps its key from version to version — records, step owners and faults refer to
 * it — so a normalised client cache (Apollo, urql's graphcache, Relay) would otherwise hold one object for every
 * version's copy of a step and show one version's texts in another.
 */
export const INTEGER_NODE_TYPES = [
  'User',
  'Organization',
  'AssetClass',
  'Location',
  'Asset',
  'Sensor',
  'Template',
  'TemplateVersion',
  'Job',
  'Fault',
  'File',
  'Deviation',
  'Skill',
  'Schedule',
  'HandOff',
] as const;
export type IntegerNodeType = (typeof INTEGER_NODE_TYPES)[number];
export type VersionPartType = 'Section' | 'Step';

const INTEGER_TYPES = new Set<string>(INTEGER_NODE_TYPES);
const DATABASE_ID = /^[1-9][0-9]{0,14}$/;
/** the keys of steps, sections (letters, digits, _ and -) and tutorials */
const KEY = /^[A-Za-z0-9_.-]{1,64}$/;

export type DecodedId =
  { type: IntegerNodeType; id: number } | { type: VersionPartType; versionId: number; key: string } | { type: 'Tutorial'; key: string };

export function globalId(type: IntegerNodeType, id: number): string {
  return `${type}:${id}`;
}

export function versionPartId(type: VersionPartType, versionId: number, key: string): string {
  return `${type}:${versionId}:${key}`;
}

export function tutorialId(key: string): string {
  return `Tutorial:${key}`;
}

/** What a global id names, or undefined when it is not one (the caller answers VALIDATION_ERROR naming its argument). */
export function decodeGlobalId(value: unknown): DecodedId | undefined {
  if (typeof value !== 'string' || value.length > 200) return undefined;
  const [type, ...rest] = value.split(':');
  if (type === undefined) return undefined;
  if (INTEGER_TYPES.has(type))
    return rest.length === 1 && DATABASE_ID.test(rest[0]) ? { type: type as IntegerNodeType, id: Number(rest[0]) } : undefined;
  if (type === 'Section' || type === 'Step') {
    return rest.length === 2 && DATABASE_ID.test(rest[0]) && KEY.test(rest[1])
      ? { type, versionId: Number(rest[0]), key: rest[1] }
      : undefined;
  }
  if (type === 'Tutorial') return rest.length === 1 && KEY.test(rest[0]) ? { type, key: rest[0] } : undefined;
  return undefined;
}

const notAnId = (path: string, expected: string) =>
  validationFailed({ fields: [{ path, message: `must be ${expected} id (as its id field gives it)` }] });

/** The database id an `ID` argument names; `path` names the argument in the VALIDATION_ERROR a wrong id answers. */
export function databaseIdOf(value: unknown, type: IntegerNodeType, path: string): number {
  const decoded = decodeGlobalId(value);
  if (decoded?.type !== type) throw notAnId(path, `a ${type}`);
  return (decoded as { id: number }).id;
}

/** `databaseIdOf` for an optional argument: null and undefined pass through. */
export function optionalDatabaseIdOf(value: unknown, type: IntegerNodeType, path: string): number | null | undefined {
  return value === null || value === undefined ? value : databaseIdOf(value, type, path);
}

/** `databaseIdOf` for each id of a list argument (paths `name.0`, `name.1`, …). */
export function databaseIdsOf(
  values: readonly unknown[] | null | undefined,
  type: IntegerNodeType,
  path: string,
): number[] | null | undefined {
  return values === null || values === undefined ? values : values.map((value, i) => databaseIdOf(value, type, `${path}.${i}`));
}

/** The tutorial a `Tutorial` id names. */
export function tutorialKeyOf(value: unknown, path: string): string {
  const decoded = decodeGlobalId(value);
  if (decoded?.type !== 'Tutorial') throw notAnId(path, 'a Tutorial');
  return decoded.key;
}

/** A node's id when it is none of the schema's: the message names what ids look like. */
export const notANodeId = (path: string) => notAnId(path, "an object's");
