'use strict';
// Resolved from this package's own node_modules: openapi-typescript and its TypeScript 5 (a peer it calls at run time).
/** @param {object} document an OpenAPI 3.x document @returns {Promise<string>} the TypeScript declarations of its paths and components */
exports.generateTypes = async function generateTypes(document) {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  return astToString(await openapiTS(document));
};
