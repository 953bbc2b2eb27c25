// ESLint 9 flat config: typescript-eslint's recommended rules, type-aware floating-promise checks,
// and the workflow sandbox guard (workflows import no I/O modules; activities and db only as types).
const { builtinModules } = require('node:module');
const { defineConfig, globalIgnores } = require('eslint/config');
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('_'));
const ioPackages = ['pg', 'undici', 'axios', 'pino', 'fastify'];
const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const workflowImportBans = {
  paths: [...nodeBuiltins.filter((m) => !m.includes('/')), ...ioPackages].map((name) => ({
    name,
    message: 'Workflows are deterministic and sandboxed: no Node built-ins or I/O libraries (use an activity).',
  })),
  patterns: [
    {
      regex: `^(node:|(${nodeBuiltins.map(escapeRegex).join('|')})/)`,
      message: 'Workflows are deterministic and sandboxed: no Node built-ins (use an activity).',
    },
    {
      regex: `^(@prisma/|\\.prisma(/|$)|@octokit/|(${ioPackages.join('|')})/)`,
      message: 'Workflows do no I/O: Prisma, Octokit and clients belong in activities.',
    },
    {
      regex: '^(\\.\\./)+(activities|db)(/|$)',
      allowTypeImports: true,
      message: 'Workflows may import activities and db modules only with `import type` (use proxyActivities).',
    },
  ],
};

module.exports = defineConfig([
  globalIgnores(['dist/', 'node_modules/', '.tools/', '.data/', 'coverage/', 'clients/typescript/schema.d.ts']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: __dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', exports: 'writable', __dirname: 'readonly', process: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // AR-6 by construction: Temporal clients and workers are built only by the core's factories,
    // which always apply the payload codec.
    files: ['src/**/*.ts'],
    ignores: ['src/core/connections.ts', 'src/core/worker.ts', 'src/workflows/**'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: [
          { name: '@temporalio/client', importNames: ['Client'], allowTypeImports: true, message: 'Build Temporal clients with temporalClient / openTemporalClient (src/core/connections.ts).' },
          { name: '@temporalio/worker', importNames: ['Worker'], allowTypeImports: true, message: 'Build workers with createWorker (src/core/worker.ts) or createQueueWorker (src/workers/queue-worker.ts).' },
        ],
      }],
    },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', workflowImportBans],
    },
  },
]);
