/**
 * The verifier page's files among the console's built assets (dist/console,
 * scripts/build-console.ts): the page served at /verify/ (its script a file,
 * under the strict CSP) and the self-contained download (its script inline).
 */
export const VERIFIER_PAGE = 'verify.html';
export const VERIFIER_DOWNLOAD = 'wip-verifier.html';
