/**
 * `npm run reembed`: after a switch of embedding model, re-embeds every knowledge card
 * and generated TIL whose vector came from another model, with the provider the workers use
 * (`AI_PROVIDER` / `EMBEDDINGS_*` as for `worker:ai`; `DATABASE_URL` required). Resumable: stop it
 * at any time and run it again, it continues with the rows still on the old model
 * (src/services/scraps/reembed.ts). Prints progress per batch.
 *
 *   DATABASE_URL=… EMBEDDINGS_PROVIDER=openai EMBEDDINGS_BASE_URL=http://127.0.0.1:8000/v1 npm run reembed [-- --batch 16] [--max N]
 */
import { parseArgs } from 'node:util';
import { createAiProvider } from '../src/ai';
import { createScrapsAi } from '../src/ai/scraps';
import { loadConfig } from '../src/families';
import { createPrisma } from '../src/db/client';
import { reembed } from '../src/services/scraps/reembed';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { batch: { type: 'string' }, max: { type: 'string' } } });
  const config = loadConfig();
  if (!config.database.url) throw new Error('DATABASE_URL is required');
  const db = createPrisma(config.database.url, { poolMax: 2 });
  const provider = createAiProvider(config.ai);
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  try {
    const done = await reembed(db, createScrapsAi(provider), {
      batchSize: values.batch ? Number(values.batch) : undefined,
      maxRows: values.max ? Number(values.max) : undefined,
      signal: controller.signal,
      onBatch: (p) => process.stdout.write(`re-embedded with ${p.model}: ${p.cards} cards, ${p.tils} TILs\n`),
    });
    process.stdout.write(`done: ${done.cards} cards and ${done.tils} TILs now on ${done.model}\n`);
  } finally {
    await (provider as { close?: () => Promise<void> }).close?.();
    await db.$disconnect();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
