// Prisma CLI configuration: the JS (WASM) schema engine over @prisma/adapter-pg, so `migrate`
// commands need no native engine download. DATABASE_URL must point at the target database.
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  experimental: { adapter: true },
  engine: 'js',
  // A short idle timeout lets the CLI exit as soon as it is done instead of after pg's 10 s default.
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL ?? '', idleTimeoutMillis: 500 }),
});
