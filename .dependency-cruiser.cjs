/**
 * The layer rules of src/ (docs/architecture/layers.md), checked by `npm run deps:check` in .ci/run.
 *
 * Layers, top to bottom. A module may import its own layer and any layer below it, never one above,
 * and no import may close a circle — type-only imports included (`import type` is a dependency of the
 * design even when the compiler erases it). The console (src/console) and the floor app (src/app) are separate
 * browser programs: the app may share only the pure rules of the domain layer with the server.
 */
const LAYERS = [
  ['root', 'the composition root and the entry points: the CLI, the HTTP app, composition.ts', '^src/(cli/|app[.]ts$|composition[.]ts$)'],
  ['api', 'REST routes and GraphQL: declarations and thin handlers over services', '^src/(http|graphql)/'],
  ['workers', 'background workers: senders, live streams and tails, backup jobs', '^src/workers/'],
  ['ops', 'operations: bootstrap, backup/restore, maintenance, doctor, upgrades', '^src/ops/'],
  [
    'services',
    'the rules: one function per use case, in transactions; webhook events (events/), mail texts',
    '^src/(services|events|mail)/',
  ],
  ['presenters', 'API shapes of rows (zod response schemas)', '^src/presenters/'],
  ['deps', 'the Deps interface and the Signals port (declarations only)', '^src/deps[.]ts$'],
  ['repos', 'SQL, one module per table family; the secrets store', '^src/(repos/|secrets[.]ts$)'],
  [
    'domain',
    'pure rules: content, recording, transitions, roles, permissions, license terms',
    '^src/(domain/(?!vocabulary[.]ts$)|policies/|licensing/)',
  ],
  ['db', 'connection, schema types, migrator, transactions, tenancy', '^src/db/'],
  ['base', 'lib, storage, config, logger, errors', '^src/(lib/|storage/|config[.]ts$|logger[.]ts$|errors[.]ts$)'],
  // the shared names (states, kinds) import nothing: the row types of src/db may use them, and so may the apps
  ['vocabulary', 'the names of states and kinds shared by the schema, the rules, the server and the apps', '^src/domain/vocabulary[.]ts$'],
];

const above = (i) => LAYERS.slice(0, i).map(([, , path]) => path);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle of imports (type-only ones included) ties its modules into one: break it by moving the shared type down.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...LAYERS.slice(1).map(([name, what, path], i) => ({
      name: `layer-${name}`,
      severity: 'error',
      comment: `${name} (${what}) may import only its own layer and those below it (docs/architecture/layers.md)`,
      from: { path },
      to: { path: above(i + 1) },
    })),
    {
      name: 'in-a-layer',
      severity: 'error',
      comment: 'Every server module belongs to a layer: add a new top-level folder to LAYERS in .dependency-cruiser.cjs.',
      from: { path: '^src/', pathNot: ['^src/(console|app)/', ...LAYERS.map(([, , path]) => path)] },
      to: {},
    },
    {
      name: 'app-shares-only-pure-rules',
      severity: 'error',
      comment:
        'The floor app (src/app) is a browser program: of the server it may bundle only pure rules (src/policies, src/domain) and its texts (lib/app-texts).',
      from: { path: '^src/app/' },
      to: { path: '^src/', pathNot: ['^src/(app|policies|domain)/', '^src/lib/app-texts[.]ts$'] },
    },
    {
      name: 'src-not-to-tests-or-scripts',
      severity: 'error',
      comment: 'The product does not import its tests or build scripts.',
      from: { path: '^src/' },
      to: { path: '^(test|scripts)/' },
    },
  ],
  options: {
    // what the cruise starts from is given on the command line (npm run deps:check: src)
    includeOnly: '^src/',
    exclude: { path: '^src/console/' },
    // src/app is cruised (for app-shares-only-pure-rules) but its own imports are not layered
    doNotFollow: { path: 'node_modules' },
    // TypeScript 7 (the project's compiler) has no JavaScript API for dependency-cruiser: swc parses instead.
    // swc reports every import, `import type` included, so a type-only circle or upward import is still one.
    parser: 'swc',
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['wip-source', 'types', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.json'],
    },
    reporterOptions: {
      archi: { collapsePattern: '^src/[^/]+(/|[.]ts$)' },
      text: { highlightFocused: true },
    },
  },
};
