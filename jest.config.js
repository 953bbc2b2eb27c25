/** Jest: TypeScript through @swc/jest; servers (PostgreSQL 15, Temporal dev server) come from globalSetup. */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The cluster suite has its own config (jest.cluster.config.js, `npm run test:cluster`).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/cluster/'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // ESM-only dependencies (Jest on Node 20 cannot require() ESM): compiled to CommonJS by swc.
  transformIgnorePatterns: ['/node_modules/(?!(content-disposition|content-type|cookie|@octokit|universal-user-agent|before-after-hook|fast-content-type-parse|json-with-bigint|canonicalize)/)'],
  // Files that start servers or processes first, so short files fill the workers' tails.
  testSequencer: '<rootDir>/test/support/test-sequencer.js',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // A bound on progress only (a test or hook that hangs), generous for a loaded machine.
  testTimeout: 180_000,
  maxWorkers: 2,
};
