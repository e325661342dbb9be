// The layer table of docs/architecture.md ("Which module may import which"), kept by `npm run lint`:
// a module imports its own layer or those below it, never one above. Each pair of layers is a rule
// of its own, so a failure names both (e.g. `schema-imports-planners`). Type-only imports count too.
const layers = [
  ['entry points', '^(src/main\\.ts$|scripts/|bench/)'],
  ['shell', '^src/http/(server|app|context|websocket|graphiql)\\.ts$'],
  ['doors', '^(src/rest/|src/http/(?!(server|app|context|websocket|graphiql)\\.ts$)|src/files/http\\.ts$)'],
  ['planners', '^src/(read-plans/(?!(extensions|sql)\\.ts$)|write-plans/(?!extension\\.ts$))'],
  // The planner's vocabulary (readPlan, literal, writePlan) sits with the schema that annotates its fields.
  [
    'schema',
    '^(src/(schema|live|webhooks)/|src/files/(?!http\\.ts$)|src/read-plans/(extensions|sql)\\.ts$|src/write-plans/extension\\.ts$)',
  ],
  ['seed', '^src/db/seed/'],
  ['auth', '^src/auth/'],
  ['data', '^(src/db/(?!seed/)|src/observability/(?!(requests|tracing|otel-sdk)\\.ts$))'],
  ['bottom', '^(src/(config|settings|cli|runtime)\\.ts$|src/observability/(requests|tracing|otel-sdk)\\.ts$|src/generated/)'],
];

const slug = (name) => name.replace(/ /g, '-');

module.exports = {
  forbidden: [
    ...layers.flatMap(([lower, from], index) =>
      layers.slice(0, index).map(([upper, to]) => ({
        name: `${slug(lower)}-imports-${slug(upper)}`,
        comment: `the ${lower} layer imports the ${upper} layer above it (docs/architecture.md, "Which module may import which")`,
        severity: 'error',
        from: { path: from },
        to: { path: to },
      })),
    ),
    {
      name: 'unresolved-import',
      comment: 'an import of a file of the repository that resolves to none: the layers cannot be checked through it',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, path: '^[.]' },
    },
    {
      name: 'outside-the-layers',
      comment: 'a module of src/ that no layer of docs/architecture.md holds: give it one, there and here',
      severity: 'error',
      from: { path: '^src/', pathNot: layers.map(([, path]) => `(${path})`).join('|') },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/prisma/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
