/**
 * Settings: the core's section and the section machinery. Each family's section is its own module
 * (src/config/<family>.ts); the whole config is assembled from the manifests (src/families: `Config`,
 * `loadConfig`), so shared code takes {@link CoreConfig} and a family's code its family's config type.
 */
export { CORE_CONFIG, type CoreConfig } from './core';
export { bool, ConfigError, configSection, envNames, invalid, loadSections, type ConfigSection, type NodeEnv, type SectionOf } from './env';
