/** The TypeScript declarations (openapi-typescript's `paths`, `components`, `operations`) of an OpenAPI 3.x document. */
export function generateTypes(document: object): Promise<string>;
