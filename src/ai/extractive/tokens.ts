/**
 * Tokenisation: words, Korean particles, stop words, stems.
 * Part of the extractive toolkit; no I/O.
 */

export const EN_STOPWORDS = new Set(
  (
    'a about above after again against all almost also although always am among an and another any are ' +
    'around as at be became because become been before being below between both but by can cannot could ' +
    'did do does doing done down during each either else enough especially etc even ever every few for ' +
    'from further get gets getting give given gives go goes going got had has have having he her here ' +
    'hers herself him himself his how however i if in into is it its itself just keep keeps kind know ' +
    'last least less let like likely little lot lots made mainly make makes making many may maybe me might ' +
    'more most mostly much must my myself near need needs neither never new next no nor not now of off ' +
    'often on once one only onto or other others otherwise our ours ourselves out over own per perhaps ' +
    'put quite rather really said same say says see seen several shall she should since so some something ' +
    'sometimes soon still such take takes than that the their theirs them themselves then there therefore ' +
    'these they thing things this those though through thus to too toward towards two under until up upon ' +
    'us use used uses using usually very via want was way ways we well were what whatever when where ' +
    'whether which while who whom whose why will with within without would yet you your yours yourself ' +
    'e.g i.e vs http https www com org net html htm'
  ).split(/\s+/),
);

export const KO_STOPWORDS = new Set(
  (
    '그리고 그러나 하지만 그래서 따라서 또한 또는 및 등 것 것은 것이 것을 것이다 수 때 더 매우 가장 아주 너무 잘 좀 ' +
    '이런 그런 저런 이것 그것 저것 이는 그는 우리 여러 각 위해 위한 통해 대한 대해 때문에 따라 경우 같은 같이 많은 ' +
    '다른 모든 어떤 이후 이전 먼저 다음 즉 만약 있다 있는 있고 있어 있습니다 있으며 없다 없는 하다 한다 합니다 했다 ' +
    '하는 하고 하여 해서 하면 하게 하기 하며 된다 됩니다 되는 되어 되고 되며 이다 입니다 이며 이고 보다 결국 특히 ' +
    '바로 다시 함께 이렇게 그렇게 어떻게 무엇 모두 정말 거의 항상 보통 흔히 주로 많이 그냥 계속'
  ).split(/\s+/),
);

/** Korean particles (조사) stripped from the end of a Hangul token, longest first. */
export const KO_PARTICLES = [
  '이라는', '에서는', '에게서', '으로는', '으로써', '으로서',
  '에서', '에게', '으로', '까지', '부터', '처럼', '마다', '이나', '이란', '라는', '와는', '과는', '에는', '에도', '보다',
  '은', '는', '이', '가', '을', '를', '의', '에', '로', '와', '과', '도', '만', '랑',
];

/** Two-letter Latin tokens that carry meaning; other one- and two-letter Latin tokens are dropped. */
export const SHORT_TERMS = new Set(['ai', 'ml', 'os', 'ui', 'ux', 'db', 'ci', 'cd', 'go', 'io', 'js', 'ts', 'qa', 'vm', 'ip']);

// Letters keep their combining marks (\p{M}): a decomposed "naïve" or Devanagari vowel signs stay one token.
export const TOKEN_RE = /\p{Script=Hangul}+|(?:(?!\p{Script=Hangul})[\p{L}\p{M}\p{N}])+(?:[-_.'](?:(?!\p{Script=Hangul})[\p{L}\p{M}\p{N}])+)*/gu;
export const URL_RE = /(?:https?:\/\/|www\.)[^\s)>\]]+/gi;

/** True when the first character is a Hangul syllable or jamo (tokens never mix scripts). */
export function isHangul(token: string): boolean {
  const c = token.charCodeAt(0);
  return (c >= 0xac00 && c <= 0xd7a3) || (c >= 0x1100 && c <= 0x11ff) || (c >= 0x3130 && c <= 0x318f);
}

export const KO_PARTICLE_LAST = new Set(KO_PARTICLES.map((p) => p[p.length - 1]));

export function stripParticle(token: string): string {
  if (token.length < 3 || !KO_PARTICLE_LAST.has(token[token.length - 1])) return token;
  for (const p of KO_PARTICLES) {
    if (token.length - p.length >= 2 && token.endsWith(p)) return token.slice(0, -p.length);
  }
  return token;
}

/** Lower-cased NFC word tokens with Korean particles stripped (stopwords still included). */
export function words(raw: string): string[] {
  const out: string[] = [];
  const text = raw.normalize('NFC'); // NFD input (macOS, some editors) gives the same tokens and tags
  const plain = text.includes('://') || /www\./i.test(text) ? text.replace(URL_RE, ' ') : text;
  for (const m of plain.toLowerCase().matchAll(TOKEN_RE)) {
    let t = m[0];
    if (isHangul(t)) t = stripParticle(t);
    else t = t.replace(/'s$/, '').replace(/'/g, '');
    if (t) out.push(t);
  }
  return out;
}

/** True for a token that carries topic (not a stopword, not a bare number, not too short). */
export function isContent(token: string): boolean {
  if (isHangul(token)) return token.length >= 2 && !KO_STOPWORDS.has(token);
  if (EN_STOPWORDS.has(token)) return false;
  const c = token.charCodeAt(0);
  if (c >= 48 && c <= 57 && /^[\d.,_'-]+$/.test(token)) return false;
  return token.length >= 3 || SHORT_TERMS.has(token);
}

/** Light English suffix stripping (plural, -ing, -ed, -ly) so inflected forms share features. */
export function stem(token: string): string {
  if (isHangul(token) || token.length <= 3 || /[\d.]/.test(token)) return token;
  let t = token;
  if (t.endsWith('ies') && t.length > 4) return `${t.slice(0, -3)}y`;
  if (t.endsWith('sses')) return t.slice(0, -2);
  if (/(?:x|z|ch|sh)es$/.test(t)) return t.slice(0, -2);
  if (t.endsWith('s') && !/(?:ss|us|is)$/.test(t)) return t.slice(0, -1);
  if (t.endsWith('ing') && t.length > 5) t = t.slice(0, -3);
  else if (t.endsWith('ed') && t.length > 4) t = t.slice(0, -2);
  else if (t.endsWith('ly') && t.length > 5) return t.slice(0, -2);
  else return t;
  return /([b-df-hj-np-tv-z])\1$/.test(t) && !/(?:ll|ss|zz)$/.test(t) ? t.slice(0, -1) : t;
}

export function contentTokens(text: string): string[] {
  return words(text).filter(isContent);
}
