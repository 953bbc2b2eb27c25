/**
 * Real documents for the demo and the bench: README files of installed npm packages (written by
 * others, pinned by package-lock.json, nothing copied into the repository).
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';

const ROOT = path.resolve(__dirname, '..', '..');

/** One README: its path under the repository, its package name and its text. */
export interface ReadmeDoc {
  file: string;
  pkg: string;
  content: string;
}

/**
 * The README files under node_modules between `minBytes` and `maxBytes` in size, in path order,
 * each text once (monorepo packages often share one README).
 */
export async function readmeDocs(minBytes: number, maxBytes = 60_000): Promise<ReadmeDoc[]> {
  const files = (await glob(['node_modules/*/README.md', 'node_modules/@*/*/README.md'], { cwd: ROOT, absolute: true, caseSensitiveMatch: false })).sort();
  const docs: ReadmeDoc[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const size = statSync(file).size;
    if (size < minBytes || size > maxBytes) continue;
    const content = readFileSync(file, 'utf8');
    if (seen.has(content)) continue;
    seen.add(content);
    const pkg = path.relative(path.join(ROOT, 'node_modules'), path.dirname(file));
    docs.push({ file: `node_modules/${pkg}/README.md`, pkg, content });
  }
  return docs;
}

/** Up to `n` of `items`, spread over the list (every k-th) instead of the first `n`. */
export function spread<T>(items: readonly T[], n: number): T[] {
  const step = Math.max(1, Math.floor(items.length / n));
  return items.filter((_, i) => i % step === 0).slice(0, n);
}
