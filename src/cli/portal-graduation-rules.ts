/**
 * `npm run portal:graduation-rules -- --suwon` or `-- --file <rules.json>`: writes graduation rules
 * (PO-11) into the database: the built-in rules of the `suwon` portal's university, or a rules
 * document (src/services/portal/graduation-rules.ts GraduationRulesDocumentSchema). Idempotent: rules
 * are upserted by (portal type, kind, name). Prints `{"portalType","rules":{name: id}}`. Needs DATABASE_URL.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../families';
import { openDatabase } from '../core/connections';
import { applyGraduationRules, GraduationRulesDocumentSchema } from '../services/portal/graduation-rules';
import { SUWON_GRADUATION_RULES } from '../services/portal/suwon-graduation-rules';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { suwon: { type: 'boolean', default: false }, file: { type: 'string' } } });
  if (values.suwon === Boolean(values.file)) {
    console.error('usage: npm run portal:graduation-rules -- --suwon | --file rules.json');
    process.exit(2);
  }
  const doc = values.file ? GraduationRulesDocumentSchema.parse(JSON.parse(readFileSync(values.file, 'utf8'))) : SUWON_GRADUATION_RULES;
  const db = openDatabase(loadConfig());
  try {
    console.log(JSON.stringify({ portalType: doc.portalType, rules: await applyGraduationRules(db, doc) }));
  } finally {
    await db.$disconnect();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
