/**
 * The SDL of a GraphQL enum whose values are a list of the domain's (src/domain/vocabulary.ts, or a transition
 * table's actions): the list is the one source and the schema follows it, so the server, the database's row types,
 * the floor app and the schema cannot spell a state differently. A value's description is given beside the list,
 * keyed by the value (a description of a value the list does not hold does not compile).
 */
export function enumSdl<V extends string>(name: string, values: readonly V[], descriptions: Partial<Record<V, string>> = {}): string {
  const lines = values.map((value) => (descriptions[value] ? `${JSON.stringify(descriptions[value])}\n${value}` : value));
  return `enum ${name} {\n${lines.join('\n')}\n}`;
}
