/**
 * The normalised key of a memo card (ST-5): the dedup key within a batch, against the user's live
 * cards (the partial unique index over live rows), and the identity that survives a new source
 * version when the content did not change. Case, white space and punctuation do not change the
 * key; the kind, the words, and which parts of a cloze are hidden do. Uses node:crypto: activities
 * and the API only, not workflow code.
 */
import { createHash } from 'node:crypto';
import { type MemoCard, parseCloze } from './cards';
import { normaliseText } from './normalise';

/**
 * The canonical content a key is the hash of. Basic: cue and answer normalised. Cloze: the text
 * normalised around its deletions, each deletion as its group (renumbered in order of first
 * appearance, so `c2, c1` equals `c1, c2`) and its normalised answer; hints are ignored.
 */
export function memoCardContent(card: MemoCard): string {
  if (card.kind === 'basic') return `basic\u0000${normaliseText(card.cue)}\u0000${normaliseText(card.answer)}`;
  const deletions = parseCloze(card.clozeText) ?? [];
  const groups = new Map<number, number>();
  let out = 'cloze';
  let at = 0;
  for (const d of deletions) {
    if (!groups.has(d.n)) groups.set(d.n, groups.size + 1);
    out += `\u0000${normaliseText(card.clozeText.slice(at, d.start))}\u0001${groups.get(d.n)}:${normaliseText(d.answer)}\u0002`;
    at = d.end;
  }
  return `${out}\u0000${normaliseText(card.clozeText.slice(at))}`;
}

/** `<kind>:<sha-256 hex of memoCardContent>` (70 or 70 characters: `basic:` / `cloze:` + 64 hex digits). */
export function memoCardKey(card: MemoCard): string {
  return `${card.kind}:${createHash('sha256').update(memoCardContent(card), 'utf8').digest('hex')}`;
}
