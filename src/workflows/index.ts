/**
 * Every workflow registered on the `jobs` task queue: the core's, then each family's. Static
 * re-exports (the workflow bundler needs them); the families' job type → workflow maps are checked
 * against these exports by the compiler (src/families/manifest.ts).
 */
export * from './core';
export * from './scraps';
export * from './ai-runs';
export * from './portal';
export * from './study';
