/**
 * `If-Match` (RFC 9110 section 13.1.1) parsing for write preconditions: `*` or a comma-separated
 * list of entity tags, each `"opaque"` or weak `W/"opaque"`. If-Match compares strongly, so a weak tag never
 * matches. Pure, no I/O.
 */

/** A parsed If-Match header. */
export type IfMatch =
  /** `*`: any current representation (names no version). */
  | { kind: 'any' }
  /** The strong entity tags listed (quotes included), and whether weak ones were listed too. */
  | { kind: 'tags'; strong: string[]; weakListed: boolean };

/** An entity tag, `"opaque"` or weak `W/"opaque"` (etagc = %x21 / %x23-7E / obs-text). */
const ENTITY_TAG = String.raw`(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"`;

/** One list member: `*`, or an entity tag. */
const MEMBER = new RegExp(String.raw`^(?:\*|${ENTITY_TAG})$`);

/**
 * What {@link parseIfMatch} accepts, as one pattern (ECMA-262, also a JSON Schema `pattern`): `*`
 * alone, or entity tags separated by commas, with spaces, tabs and empty members around them.
 */
export const IF_MATCH_PATTERN = String.raw`^[\t ,]*(?:\*|${ENTITY_TAG}(?:[\t ]*,[\t ,]*${ENTITY_TAG})*)[\t ,]*$`;

/**
 * The If-Match header (a string, or several header lines), or undefined when absent.
 * Empty list members (`a, , b`) are skipped as RFC 9110 section 5.6.1 allows.
 * @returns `'malformed'` when a member is neither `*` nor an entity tag, or when `*` is mixed with tags.
 */
export function parseIfMatch(header: string | string[] | undefined): IfMatch | undefined | 'malformed' {
  if (header === undefined) return undefined;
  const members = splitMembers(Array.isArray(header) ? header.join(',') : header);
  if (members === undefined) return 'malformed';
  if (members.length === 0) return 'malformed';
  if (members.includes('*')) return members.length === 1 ? { kind: 'any' } : 'malformed';
  const strong = members.filter((m) => !m.startsWith('W/'));
  return { kind: 'tags', strong, weakListed: strong.length < members.length };
}

/** Splits a list on the commas between members (an entity tag may itself contain commas). */
function splitMembers(value: string): string[] | undefined {
  const out: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (i < value.length && (value[i] === ' ' || value[i] === '\t' || value[i] === ',')) i++;
    if (i >= value.length) break;
    let end: number;
    if (value[i] === '*') end = i + 1;
    else {
      const open = value.startsWith('W/"', i) ? i + 2 : value[i] === '"' ? i : -1;
      if (open < 0) return undefined;
      const close = value.indexOf('"', open + 1);
      if (close < 0) return undefined;
      end = close + 1;
    }
    const member = value.slice(i, end);
    if (!MEMBER.test(member)) return undefined;
    out.push(member);
    i = end;
    while (i < value.length && (value[i] === ' ' || value[i] === '\t')) i++;
    if (i < value.length && value[i] !== ',') return undefined;
  }
  return out;
}
