// Prisma CLI configuration: the JS (WASM) schema engine over @prisma/adapter-pg, so `migrate`
// commands need no native engine download. DATABASE_URL must point at the target database.
// The schema is Prisma's multi-file schema, one file per family (prisma/schema/core.prisma holds
// the generator and datasource). Prisma's default migrations folder for a schema folder is next
// to the datasource file, so the path is set explicitly.
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';

export default defineConfig({
  schema: 'prisma/schema',
  migrations: { path: 'prisma/migrations' },
  experimental: { adapter: true },
  engine: 'js',
  // A short idle timeout lets the CLI exit as soon as it is done instead of after pg's 10 s default.
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL ?? '', idleTimeoutMillis: 500 }),
});
