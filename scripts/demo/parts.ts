/** Finds each family's demo part by the family's manifest name: `families/<name>.ts`. */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { FAMILIES } from '../../src/families';
import type { DemoPart } from './part';

const DIR = path.join(__dirname, 'families');

/** A family's name and its demo part. */
export interface LoadedPart {
  family: string;
  part: DemoPart<unknown>;
}

/**
 * The demo parts of `families` (default: every family), in the manifests' order, and the families
 * that have none.
 * @throws Error when a file in families/ names no family, or does not export a `part` with `run`.
 */
export async function loadDemoParts(families: readonly { name: string }[] = FAMILIES): Promise<{ parts: LoadedPart[]; without: string[] }> {
  const names = families.map((f) => f.name);
  const files = readdirSync(DIR).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -'.ts'.length));
  const stray = files.filter((f) => !names.includes(f));
  if (stray.length > 0) throw new Error(`scripts/demo/families/${stray[0]}.ts names no family (the families: ${names.join(', ')})`);
  const parts: LoadedPart[] = [];
  const without: string[] = [];
  for (const family of names) {
    if (!files.includes(family)) {
      without.push(family);
      continue;
    }
    const mod = (await import(`./families/${family}`)) as { part?: DemoPart<unknown> };
    if (typeof mod.part?.run !== 'function') throw new Error(`scripts/demo/families/${family}.ts exports no demo part (\`export const part = definePart({ run … })\`)`);
    parts.push({ family, part: mod.part });
  }
  return { parts, without };
}
