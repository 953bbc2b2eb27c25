/**
 * Local scrap refinement (SAN-8): rule-based markdown clean-up. No I/O.
 */
import { FENCE_RE } from '../../extractive/markdown';
import { trimEndWhere } from '../../plain-text';

/** Trailing white space a refinement strips: space, tab, no-break space, ideographic space. */
export const isRefineTrailingSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0xa0 || c === 0x3000;

/**
 * SAN-8 rule-based clean-up: CRLF/CR → LF, trailing whitespace stripped, runs of two or more blank
 * lines collapsed to one, `*`/`+` bullets → `-`, a space after the `#`s of an ATX heading, trimmed.
 * Fenced code blocks keep their bullets and `#` lines. Returns the trimmed input if the result is empty.
 */
export function refineMarkdown(content: string): string {
  const lines = content.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let fence: string | null = null;
  for (const raw of lines) {
    let line = trimEndWhere(raw, isRefineTrailingSpace);
    const f = FENCE_RE.exec(line);
    if (fence !== null) {
      if (f && f[1]?.[0] === fence[0] && (f[1]?.length ?? 0) >= fence.length) fence = null;
      out.push(line);
      continue;
    }
    if (f) {
      fence = f[1] ?? '```';
      out.push(line);
      continue;
    }
    if (!/^\s*([*_-])(\s*\1){2,}\s*$/.test(line)) line = line.replace(/^(\s*)[*+](\s+)(?=\S)/, '$1-$2');
    line = line.replace(/^(\s{0,3}#{1,6})(?=[^#\s])/, '$1 ');
    out.push(line);
  }
  const refined = out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
  return refined || content.trim();
}
