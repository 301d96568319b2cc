// Prettier: `npm run format` (write), `npm run format:check` (CI). Why these settings: docs/development.md.
/** @type {import('prettier').Config} */
export default {
  // the code was written to a soft limit of about 160; 140 keeps a route declaration or a guard on one line and two
  // panes side by side readable (the measurement is in docs/development.md)
  printWidth: 140,
  // the style the code already has
  singleQuote: true,
  trailingComma: 'all',
  arrowParens: 'always',
  endOfLine: 'lf',
};
