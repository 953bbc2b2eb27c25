// Prisma CLI configuration: the JS (WASM) schema engine over @prisma/adapter-pg, so `migrate`
// commands need no native engine download. DATABASE_URL must point at the target database;
// SHADOW_DATABASE_URL (optional) at an empty database used as the shadow database (the JS engine
// refuses --shadow-database-url). The schema is Prisma's multi-file schema, one file per family
// (prisma/schema/core.prisma holds the generator and datasource). Prisma's default migrations
// folder for a schema folder is next to the datasource file, so the path is set explicitly.
import { defineConfig } from 'prisma/config';
import { createMigrateAdapter } from './src/db/migrate-adapter';

export default defineConfig({
  schema: 'prisma/schema',
  migrations: { path: 'prisma/migrations' },
  experimental: { adapter: true },
  engine: 'js',
  adapter: async () =>
    createMigrateAdapter({ url: process.env.DATABASE_URL ?? '', shadowUrl: process.env.SHADOW_DATABASE_URL || undefined }),
});
