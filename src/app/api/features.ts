import { graphql } from './client';

/**
 * Fields of the GraphQL schema that arrive with other work than the app's
 * (the operator's "not applicable" flag, `Step.allowNotApplicable`, came in
 * with the deviations). Selecting a field the server does not have
 * fails the whole query, so the app asks the schema once (introspection) and
 * selects — and offers — such a field only where the server has it. A server
 * that cannot be asked (offline) is taken to lack them: nothing is offered
 * that could not be sent.
 */
let stepFields: Promise<ReadonlySet<string>> | undefined;

function fieldsOfStep(): Promise<ReadonlySet<string>> {
  stepFields ??= graphql<{ __type: { fields: { name: string }[] } | null }>(
    'query AppStepFields { __type(name: "Step") { fields { name } } }',
  ).then(
    (data) => new Set((data.__type?.fields ?? []).map((f) => f.name)),
    () => {
      stepFields = undefined; // ask again next time: the network may be back
      return new Set<string>();
    },
  );
  return stepFields;
}

/** Whether steps carry `allowNotApplicable` (GraphQL Step and StepInput). */
export async function serverHasNotApplicable(): Promise<boolean> {
  return (await fieldsOfStep()).has('allowNotApplicable');
}
