// Prisma CLI configuration for the migrations upgrade test: the project's schema and adapter, but
// the migrations folder named by PRISMA_MIGRATIONS_PATH (a temp folder holding the first N
// migrations of prisma/migrations), so `migrate deploy` applies one release at a time.
import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { createMigrateAdapter } from '../../src/db/migrate-adapter';

const migrationsPath = process.env.PRISMA_MIGRATIONS_PATH;
if (!migrationsPath || !path.isAbsolute(migrationsPath)) {
  throw new Error('PRISMA_MIGRATIONS_PATH must be the absolute path of a migrations folder');
}

export default defineConfig({
  schema: path.resolve(__dirname, '..', '..', 'prisma', 'schema'),
  migrations: { path: migrationsPath },
  experimental: { adapter: true },
  engine: 'js',
  adapter: async () => createMigrateAdapter({ url: process.env.DATABASE_URL ?? '' }),
});
