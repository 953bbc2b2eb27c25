/**
 * Jest for the cluster suite (`npm run test:cluster`): test/cluster only, against the production
 * topology that globalSetup starts (scripts/cluster/main.ts). One file at a time: the files inject
 * faults into the one shared cluster.
 */
const base = require('./jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/test/cluster'],
  testPathIgnorePatterns: ['/node_modules/'],
  globalSetup: '<rootDir>/test/cluster/global-setup.ts',
  globalTeardown: '<rootDir>/test/cluster/global-teardown.ts',
  testTimeout: 20 * 60_000,
  maxWorkers: 1,
};
