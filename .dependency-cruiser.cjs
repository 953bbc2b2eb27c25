/**
 * The import rules of src/ (run by `npm run lint`): no circle of files; every import points down
 * the layers below; shared code names no family, and a family's modules import no other family's.
 * The families are those with a manifest in src/families (`<family>.ts`) and a folder in src/domain;
 * the other files of src/families (the list, the manifest type, the core's declaration) are shared.
 */
const fs = require('node:fs');
const path = require('node:path');

const FAMILIES = fs
  .readdirSync(path.join(__dirname, 'src', 'families'))
  .filter((f) => f.endsWith('.ts') && fs.existsSync(path.join(__dirname, 'src', 'domain', f.slice(0, -3))))
  .map((f) => f.slice(0, -3));
const FAMILY = `(${FAMILIES.join('|')})`;

/** Layers from the bottom up: a module may import its own layer's modules and those below. */
const LAYERS = [
  ['crypto', '^src/crypto/'],
  ['log', '^src/log\\.ts$'],
  ['config', '^src/config(\\.ts$|/)'],
  ['telemetry', '^src/telemetry/'],
  ['auth', '^src/auth/'],
  ['db', '^src/db/'],
  ['storage', '^src/storage/'],
  ['core', '^src/core/'],
  ['dev', '^src/dev/'],
  ['domain', '^src/domain/'],
  ['adapters', '^src/(ai|github)/'],
  ['services', '^src/services/'],
  ['activities', '^src/activities/'],
  ['api', '^src/api/'],
  ['workflows', '^src/workflows/'],
  ['families', '^src/families/'],
  ['entry points', '^src/(workers/|cli/|server\\.ts$)'],
];

const upward = LAYERS.flatMap(([name, from], i) => {
  const above = LAYERS.slice(i + 1).map(([, p]) => p);
  if (above.length === 0) return [];
  return [{
    name: `layer-${name.replace(/\s+/g, '-')}`,
    comment: `${name} imports only its own layer and those below it`,
    severity: 'error',
    from: { path: from },
    to: { path: above.join('|') },
  }];
});

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
    ...upward,
    {
      name: 'family-isolation',
      comment: "a family's modules import no other family's modules",
      severity: 'error',
      from: { path: `^src/(?:api/routes|[^/]+)/${FAMILY}(?:/|\\.ts$)` },
      to: { path: `^src/(?:api/routes|[^/]+)/${FAMILY}(?:/|\\.ts$)`, pathNot: `^src/(?:api/routes|[^/]+)/$1(?:/|\\.ts$)` },
    },
    {
      name: 'shared-names-no-family',
      comment:
        "shared code (outside the families' folders, the manifests and the entry points) imports no family's module; " +
        "src/workflows/index.ts re-exports every family's workflows because the workflow bundler needs static exports",
      severity: 'error',
      from: { path: '^src/', pathNot: [`^src/(?:api/routes|[^/]+)/${FAMILY}(?:/|\\.ts$)`, '^src/families/', '^src/(workers|cli)/', '^src/server\\.ts$', '^src/workflows/index\\.ts$'] },
      to: { path: `^src/(?:api/routes|[^/]+)/${FAMILY}(?:/|\\.ts$)` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.d\\.ts$' },
  },
};
