/** The bench's texts: README files of installed packages, cut to one scrap's size. */
import { readmeDocs, spread } from '../lib/readme-corpus';

/** Characters of one scrap's content. */
const DOC_CHARS = 4000;

/**
 * Up to `n` distinct README texts (2 to 60 kB files), each cut to DOC_CHARS characters, spread over the list.
 * @throws Error when node_modules holds none.
 */
export async function readmeCorpus(n: number): Promise<string[]> {
  const cut = [...new Set((await readmeDocs(2000)).map((d) => d.content.slice(0, DOC_CHARS)))];
  const picked = spread(cut, n);
  if (picked.length === 0) throw new Error('no README files under node_modules for scrap contents');
  return picked;
}
