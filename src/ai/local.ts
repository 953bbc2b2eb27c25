/**
 * Offline, deterministic AI runtime (provider `local`, SAN-7, SAN-8, SAN-9, SAN-11): extractive title
 * and summary, keyword tags, lexicon-scored category, rule-based markdown clean-up, extractive TILs,
 * OX and cloze quizzes built from the cards' own sentences, and a feature-hashed TF-IDF embedding. No model weights, no network, no randomness: the same input always gives the same answer.
 */
import {
  AiRuntimeError,
  CardAnalysisSchema,
  EMBEDDING_DIMENSIONS,
  QUIZ_TYPES,
  QuizSchema,
  RefineResultSchema,
  TilResultSchema,
  type AiRuntime,
  type CardAnalysis,
  type Category,
  type Quiz,
  type QuizTypeName,
  type RefineResult,
  type ScrapText,
  type SourceCard,
  type TilResult,
} from './types';
import { clipText, isSpaceCode } from '../core/text';
import { headingContent, splitSentences, stripEmphasis, stripLinks, stripTags, trimEndWhere } from './plain-text';

// ---------------------------------------------------------------------------------------------
// Tokenisation
// ---------------------------------------------------------------------------------------------

const EN_STOPWORDS = new Set(
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

const KO_STOPWORDS = new Set(
  (
    '그리고 그러나 하지만 그래서 따라서 또한 또는 및 등 것 것은 것이 것을 것이다 수 때 더 매우 가장 아주 너무 잘 좀 ' +
    '이런 그런 저런 이것 그것 저것 이는 그는 우리 여러 각 위해 위한 통해 대한 대해 때문에 따라 경우 같은 같이 많은 ' +
    '다른 모든 어떤 이후 이전 먼저 다음 즉 만약 있다 있는 있고 있어 있습니다 있으며 없다 없는 하다 한다 합니다 했다 ' +
    '하는 하고 하여 해서 하면 하게 하기 하며 된다 됩니다 되는 되어 되고 되며 이다 입니다 이며 이고 보다 결국 특히 ' +
    '바로 다시 함께 이렇게 그렇게 어떻게 무엇 모두 정말 거의 항상 보통 흔히 주로 많이 그냥 계속'
  ).split(/\s+/),
);

/** Korean particles (조사) stripped from the end of a Hangul token, longest first. */
const KO_PARTICLES = [
  '이라는', '에서는', '에게서', '으로는', '으로써', '으로서',
  '에서', '에게', '으로', '까지', '부터', '처럼', '마다', '이나', '이란', '라는', '와는', '과는', '에는', '에도', '보다',
  '은', '는', '이', '가', '을', '를', '의', '에', '로', '와', '과', '도', '만', '랑',
];

/** Two-letter Latin tokens that carry meaning; other one- and two-letter Latin tokens are dropped. */
const SHORT_TERMS = new Set(['ai', 'ml', 'os', 'ui', 'ux', 'db', 'ci', 'cd', 'go', 'io', 'js', 'ts', 'qa', 'vm', 'ip']);

// Letters keep their combining marks (\p{M}): a decomposed "naïve" or Devanagari vowel signs stay one token.
const TOKEN_RE = /\p{Script=Hangul}+|(?:(?!\p{Script=Hangul})[\p{L}\p{M}\p{N}])+(?:[-_.'](?:(?!\p{Script=Hangul})[\p{L}\p{M}\p{N}])+)*/gu;
const URL_RE = /(?:https?:\/\/|www\.)[^\s)>\]]+/gi;

/** True when the first character is a Hangul syllable or jamo (tokens never mix scripts). */
function isHangul(token: string): boolean {
  const c = token.charCodeAt(0);
  return (c >= 0xac00 && c <= 0xd7a3) || (c >= 0x1100 && c <= 0x11ff) || (c >= 0x3130 && c <= 0x318f);
}

const KO_PARTICLE_LAST = new Set(KO_PARTICLES.map((p) => p[p.length - 1]));

function stripParticle(token: string): string {
  if (token.length < 3 || !KO_PARTICLE_LAST.has(token[token.length - 1])) return token;
  for (const p of KO_PARTICLES) {
    if (token.length - p.length >= 2 && token.endsWith(p)) return token.slice(0, -p.length);
  }
  return token;
}

/** Lower-cased NFC word tokens with Korean particles stripped (stopwords still included). */
function words(raw: string): string[] {
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
function isContent(token: string): boolean {
  if (isHangul(token)) return token.length >= 2 && !KO_STOPWORDS.has(token);
  if (EN_STOPWORDS.has(token)) return false;
  const c = token.charCodeAt(0);
  if (c >= 48 && c <= 57 && /^[\d.,_'-]+$/.test(token)) return false;
  return token.length >= 3 || SHORT_TERMS.has(token);
}

/** Light English suffix stripping (plural, -ing, -ed, -ly) so inflected forms share features. */
function stem(token: string): string {
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

function contentTokens(text: string): string[] {
  return words(text).filter(isContent);
}

// ---------------------------------------------------------------------------------------------
// Embedding: signed feature hashing of sublinear-tf weighted features (SAN-7, SAN-9)
// ---------------------------------------------------------------------------------------------

// Module-scoped alias: global lookups are slow inside vm contexts (Jest), and this is the hot loop.
const imul = Math.imul;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a over the UTF-16 code units of `s`, continuing from state `h`. */
function fnv1a(s: string, h = FNV_OFFSET): number {
  for (let i = 0; i < s.length; i++) h = imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/** Relative weight of each feature family in the final vector (tuned on paraphrase vs unrelated pairs). */
const GROUP_WEIGHTS = { word: 1.0, bigram: 0.3, char: 1.0 } as const;
type Group = keyof typeof GROUP_WEIGHTS;
/** Hash state after each family's namespace prefix, so equal strings of different families differ. */
const GROUP_SEED: Record<Group, number> = { word: fnv1a('w\u0001'), bigram: fnv1a('b\u0001'), char: fnv1a('c\u0001') };

function count<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Open-addressing counter of 32-bit feature hashes; typed arrays, several times cheaper than a Map. */
class HashCounter {
  private keys = new Uint32Array(256);
  private counts = new Uint32Array(256);
  private size = 0;

  add(h: number): void {
    const mask = this.keys.length - 1;
    let i = (imul(h, 0x9e3779b1) >>> 0) & mask;
    while ((this.counts[i] ?? 0) !== 0) {
      if (this.keys[i] === h) {
        this.counts[i] = (this.counts[i] ?? 0) + 1;
        return;
      }
      i = (i + 1) & mask;
    }
    this.keys[i] = h;
    this.counts[i] = 1;
    if (++this.size * 2 > this.keys.length) this.grow();
  }

  /** Calls `fn(hash, count)` for every distinct hash. */
  each(fn: (h: number, n: number) => void): void {
    for (let i = 0; i < this.keys.length; i++) {
      const n = this.counts[i] ?? 0;
      if (n !== 0) fn(this.keys[i] ?? 0, n);
    }
  }

  private grow(): void {
    const { keys, counts } = this;
    this.keys = new Uint32Array(keys.length * 2);
    this.counts = new Uint32Array(keys.length * 2);
    const mask = this.keys.length - 1;
    for (let j = 0; j < keys.length; j++) {
      const n = counts[j] ?? 0;
      if (n === 0) continue;
      const h = keys[j] ?? 0;
      let i = (imul(h, 0x9e3779b1) >>> 0) & mask;
      while ((this.counts[i] ?? 0) !== 0) i = (i + 1) & mask;
      this.keys[i] = h;
      this.counts[i] = n;
    }
  }
}

/** Adds one feature family (feature hash → term frequency), normalised and weighted, into `vec`. */
function addGroup(vec: Float64Array, counts: HashCounter, group: Group): void {
  const part = new Float64Array(EMBEDDING_DIMENSIONS);
  counts.each((h, tf) => {
    const idx = (h & 0x7fffffff) % EMBEDDING_DIMENSIONS;
    part[idx] = (part[idx] ?? 0) + (1 + Math.log(tf)) * (h & 0x80000000 ? -1 : 1);
  });
  let sq = 0;
  for (let i = 0; i < part.length; i++) sq += (part[i] ?? 0) ** 2;
  if (sq === 0) return;
  const scale = GROUP_WEIGHTS[group] / Math.sqrt(sq);
  for (let i = 0; i < part.length; i++) vec[i] = (vec[i] ?? 0) + (part[i] ?? 0) * scale;
}

/**
 * 1536-d, L2-normalised embedding of `text` (SAN-7, SAN-9): word unigrams, adjacent word bigrams and
 * character 3-grams of content words (padded with `<`/`>`, so Korean works without a segmenter),
 * sublinear tf, stopwords as the idf proxy, signed FNV-1a hashing. Each family is normalised and
 * weighted before the sum. Text with no content words gets the unit vector e0. Pure and synchronous.
 */
export function localEmbedding(text: string): number[] {
  const tokens = contentTokens(text).map(stem);
  const uni = new HashCounter();
  const bi = new HashCounter();
  const tri = new HashCounter();
  let prev: string | undefined;
  for (const t of tokens) {
    uni.add(fnv1a(t, GROUP_SEED.word));
    if (prev !== undefined) bi.add(fnv1a(t, fnv1a(' ', fnv1a(prev, GROUP_SEED.bigram))));
    prev = t;
    // Character 3-grams of `<t>` (60 = '<', 62 = '>'), hashed in place without allocating substrings.
    let a = 60;
    let b = t.charCodeAt(0);
    for (let i = 1; i <= t.length; i++) {
      const c = i < t.length ? t.charCodeAt(i) : 62;
      tri.add(imul(imul(imul(GROUP_SEED.char ^ a, FNV_PRIME) ^ b, FNV_PRIME) ^ c, FNV_PRIME) >>> 0);
      a = b;
      b = c;
    }
  }
  const vec = new Float64Array(EMBEDDING_DIMENSIONS);
  addGroup(vec, uni, 'word');
  addGroup(vec, bi, 'bigram');
  addGroup(vec, tri, 'char');
  let sq = 0;
  for (let i = 0; i < vec.length; i++) sq += (vec[i] ?? 0) ** 2;
  const out = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  if (!(sq > 0) || !Number.isFinite(sq)) {
    out[0] = 1;
    return out;
  }
  const inv = 1 / Math.sqrt(sq);
  for (let i = 0; i < vec.length; i++) out[i] = (vec[i] ?? 0) * inv;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Markdown structure: headings, code fences, sentences
// ---------------------------------------------------------------------------------------------

const FENCE_RE = /^\s{0,3}(`{3,}|~{3,})/;
/** An ATX heading's opening `#` run (at most 6, not followed by another `#`). */
const HEADING_OPEN_RE = /^\s{0,3}#{1,6}(?!#)/;
const BULLET_RE = /^\s*(?:[-*+]|\d+[.)])\s+/;

/**
 * Inline markdown to plain text: images, links, HTML tags, URLs, code spans, emphasis, in that
 * order. Linear in the length of `s` (the bracket, tag and emphasis rules are scanners, see
 * `plain-text.ts`; the remaining expressions cannot backtrack).
 */
function inlinePlain(s: string): string {
  const plain = stripTags(stripLinks(s)).replace(URL_RE, ' ').replace(/`+/g, '');
  return stripEmphasis(plain).replace(/\s+/g, ' ').trim();
}

interface Structure {
  headings: string[];
  /** Prose blocks (paragraphs and list items), inline markdown removed, in order. */
  blocks: string[];
}

function structure(markdown: string): Structure {
  const headings: string[] = [];
  const blocks: string[] = [];
  let para: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    const text = inlinePlain(para.join(' '));
    if (text) blocks.push(text);
    para = [];
  };
  for (const raw of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const f = FENCE_RE.exec(raw);
    if (fence !== null) {
      if (f && f[1]?.[0] === fence[0] && (f[1]?.length ?? 0) >= fence.length) fence = null;
      continue;
    }
    if (f) {
      flush();
      fence = f[1] ?? '```';
      continue;
    }
    const h = HEADING_OPEN_RE.exec(raw);
    if (h) {
      flush();
      const text = inlinePlain(headingContent(raw.slice(h[0].length)));
      if (text) headings.push(text);
      continue;
    }
    if (/^\s*$/.test(raw) || /^\s*([-*_])(\s*\1){2,}\s*$/.test(raw)) {
      flush();
      continue;
    }
    if (BULLET_RE.test(raw)) {
      flush();
      para.push(raw.replace(BULLET_RE, ''));
      continue;
    }
    para.push(raw.replace(/^\s*>\s?/, ''));
  }
  flush();
  return { headings, blocks };
}

/** Sentences of the prose blocks, in order (see {@link splitSentences}). */
function sentences(blocks: string[]): string[] {
  return blocks.flatMap(splitSentences);
}

/**
 * Clips trimmed `s` to at most `max` UTF-16 code units, `…` included, at a word boundary when one is
 * near and never inside a surrogate pair or grapheme cluster ({@link clipText}).
 */
function clip(s: string, max: number): string {
  return clipText(s, max, '…');
}

const isTitleFinalPunctuation = (c: number): boolean => c === 0x2e || c === 0x21 || c === 0x3f || c === 0x3002;

/** `s` without a trailing run of `.!?。` that follows a non-space (the rules of `/(?<=\S)[.!?。]+$/u`), linear. */
function stripFinalPunctuation(s: string): string {
  const kept = trimEndWhere(s, isTitleFinalPunctuation);
  if (kept.length === s.length) return s;
  if (kept.length > 0 && !isSpaceCode(kept.charCodeAt(kept.length - 1))) return kept;
  return s.length - kept.length >= 2 ? s.slice(0, kept.length + 1) : s;
}

// ---------------------------------------------------------------------------------------------
// Title, summary, tags, category
// ---------------------------------------------------------------------------------------------

const TITLE_MAX = 120;
const SUMMARY_MAX = 600;
const TAGS_MIN = 3;
const TAGS_MAX = 8;

function termWeights(tokens: string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of tokens) count(tf, t);
  const w = new Map<string, number>();
  for (const [t, n] of tf) w.set(t, 1 + Math.log(n));
  return w;
}

function extractTitle(input: ScrapText, s: Structure, sents: string[]): string {
  const given = input.title?.trim();
  if (given) return clip(given.replace(/\s+/g, ' '), TITLE_MAX);
  const first = s.headings[0] ?? sents[0] ?? s.blocks[0] ?? input.content.replace(/\s+/g, ' ');
  return clip(stripFinalPunctuation(first), TITLE_MAX);
}

function extractSummary(sents: string[], weights: Map<string, number>, fallback: string): string {
  if (sents.length === 0) return clip(fallback, SUMMARY_MAX);
  const k = sents.length <= 2 ? sents.length : sents.length <= 4 ? 2 : 3;
  const scored = sents.map((text, index) => {
    const toks = contentTokens(text);
    let sum = 0;
    for (const t of new Set(toks)) sum += weights.get(t) ?? 0;
    const lead = index === 0 ? 1.15 : 1;
    return { text, index, score: (sum / Math.sqrt(Math.max(toks.length, 1))) * lead };
  });
  const chosen = [...scored]
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, k);
  const join = (xs: typeof chosen) => [...xs].sort((a, b) => a.index - b.index).map((x) => x.text).join(' ');
  while (chosen.length > 1 && join(chosen).length > SUMMARY_MAX) chosen.pop();
  return clip(join(chosen), SUMMARY_MAX);
}

/** Words that are content for retrieval but make poor tags. */
const TAG_STOPWORDS = new Set(
  (
    'minute minutes hour hours day days week weeks month months year years time times second seconds first ' +
    'third fourth simple good great best better large small big high low part parts example examples number ' +
    'numbers lot lots tip tips note notes thirty twenty forty fifty hundred thousand three four five six seven ' +
    'eight nine ten today yesterday tomorrow whole able true false end start short long describe describes ' +
    'described explain explains explained show shows shown allow allows help helps work works provide provides ' +
    'include includes create creates run runs based different important old various main real easy hard yes'
  ).split(/\s+/),
);

/** Korean verb/adjective endings; a Hangul token ending in one is not a tag (2-syllable 어/아 forms too). */
const KO_VERB_ENDING_RE = /(?:다|고|며|면|서|게|니|도록|지만|는데|려고)$|^\p{Script=Hangul}[어아]$/u;

function extractTags(tokens: string[], titleTokens: Set<string>): string[] {
  // Group surface forms by stem; the most frequent (then shortest) surface form names the tag.
  const groups = new Map<string, { n: number; forms: Map<string, number> }>();
  for (const t of tokens) {
    if (t.length > 50 || /^\d/.test(t) || TAG_STOPWORDS.has(t)) continue;
    if (isHangul(t) && KO_VERB_ENDING_RE.test(t)) continue;
    const key = stem(t);
    const g = groups.get(key) ?? { n: 0, forms: new Map<string, number>() };
    g.n += 1;
    count(g.forms, t);
    groups.set(key, g);
  }
  const ranked = [...groups.entries()]
    .map(([key, g]) => {
      const form = [...g.forms.entries()].sort(
        (a, b) => b[1] - a[1] || a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1),
      )[0]?.[0] ?? key;
      const inTitle = [...g.forms.keys()].some((f) => titleTokens.has(f));
      return { t: form, score: (1 + Math.log(g.n)) * (1 + Math.min(form.length, 12) / 24) * (inTitle ? 1.3 : 1) };
    })
    .sort((a, b) => b.score - a.score || (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
  const top = ranked[0]?.score ?? 0;
  const picked: string[] = [];
  for (const { t, score } of ranked) {
    if (picked.length >= TAGS_MAX) break;
    if (picked.length >= TAGS_MIN && score < top * 0.4) break;
    if (!picked.includes(t)) picked.push(t);
  }
  return picked.length > 0 ? picked : ['note'];
}

/** Category keyword lexicon; weight 1 for specific terms, 0.5 for generic ones. Hangul entries match as prefixes. */
const LEXICON: Record<Exclude<Category, 'Other'>, Record<string, number>> = {
  Programming: kw(
    'programming code coding function functions class classes typescript javascript python java rust golang ' +
      'kotlin swift compiler compilers refactoring refactor debugging debugger bug bugs algorithm algorithms recursion ' +
      'variable variables syntax git github react node.js npm library framework unit-test testing 프로그래밍 코드 코딩 ' +
      '함수 클래스 컴파일러 알고리즘 디버깅 리팩터링 리팩토링 변수 자바스크립트 타입스크립트 파이썬 자바 개발자 객체지향',
    'api apis software developer developers method type types object objects 개발 소프트웨어 메서드 타입 객체',
  ),
  Infrastructure: kw(
    'kubernetes docker container containers cloud aws gcp azure deployment deploy linux kernel scheduler ' +
      'scheduling cpu cpus thread threads devops terraform dns load-balancer nginx virtualization hypervisor ' +
      'preemption preemptive context-switch os operating-system 운영체제 커널 스케줄링 스케줄러 스레드 쓰레드 배포 클라우드 ' +
      '컨테이너 리눅스 인프라 컨텍스트 선점 가상화 쿠버네티스 도커',
    'server servers network networks process processes latency memory 서버 네트워크 프로세스 메모리 지연',
  ),
  Data: kw(
    'database databases postgresql postgres mysql sqlite sql query queries index indexes indices indexing b-tree ' +
      'btree gin gist vacuum transaction transactions analytics warehouse etl pandas planner sharding replication ' +
      '데이터베이스 쿼리 인덱스 트랜잭션 질의 샤딩 복제',
    'table tables schema column columns rows data 테이블 스키마 컬럼 데이터',
  ),
  'AI/ML': kw(
    'machine-learning neural llm llms embedding embeddings transformer transformers gpt dataset datasets inference ' +
      'classifier fine-tuning deep-learning gradient pytorch tensorflow 머신러닝 딥러닝 인공지능 신경망 임베딩 파인튜닝 추론',
    'model models training ai ml prompt 모델 학습 프롬프트',
  ),
  Security: kw(
    'security vulnerability vulnerabilities encryption authentication authorization password passwords attack ' +
      'attacks xss csrf tls certificate exploit malware phishing 보안 암호화 인증 취약점 해킹 공격 악성코드',
    'token tokens secret secrets 토큰',
  ),
  Design: kw(
    'design typography layout figma usability font fonts ux ui wireframe prototype palette 디자인 레이아웃 색상 폰트 ' +
      '타이포그래피 와이어프레임 사용성',
    'color colors interface visual 인터페이스',
  ),
  Product: kw(
    'roadmap mvp backlog stakeholder stakeholders user-research onboarding retention okr 로드맵 기획 백로그 온보딩',
    'product products feature features customer customers users launch 제품 고객 사용자 기능 출시',
  ),
  Science: kw(
    'physics chemistry biology experiment experiments hypothesis quantum molecule molecules cell cells evolution ' +
      'astronomy protein genome neuron 과학 물리 화학 생물 실험 가설 양자 분자 세포 진화 천문',
    'research theory 연구 이론',
  ),
  Business: kw(
    'business market markets revenue startup startups sales marketing finance investment investors profit pricing ' +
      '비즈니스 시장 매출 스타트업 마케팅 투자 수익 재무 영업',
    'strategy company companies growth 전략 회사 성장',
  ),
};

function kw(strong: string, weak: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const w of weak.split(/\s+/)) if (w) out[w] = 0.5;
  for (const w of strong.split(/\s+/)) if (w) out[w] = 1;
  return out;
}

const LEXICON_ENTRIES = Object.entries(LEXICON).map(([cat, terms]) => ({
  cat: cat as Category,
  exact: new Map(Object.entries(terms).filter(([t]) => !isHangul(t))),
  prefixes: Object.entries(terms).filter(([t]) => isHangul(t)),
}));

/** Score a category needs before it wins over `Other`: one specific term, or two generic ones. */
const CATEGORY_MIN_SCORE = 1;

function classify(allWords: string[]): Category {
  const tf = new Map<string, number>();
  for (let i = 0; i < allWords.length; i++) {
    const w = allWords[i] ?? '';
    count(tf, w);
    const next = allWords[i + 1];
    if (next !== undefined) count(tf, `${w}-${next}`);
  }
  let best: Category = 'Other';
  let bestScore = 0;
  for (const { cat, exact, prefixes } of LEXICON_ENTRIES) {
    let score = 0;
    for (const [term, n] of tf) {
      let weight = exact.get(term) ?? 0;
      if (weight === 0 && isHangul(term)) {
        for (const [p, pw] of prefixes) if (term.startsWith(p) && pw > weight) weight = pw;
      }
      if (weight > 0) score += weight * (1 + Math.log(n));
    }
    if (score > bestScore) {
      best = cat;
      bestScore = score;
    }
  }
  return bestScore >= CATEGORY_MIN_SCORE ? best : 'Other';
}

// ---------------------------------------------------------------------------------------------
// Refinement (SAN-8)
// ---------------------------------------------------------------------------------------------

const isRefineTrailingSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0xa0 || c === 0x3000;

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

// ---------------------------------------------------------------------------------------------
// TIL and recall quizzes (SAN-9, SAN-11): extractive, from the cards' own sentences and key terms
// ---------------------------------------------------------------------------------------------

const TIL_KEYWORDS = 3;
const TIL_BULLETS_MIN = 2;
const TIL_BULLETS_MAX = 4;
/**
 * SAN-9 size bounds of a local TIL, in UTF-16 code units (the schema allows 100,000): the whole
 * markdown, one card's section, and the `## Sources` list. A day whose sections do not all fit gets
 * sections for its first cards (card order) and lists every card under Sources.
 */
export const TIL_LIMITS = { markdownMax: 60_000, sectionMax: 1_500, sourcesMax: 20_000 } as const;
/** Keywords kept per card for TIL titles, cloze answers and OX term swaps. */
const CARD_KEYWORDS = 12;
/** Sentences usable as quiz statements: at most this long, with at least this many content words. */
const QUIZ_SENTENCE_MAX = 320;
const QUIZ_SENTENCE_MIN_TOKENS = 4;
const BLANK = '____';
/** OX term swaps draw from the top terms of the other cards, nearest card first, choosing among the first few. */
const SWAP_TERMS_PER_CARD = 8;
const SWAP_CHOICES = 4;

/** Hangul tokens that end like a verb or adjective form and so make poor cloze answers or swaps. */
const KO_NON_NOUN_RE = /(?:[어아여워려는을던된할될][^]?|하게|하여|해서|하지|했|한|인)$/u;
/** Sentences opening with these refer back to context and make poor standalone statements. */
const CONTEXT_OPENER_RE = /^(?:it|this|that|these|those|they|he|she|here|there|이는|이것|그것|이런|그런|이를|이)\s/iu;
/** Leading connectives dropped from a statement (the "light trim" of a true OX statement). */
const CONNECTIVE_RE = /^(?:however|but|so|also|and|then|thus|therefore|moreover|finally|그리고|하지만|그러나|또한|따라서|그래서|즉|결국|마지막으로)[,\s]\s*/iu;

/** One extracted sentence of a card with its content tokens. */
interface CardSentence {
  text: string;
  index: number;
  tokens: string[];
}

/** A card prepared once for TIL and quiz generation. */
interface PreparedCard {
  card: SourceCard;
  title: string;
  /** Lower-cased plain text of title, summary and content, for presence checks. */
  haystack: string;
  sentences: CardSentence[];
  /** Ranked key terms (lower-case, Korean particles stripped), best first. */
  keywords: { term: string; score: number }[];
  /** Each keyword as first written in the title or sentences. */
  surfaces: Map<string, string>;
  /** Latin words used like verbs: never cloze answers or swapped terms. */
  verbish: Set<string>;
  korean: boolean;
}

/** True when Hangul syllables are at least a third as many as Latin letters (Korean prose with English terms). */
function isKoreanText(text: string): boolean {
  let hangul = 0;
  let latin = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i) | 0x20;
    if (c >= 0x61 && c <= 0x7a) latin += 1;
    else if (isHangul(text.charAt(i))) hangul += 1;
  }
  return hangul > 0 && hangul * 3 >= latin;
}

/** True when `s` is a Hangul syllable with a final consonant (받침); `rieul` only for final ㄹ. */
function finalConsonant(s: string): { any: boolean; rieul: boolean } {
  const c = s.charCodeAt(s.length - 1) - 0xac00;
  if (c < 0 || c > 11171) return { any: false, rieul: false };
  const jong = c % 28;
  return { any: jong !== 0, rieul: jong === 8 };
}

/** Splits Korean sentences glued after `다.` / `요.` / `죠.` without a space. */
function splitGluedKorean(sentence: string): string[] {
  return sentence
    .split(/(?<=[다요죠]\.)(?=\S)/u)
    .map((t) => t.trim())
    .filter(Boolean);
}

/** Sentences of a markdown text (prose blocks only), Korean glued sentences split. */
function textSentences(markdown: string): string[] {
  return sentences(structure(markdown).blocks).flatMap(splitGluedKorean);
}

const NOUN_BEFORE = new Set('the a an this these those each every your its their our his her of in on with for by from into per about no any some many most'.split(' '));
const NOUN_AFTER = new Set('of is are was were has have'.split(' '));
const VERB_BEFORE = new Set('to can cannot will should must may might could would then not which who you we they i it'.split(' '));
const VERB_AFTER = new Set('the a an it them this these those your its their our his her'.split(' '));

/**
 * Latin content words used more like verbs than nouns in `texts`: counted from the neighbouring
 * words (`to X`, `X the` → verb; `the X`, `X of`, a capital mid-sentence → noun). Hangul is never verb-like here.
 */
function verbLike(texts: readonly string[]): Set<string> {
  const noun = new Map<string, number>();
  const verb = new Map<string, number>();
  for (const text of texts) {
    const raw = [...text.matchAll(TOKEN_RE)].map((m) => m[0]);
    const lower = raw.map((w) => w.toLowerCase().replace(/'s$/, '').replace(/'/g, ''));
    lower.forEach((w, i) => {
      if (isHangul(w) || !isContent(w)) return;
      const prev = lower[i - 1] ?? '';
      const next = lower[i + 1] ?? '';
      const capital = i > 0 && /^\p{Lu}/u.test(raw[i] ?? '');
      noun.set(w, (noun.get(w) ?? 0) + Number(NOUN_BEFORE.has(prev)) + Number(NOUN_AFTER.has(next)) + Number(capital));
      verb.set(w, (verb.get(w) ?? 0) + Number(VERB_BEFORE.has(prev)) + Number(VERB_AFTER.has(next)));
    });
  }
  return new Set([...verb].filter(([w, n]) => n > (noun.get(w) ?? 0)).map(([w]) => w));
}

function isKeywordCandidate(t: string): boolean {
  if (t.length > 40 || /^\d/.test(t) || TAG_STOPWORDS.has(t)) return false;
  if (isHangul(t)) return !KO_VERB_ENDING_RE.test(t) && !KO_NON_NOUN_RE.test(t);
  return true;
}

/** Prepares the cards: sentences, plain text and keywords ranked by tf, title presence and rarity among the cards. */
function prepareCards(cards: readonly SourceCard[]): PreparedCard[] {
  const base = cards.map((card) => {
    const s = structure(card.content);
    const contentSents = sentences(s.blocks).flatMap(splitGluedKorean);
    const title = inlinePlain(card.title.replace(/\s+/g, ' ')).replace(/^#+\s*/, '') || clip(contentSents[0] ?? card.cardId, TITLE_MAX);
    const sents = (contentSents.length > 0 ? contentSents : textSentences(card.summary)).map((text, index) => ({
      text,
      index,
      tokens: contentTokens(text),
    }));
    const plain = [title, card.summary, ...s.headings, ...s.blocks].join('\n');
    const fromContent = contentSents.length > 0 ? sents.flatMap((x) => x.tokens) : [];
    const tokens = [...contentTokens([title, card.summary, ...s.headings].join('\n')), ...fromContent].filter(isKeywordCandidate);
    return { card, title, sents, plain, tokens, titleTokens: new Set(contentTokens(title)) };
  });
  const df = new Map<string, number>();
  for (const b of base) for (const t of new Set(b.tokens)) count(df, t);
  return base.map((b) => {
    const tf = new Map<string, number>();
    for (const t of b.tokens) count(tf, t);
    const verbish = verbLike(b.sents.map((x) => x.text));
    const keywords = [...tf.entries()]
      .map(([term, n]) => {
        const rarity = 1 + Math.log(base.length / (df.get(term) ?? 1));
        const shape = verbish.has(term) ? 0.25 : !isHangul(term) && /(?:ed|ly|ing)$/.test(term) ? 0.6 : 1;
        const score = (1 + Math.log(n)) * (b.titleTokens.has(term) ? 1.5 : 1) * (1 + Math.min(term.length, 12) / 24) * rarity * shape;
        return { term, score };
      })
      .sort((x, y) => y.score - x.score || (x.term < y.term ? -1 : x.term > y.term ? 1 : 0))
      .slice(0, CARD_KEYWORDS);
    const written = b.sents.map((x) => x.text);
    const lowered = written.map((t) => t.toLowerCase());
    const surfaces = new Map(keywords.map((k) => [k.term, writtenForm(written, lowered, k.term) ?? surface(b.title, k.term) ?? k.term]));
    return {
      card: b.card,
      title: b.title,
      haystack: b.plain.toLowerCase(),
      sentences: b.sents,
      keywords,
      surfaces,
      verbish,
      korean: isKoreanText(b.plain),
    };
  });
}

/** Final avalanche of a 32-bit hash (murmur3 fmix32): every output bit depends on every input bit. */
function mix(h: number): number {
  let x = h >>> 0;
  x = imul(x ^ (x >>> 16), 0x85ebca6b);
  x = imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** True for a complete declarative sentence: terminal punctuation, or a Hangul predicate ending in 다/요. */
function isStatement(text: string): boolean {
  return /(?:[.!。！]|[다요])["'”’)\]]*$/u.test(text) && !/[?:：]$/u.test(text);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Compiled case-insensitive literals of terms, bounded. Only the literal is a regular expression:
 * word boundaries are checked in code, because a `[\p{L}\p{N}]` class under the `iu` flags costs
 * milliseconds to compile, once per distinct term (seconds for a day of 170 cards).
 */
const TERM_RES = new Map<string, RegExp>();
const TERM_RES_MAX = 4096;
const LETTER_OR_DIGIT_RE = /^[\p{L}\p{N}]$/u;

function termLiteral(term: string): RegExp {
  let re = TERM_RES.get(term);
  if (!re) {
    re = new RegExp(escapeRegExp(term), 'giu');
    if (TERM_RES.size >= TERM_RES_MAX) TERM_RES.clear();
    TERM_RES.set(term, re);
  }
  return re;
}

/** The code point of `text` ending at `i` (exclusive), or '' at the start. */
function codePointBefore(text: string, i: number): string {
  if (i <= 0) return '';
  const c = text.charCodeAt(i - 1);
  return c >= 0xdc00 && c <= 0xdfff && i >= 2 ? text.slice(i - 2, i) : text.charAt(i - 1);
}

/** The code point of `text` starting at `i`, or '' at the end. */
function codePointFrom(text: string, i: number): string {
  const c = text.codePointAt(i);
  return c === undefined ? '' : String.fromCodePoint(c);
}

/**
 * Occurrences of `term` in `text`, case-insensitive, left to right and not overlapping: a Latin term
 * as a whole word (no letter or digit on either side), a Hangul term at the start of a Hangul run (a
 * particle may follow). The rules of `(?<![\p{L}\p{N}])term(?![\p{L}\p{N}])` and
 * `(?<!\p{Script=Hangul})term` with the `giu` flags.
 */
function* termMatches(text: string, term: string): Generator<{ index: number; match: string }> {
  const re = termLiteral(term);
  const hangul = isHangul(term);
  let from = 0;
  while (from <= text.length) {
    re.lastIndex = from;
    const m = re.exec(text);
    if (!m) return;
    const at = m.index;
    const end = at + m[0].length;
    const before = codePointBefore(text, at);
    const ok = hangul
      ? !HANGUL_CHAR_RE.test(before)
      : !LETTER_OR_DIGIT_RE.test(before) && !LETTER_OR_DIGIT_RE.test(codePointFrom(text, end));
    if (ok) {
      yield { index: at, match: m[0] };
      from = end;
    } else {
      from = at + codePointFrom(text, at).length;
    }
  }
}

/** The first occurrence of `term` in `text` as written there, or undefined. */
function surface(text: string, term: string): string | undefined {
  for (const m of termMatches(text, term)) return m.match;
  return undefined;
}

/**
 * How `term` is written in `texts`: the first occurrence inside a sentence, else a sentence-initial one
 * (lower-cased when only its capital comes from the sentence start, so `Monitor` → `monitor` but
 * `PostgreSQL` stays). Undefined when absent.
 */
function writtenForm(texts: readonly string[], lowered: readonly string[], term: string): string | undefined {
  let initial: string | undefined;
  for (const [i, text] of texts.entries()) {
    // A text whose lower-cased form lacks the (lower-case) term cannot match; skip it without the regex.
    if (!(lowered[i] ?? text.toLowerCase()).includes(term)) continue;
    for (const m of termMatches(text, term)) {
      if (m.index > 0) return m.match;
      initial ??= /^\p{Lu}\p{Ll}*$/u.test(m.match) ? m.match.toLowerCase() : m.match;
    }
  }
  return initial;
}

/** Adjusts a Korean particle right after a replaced noun to the noun's final consonant (은/는, 이/가, 을/를, 과/와, 으로/로). */
function fixParticle(noun: string, rest: string): string {
  if (!isHangul(noun.slice(-1))) return rest;
  const { any, rieul } = finalConsonant(noun);
  const standalone = (n: number) => !isHangul(rest.charAt(n));
  if (rest.startsWith('으로') || (rest.startsWith('로') && !rest.startsWith('로서'))) {
    const tail = rest.startsWith('으로') ? rest.slice(2) : rest.slice(1);
    return `${any && !rieul ? '으로' : '로'}${tail}`;
  }
  const pairs: [string, string][] = [['은', '는'], ['이', '가'], ['을', '를'], ['과', '와']];
  for (const [withFinal, without] of pairs) {
    if ((rest.startsWith(withFinal) || rest.startsWith(without)) && (standalone(1) || withFinal === '은' || withFinal === '을')) {
      return `${any ? withFinal : without}${rest.slice(1)}`;
    }
  }
  return rest;
}

/** Replaces every occurrence of `term` in `text` with `by`, fixing Korean particles and sentence-initial capitals. */
function replaceTerm(text: string, term: string, by: string): string {
  let out = '';
  let last = 0;
  for (const m of termMatches(text, term)) {
    const at = m.index;
    let word = by;
    let before = text.slice(last, at);
    if (by !== BLANK && at === 0 && /^\p{Lu}/u.test(m.match) && /^\p{Ll}/u.test(by)) word = by.charAt(0).toUpperCase() + by.slice(1);
    if (by !== BLANK && !isHangul(by)) {
      before = before.replace(/(?<![\p{L}\p{N}])([Aa])n?(\s+)$/u, (_all, a: string, space: string) => `${a}${/^[aeiou]/i.test(by) ? 'n' : ''}${space}`);
    }
    out += before + word;
    last = at + m.match.length;
    if (by !== BLANK && isHangul(term)) {
      const rest = fixParticle(by, text.slice(last));
      out += rest;
      last = text.length;
      break;
    }
  }
  return out + text.slice(last);
}

/** A negated (or, when already negative, affirmed) English statement, or undefined when no pattern applies. */
export function negateEnglish(s: string): string | undefined {
  const negative = /\b(is|are|was|were|can|will|should|must|does|do|did|has|have|may|could|would)\s+not\b/i.exec(s);
  if (negative) return s.replace(negative[0], negative[1] ?? '');
  if (/\bcannot\b/i.test(s)) return s.replace(/\b(c)annot\b/i, '$1an');
  const never = /\bnever\b/i.exec(s);
  if (never) return s.replace(/\bnever\b/i, (w) => (w[0] === 'N' ? 'Always' : 'always'));
  for (const aux of [/\b(is|are|was|were|will|should|must|may|could|would)\b/i, /\b(has|have|does|do|did)\b(?=\s+\p{L}+(?:ed|en|n)\b)/iu]) {
    const m = aux.exec(s);
    if (m) return `${s.slice(0, m.index + m[0].length)} not${s.slice(m.index + m[0].length)}`;
  }
  const can = /\bcan\b/i.exec(s);
  if (can) return `${s.slice(0, can.index)}${can[0]}not${s.slice(can.index + can[0].length)}`;
  return undefined;
}

/** Jongseong indices used below (ㄴ, ㅂ, ㅆ) and Hangul syllable helpers. */
const JONG_NIEUN = 4;
const JONG_BIEUP = 17;
const JONG_SSANG_SIOT = 20;

function jong(ch: string): number {
  const c = ch.charCodeAt(0) - 0xac00;
  return c >= 0 && c <= 11171 ? c % 28 : -1;
}

function withoutJong(ch: string): string {
  const c = ch.charCodeAt(0) - 0xac00;
  return String.fromCharCode(0xac00 + c - (c % 28));
}

/** Past-tense syllables and the stem ending they stand for (했 → 하, 었 → nothing). */
const PAST_STEMS: Record<string, string> = { 했: '하', 됐: '되', 었: '', 았: '' };
/** `…ㄴ다` forms of ㄹ-stem verbs, whose ㄹ drops before ㄴ (만든다 → 만들-, 썬다 → 썰-). */
const RIEUL_DROPPED: Record<string, string> = {
  든: '들', 연: '열', 푼: '풀', 판: '팔', 운: '울', 민: '밀', 분: '불', 논: '놀', 건: '걸', 번: '벌', 단: '달', 썬: '썰',
};

const HANGUL_CHAR_RE = /^\p{Script=Hangul}$/u;

/**
 * The last Hangul run of `s` when only an optional `.!。` and white space follow it (the rules of
 * `/(\p{Script=Hangul}+)([.!。]?)\s*$/u`, scanned from the end): the run, what precedes it and the
 * punctuation; undefined when `s` does not end that way.
 */
function finalHangulWord(s: string): { word: string; head: string; end: string } | undefined {
  let i = trimEndWhere(s, isSpaceCode).length;
  const punct = s.charAt(i - 1);
  const end = punct === '.' || punct === '!' || punct === '。' ? punct : '';
  i -= end.length;
  const wordEnd = i;
  while (i > 0 && HANGUL_CHAR_RE.test(s.charAt(i - 1))) i--;
  if (i === wordEnd) return undefined;
  return { word: s.slice(i, wordEnd), head: s.slice(0, i), end };
}

/** Negates the final predicate of a Korean declarative sentence (`…한다.` → `…하지 않는다.`), or undefined. */
export function negateKorean(s: string): string | undefined {
  const m = finalHangulWord(s);
  if (!m) return undefined;
  const { word, head, end } = m;
  const swap = (w: string) => `${head}${w}${end}`;
  if (/(?:않는다|않다|않았다|않습니다|못한다|아니다)$/u.test(word)) return undefined;
  const pairs: [string, string][] = [['있습니다', '없습니다'], ['없습니다', '있습니다'], ['있다', '없다'], ['없다', '있다']];
  for (const [from, to] of pairs) if (word.endsWith(from)) return swap(word.slice(0, -from.length) + to);
  if (word.endsWith('이다') && word.length > 2) {
    const noun = word.slice(0, -2);
    return swap(`${noun}${finalConsonant(noun).any ? '이' : '가'} 아니다`);
  }
  if (word.endsWith('는다') && word.length > 2) return swap(`${word.slice(0, -2)}지 않는다`);
  if (word.endsWith('습니다') && word.length > 3) {
    const before = word.charAt(word.length - 4);
    const past = PAST_STEMS[before];
    if (past !== undefined) return swap(`${word.slice(0, -4)}${past}지 않았습니다`);
    return swap(`${word.slice(0, -3)}지 않습니다`);
  }
  if (word.endsWith('니다') && word.length > 2 && jong(word.charAt(word.length - 3)) === JONG_BIEUP) {
    return swap(`${word.slice(0, -3)}${withoutJong(word.charAt(word.length - 3))}지 않습니다`);
  }
  if (!word.endsWith('다') || word.length < 2) return undefined;
  const last = word.charAt(word.length - 2);
  const stemHead = word.slice(0, -2);
  if (jong(last) === JONG_NIEUN) return swap(`${stemHead}${RIEUL_DROPPED[last] ?? withoutJong(last)}지 않는다`);
  if (jong(last) === JONG_SSANG_SIOT) {
    const past = PAST_STEMS[last];
    return past !== undefined && (past || stemHead) ? swap(`${stemHead}${past}지 않았다`) : undefined;
  }
  return swap(`${word.slice(0, -1)}지 않다`);
}

/** Quote of a source sentence for an explanation. */
function quote(s: string): string {
  return `"${s}"`;
}

/** Statement form of a sentence: a leading connective removed (the next word then capitalised), trimmed. */
function statement(s: string): string {
  const t = s.replace(CONNECTIVE_RE, '').trim();
  if (!t) return s.trim();
  return t.length < s.trim().length ? t.charAt(0).toUpperCase() + t.slice(1) : t;
}

/** Sentences usable as quiz statements, best first (key-term weight per length, context openers last). */
function quizSentences(p: PreparedCard): CardSentence[] {
  const weight = new Map(p.keywords.map((k) => [k.term, k.score]));
  return p.sentences
    .filter(
      (s) =>
        s.text.length <= QUIZ_SENTENCE_MAX &&
        s.tokens.length >= QUIZ_SENTENCE_MIN_TOKENS &&
        isStatement(s.text) &&
        !s.text.includes(BLANK) &&
        s.text.toLowerCase() !== p.title.toLowerCase(),
    )
    .map((s) => {
      let sum = 0;
      for (const t of new Set(s.tokens)) sum += weight.get(t) ?? 0;
      const opener = CONTEXT_OPENER_RE.test(s.text) ? 0.5 : 1;
      return { s, score: (sum / Math.sqrt(s.tokens.length)) * opener };
    })
    .sort((a, b) => b.score - a.score || a.s.index - b.s.index)
    .map((x) => x.s);
}

/** Key terms of `p` that occur in `sentence`, best first. */
function termsIn(p: PreparedCard, sentence: CardSentence): string[] {
  const present = new Set(sentence.tokens);
  return p.keywords.map((k) => k.term).filter((t) => present.has(t) && !p.verbish.has(t) && surface(sentence.text, t) !== undefined);
}

/**
 * SAN-11 cloze: `sentence` with its best key term not yet in `used` (stems) blanked, the term absent
 * from the question; undefined when none fits.
 */
function cloze(p: PreparedCard, sentence: CardSentence, used: Set<string>): Quiz | undefined {
  for (const term of termsIn(p, sentence)) {
    if (used.has(stem(term))) continue;
    const answer = surface(sentence.text, term);
    if (!answer) continue;
    const question = replaceTerm(statement(sentence.text), term, BLANK);
    if (!question.includes(BLANK) || question.toLowerCase().includes(answer.toLowerCase())) continue;
    if (contentTokens(question.replaceAll(BLANK, ' ')).length < 3) continue;
    used.add(stem(term));
    const explanation = p.korean ? `${answer} — 카드 원문: ${quote(sentence.text)}` : `${answer} — the card says: ${quote(sentence.text)}`;
    return { type: 'SHORT_ANSWER', question, answer, explanation, sourceCardId: p.card.cardId };
  }
  return undefined;
}

/** A false OX statement from `sentence`: a key term swapped for one of another card, or a negation; undefined when neither applies. */
function falsify(p: PreparedCard, sentence: CardSentence, others: PreparedCard[], h: number): Quiz | undefined {
  const source = statement(sentence.text);
  const candidates: { question: string; why: string }[] = [];
  const term = termsIn(p, sentence)[0];
  if (term) {
    const original = surface(sentence.text, term);
    const kind = (t: string, shown: string) => `${!isHangul(t) && /[^s]s$/.test(t)}${/^\p{Lu}/u.test(shown)}`;
    const all = others
      .flatMap((o) =>
        o.keywords
          .slice(0, SWAP_TERMS_PER_CARD)
          .filter((k) => !o.verbish.has(k.term))
          .map((k) => ({ term: k.term, shown: o.surfaces.get(k.term) ?? k.term })),
      )
      .filter((c) => isHangul(c.term) === isHangul(term) && c.term !== term && !p.haystack.includes(c.term));
    const alike = all.filter((c) => kind(c.term, c.shown) === kind(term, original ?? term));
    const pool = (alike.length > 0 ? alike : all).slice(0, SWAP_CHOICES);
    const shown = pool[h % Math.max(pool.length, 1)]?.shown;
    if (shown && original) {
      const question = replaceTerm(source, term, shown);
      const why = p.korean ? `'${shown}'이(가) 아니라 '${original}'` : `"${original}", not "${shown}"`;
      if (question !== source) candidates.push({ question, why });
    }
  }
  const negated = isKoreanText(source) ? negateKorean(source) : negateEnglish(source);
  if (negated && negated !== source) candidates.push({ question: negated, why: p.korean ? '원문을 부정으로 바꾼 문장' : 'the statement negates it' });
  const chosen = candidates[(h >>> 1) % Math.max(candidates.length, 1)];
  if (!chosen) return undefined;
  const explanation = p.korean
    ? `X — 카드 원문: ${quote(sentence.text)} (${chosen.why})`
    : `X — the card says: ${quote(sentence.text)} (${chosen.why})`;
  return { type: 'OX', question: clip(chosen.question, 2000), answer: 'X', explanation, sourceCardId: p.card.cardId };
}

function trueStatement(p: PreparedCard, sentence: CardSentence): Quiz {
  const explanation = p.korean ? `O — 카드 원문: ${quote(sentence.text)}` : `O — the card states: ${quote(sentence.text)}`;
  return { type: 'OX', question: statement(sentence.text), answer: 'O', explanation, sourceCardId: p.card.cardId };
}

/** The cards other than `p`, most similar (by {@link localEmbedding} of their text) first, ties in input order. */
function nearestFirst(p: PreparedCard, prepared: PreparedCard[], vectors: Map<PreparedCard, number[]>): PreparedCard[] {
  const own = vectors.get(p);
  const sim = (o: PreparedCard) => {
    const v = vectors.get(o);
    if (!own || !v) return 0;
    let sum = 0;
    for (let i = 0; i < own.length; i++) sum += (own[i] ?? 0) * (v[i] ?? 0);
    return sum;
  };
  return prepared
    .filter((o) => o !== p)
    .map((o, i) => ({ o, i, s: sim(o) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.o);
}

/**
 * Pure SAN-11 quiz generation used by {@link createLocalAiRuntime} (and the test emulator). Per card
 * and requested type, 1 quiz (2 when the card has 3 or more usable sentences): OX statements are
 * source sentences, true (`O`, lightly trimmed) or falsified (`X`: a key term swapped for a term of
 * another card, or a negation); SHORT_ANSWER questions are cloze sentences whose key term is
 * `____` and absent from the question. True/false and swap choices come from mixed FNV-1a hashes of
 * the card id and sentence, never randomness; OX prefers sentences the clozes did not use.
 * Every quiz satisfies {@link QuizSchema} and cites its card. Cards without usable sentences give none.
 */
export function generateQuizzesLocally(input: { cards: readonly SourceCard[]; types: readonly QuizTypeName[] }): Quiz[] {
  const types = QUIZ_TYPES.filter((t) => input.types.includes(t));
  const prepared = prepareCards(input.cards);
  const vectors = new Map(types.includes('OX') && prepared.length > 1 ? prepared.map((p) => [p, localEmbedding(p.haystack)]) : []);
  const out: Quiz[] = [];
  for (const p of prepared) {
    const ranked = quizSentences(p);
    const perType = ranked.length >= 3 ? 2 : 1;
    const others = nearestFirst(p, prepared, vectors);
    const made: Record<QuizTypeName, Quiz[]> = { OX: [], SHORT_ANSWER: [] };
    const clozeUsed = new Set<string>();
    const taken = new Set<number>();
    if (types.includes('SHORT_ANSWER')) {
      for (const s of ranked) {
        if (made.SHORT_ANSWER.length >= perType) break;
        const q = cloze(p, s, clozeUsed);
        if (q) {
          made.SHORT_ANSWER.push(q);
          taken.add(s.index);
        }
      }
    }
    if (types.includes('OX')) {
      // Sentences the cloze did not use come first; the first statement's truth is hashed, the next one alternates.
      const pool = [...ranked.filter((s) => !taken.has(s.index)), ...ranked.filter((s) => taken.has(s.index))];
      const seed = mix(fnv1a(`${p.card.cardId}\u0000OX`));
      let wantFalse = (seed & 1) === 1;
      for (const s of pool) {
        if (made.OX.length >= perType) break;
        const q = wantFalse ? falsify(p, s, others, mix(fnv1a(s.text, seed))) : trueStatement(p, s);
        if (!q) continue;
        made.OX.push(q);
        wantFalse = !wantFalse;
      }
    }
    for (const type of types) out.push(...made[type]);
  }
  return out.map((q) => QuizSchema.parse(q));
}

/** The top `n` keywords over all cards, one per card in turn (card order), as written in the cards. */
function tilKeywords(prepared: PreparedCard[], n: number): string[] {
  const picked: string[] = [];
  const shown: string[] = [];
  for (let rank = 0; picked.length < n && rank < CARD_KEYWORDS; rank++) {
    for (const p of prepared) {
      const k = p.keywords[rank];
      if (!k || picked.includes(k.term) || picked.length >= n) continue;
      picked.push(k.term);
      shown.push(p.surfaces.get(k.term) ?? k.term);
    }
  }
  return shown;
}

/** Key sentences of a card for its TIL section: the best 2–4 not already in the summary, in text order. */
function keySentences(p: PreparedCard): string[] {
  const ranked = quizSentences(p);
  const all = ranked.length > 0 ? ranked : p.sentences;
  const summary = p.card.summary.replace(/\s+/g, ' ');
  const fresh = all.filter((s) => !summary.includes(s.text));
  const want = Math.min(TIL_BULLETS_MAX, Math.max(TIL_BULLETS_MIN, Math.ceil(p.sentences.length / 3)));
  const chosen = [...fresh.slice(0, want)];
  for (const s of all) if (chosen.length < Math.min(want, TIL_BULLETS_MIN) && !chosen.includes(s)) chosen.push(s);
  return chosen.sort((a, b) => a.index - b.index).map((s) => clip(s.text, QUIZ_SENTENCE_MAX));
}

function listJoin(items: string[], korean: boolean): string {
  if (korean || items.length <= 1) return items.join(', ');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * Pure SAN-9 TIL used by {@link createLocalAiRuntime} (and the test emulator). Title
 * `TIL <targetDate>: <first card title>` for one card, else `TIL <targetDate>: <top keywords>` (≤ 120
 * characters). Markdown: `# <title>`, an overview paragraph, one `## <card title>` section per card
 * (its summary and 2–4 key sentences as bullets), then `## Sources` listing the card titles.
 * Bounded for a day of any size ({@link TIL_LIMITS}): sections in card order while they fit (the
 * overview then names how many are summarised), each section capped, Sources cut with
 * `… and N more cards`; linear in the cards' total length.
 * Embedding: {@link localEmbedding} of the markdown, so the TIL is near its cards and their topic.
 * @throws AiRuntimeError BAD_REQUEST when no card has a title, summary or content.
 */
export function generateTilLocally(input: { targetDate: string; cards: readonly SourceCard[] }): TilResult {
  const cards = input.cards.filter((c) => c.title.trim() || c.summary.trim() || c.content.trim());
  if (cards.length === 0) throw new AiRuntimeError('BAD_REQUEST', 'no source cards for the TIL', false);
  const prepared = prepareCards(cards);
  const korean = prepared.filter((p) => p.korean).length * 2 > prepared.length;
  const keywords = tilKeywords(prepared, TIL_KEYWORDS);
  const topic = prepared.length === 1 ? (prepared[0]?.title ?? '') : keywords.join(', ');
  const title = clip(`TIL ${input.targetDate}: ${topic}`.replace(/\s+/g, ' '), TITLE_MAX);

  const cardsWith = new Map<string, number>();
  for (const p of prepared) for (const t of new Set(p.keywords.map((k) => k.term))) count(cardsWith, t);
  const shared = [...cardsWith.keys()].filter((t) => (cardsWith.get(t) ?? 0) >= 2).slice(0, 3);
  const n = prepared.length;
  const overview = korean
    ? `${input.targetDate}에 저장한 카드 ${n}개의 주제: ${listJoin(tilKeywords(prepared, 5), true)}.` +
      (shared.length > 0 ? ` 공통 키워드: ${shared.join(', ')}.` : '')
    : `${n} card${n === 1 ? '' : 's'} saved on ${input.targetDate}, about ${listJoin(tilKeywords(prepared, 5), false)}.` +
      (shared.length > 0 ? ` Common thread: ${listJoin(shared, false)}.` : '');

  const sources = sourcesList(prepared, korean);
  const head = `# ${title}`;
  // Room for the sections: the budget less the header, the overview (and its overflow note) and Sources.
  let room = TIL_LIMITS.markdownMax - head.length - overview.length - sources.length - OVERFLOW_NOTE_MAX - 6;
  const sections: string[] = [];
  for (const p of prepared) {
    const section = tilSection(p);
    if (section.length + 2 > room) break;
    sections.push(section);
    room -= section.length + 2;
  }
  const note = sections.length < n ? ` ${overflowNote(sections.length, n, korean)}` : '';
  const tilMarkdown = [head, overview + note, ...sections, sources].join('\n\n');
  return TilResultSchema.parse({ title, tilMarkdown, embedding: localEmbedding(tilMarkdown) });
}

/** A line of prose that cannot open a code fence (a leading ``` or ~~~ is escaped). */
function proseLine(s: string): string {
  return FENCE_RE.test(s) ? s.replace(/^(\s*)([`~])/, '$1\\$2') : s;
}

/**
 * One card's TIL section, at most {@link TIL_LIMITS}.sectionMax: `## title`, the summary, 2–4 key
 * sentences as bullets; bullets are dropped from the end, then the summary clipped, until it fits.
 */
function tilSection(p: PreparedCard): string {
  const heading = `## ${clip(p.title, TITLE_MAX)}`;
  let summary = proseLine(p.card.summary.trim().replace(/\s+/g, ' '));
  const bullets = keySentences(p).map((s) => `- ${s}`);
  const render = () => [heading, summary, bullets.join('\n')].filter(Boolean).join('\n\n');
  let section = render();
  while (section.length > TIL_LIMITS.sectionMax && bullets.length > 0) {
    bullets.pop();
    section = render();
  }
  if (section.length > TIL_LIMITS.sectionMax) {
    summary = clip(summary, Math.max(1, TIL_LIMITS.sectionMax - heading.length - 2));
    section = render();
  }
  return section;
}

/** `## Sources`: every card's title, one per line, at most {@link TIL_LIMITS}.sourcesMax (then `… and N more`). */
function sourcesList(prepared: readonly PreparedCard[], korean: boolean): string {
  const lines: string[] = [];
  let used = 0;
  for (const [i, p] of prepared.entries()) {
    const line = `- ${clip(p.title, TITLE_MAX)}`;
    if (used + line.length + 1 > TIL_LIMITS.sourcesMax - MORE_LINE_MAX) {
      const more = prepared.length - i;
      lines.push(korean ? `- … 외 카드 ${more}개` : `- … and ${more} more card${more === 1 ? '' : 's'}`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return `## Sources\n\n${lines.join('\n')}`;
}

/** Upper bounds of the generated overflow texts, reserved in the budget. */
const OVERFLOW_NOTE_MAX = 120;
const MORE_LINE_MAX = 40;

/** The overview's note when only the first `shown` of `n` cards have a section. */
function overflowNote(shown: number, n: number, korean: boolean): string {
  return korean
    ? `아래에는 처음 ${shown}개 카드를 정리했고, 나머지 ${n - shown}개는 Sources에 제목만 있습니다.`
    : `The first ${shown} are summarised below; the other ${n - shown} are listed by title under Sources.`;
}

// ---------------------------------------------------------------------------------------------
// The runtime
// ---------------------------------------------------------------------------------------------

/** The answer's fields except the embedding, which {@link localEmbedding} builds valid by construction. */
const AnalysisFieldsSchema = CardAnalysisSchema.omit({ embedding: true });

/** TIMEOUT (retryable) when the caller's signal is already aborted. */
export function assertNotAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new AiRuntimeError('TIMEOUT', 'local AI call aborted by the caller', true);
}

function assertUsable(input: ScrapText): void {
  if (!input.content.trim()) throw new AiRuntimeError('BAD_REQUEST', 'scrap content is empty', false);
}

/** BAD_REQUEST (not retryable) unless there are cards with UUID ids and at least one quiz type. */
function assertQuizInput(input: { cards: readonly SourceCard[]; types: readonly QuizTypeName[] }): void {
  if (input.cards.length === 0) throw new AiRuntimeError('BAD_REQUEST', 'no source cards for the quizzes', false);
  if (!input.types.some((t) => QUIZ_TYPES.includes(t))) throw new AiRuntimeError('BAD_REQUEST', 'no quiz type requested', false);
  const bad = input.cards.find((c) => !QuizSchema.shape.sourceCardId.safeParse(c.cardId).success);
  if (bad) throw new AiRuntimeError('BAD_REQUEST', `card id is not a UUID: ${clip(bad.cardId, 60)}`, false);
}

/** Pure SAN-7 analysis used by {@link createLocalAiRuntime}; exported for tools such as the test emulator. Input is read as NFC. */
export function analyzeLocally(raw: ScrapText): CardAnalysis {
  const input = { ...raw, content: raw.content.normalize('NFC'), title: raw.title == null ? raw.title : raw.title.normalize('NFC') };
  const s = structure(input.content);
  const sents = sentences(s.blocks);
  const allWords = words([...s.headings, ...s.blocks].join('\n'));
  const tokens = allWords.filter(isContent);
  const title = extractTitle(input, s, sents);
  const summary = extractSummary(sents, termWeights(tokens), title);
  const tags = extractTags(tokens, new Set(contentTokens(title)));
  const category = classify(allWords);
  const fields = AnalysisFieldsSchema.parse({ title, summary, tags, category });
  return { ...fields, embedding: localEmbedding(input.content) };
}

/**
 * One call of the local runtime as plain data (structured-cloneable), so that it can run in this
 * thread or in a worker thread with the same code: {@link runLocalTask}.
 */
export type LocalTask =
  | { op: 'analyzeCard'; input: ScrapText }
  | { op: 'refineScrap'; input: ScrapText }
  | { op: 'generateTil'; input: { targetDate: string; cards: SourceCard[] } }
  | { op: 'generateQuizzes'; input: { cards: SourceCard[]; types: QuizTypeName[] } }
  | { op: 'embed'; input: string[] };

/** What each {@link LocalTask} answers. */
export interface LocalTaskResults {
  analyzeCard: CardAnalysis;
  refineScrap: RefineResult;
  generateTil: TilResult;
  generateQuizzes: Quiz[];
  embed: number[][];
}

/**
 * Runs one task synchronously (CPU only, no I/O). Rejects as the runtime does: BAD_REQUEST (not
 * retryable) for empty content, a TIL without cards, quizzes without cards or types or with a
 * non-UUID card id; any other failure (e.g. its own answer failing validation, which would fail
 * the same way on every attempt) becomes MALFORMED_OUTPUT, not retryable.
 * @throws AiRuntimeError only.
 */
export function runLocalTask(task: LocalTask): LocalTaskResults[LocalTask['op']] {
  try {
    switch (task.op) {
      case 'analyzeCard':
        assertUsable(task.input);
        return analyzeLocally(task.input);
      case 'refineScrap':
        assertUsable(task.input);
        return RefineResultSchema.parse({ refinedContent: refineMarkdown(task.input.content) });
      case 'generateTil':
        return generateTilLocally(task.input);
      case 'generateQuizzes':
        assertQuizInput(task.input);
        return generateQuizzesLocally(task.input);
      case 'embed':
        return task.input.map(localEmbedding);
      default: {
        const unknown: never = task;
        throw new AiRuntimeError('BAD_REQUEST', `unknown local AI task: ${JSON.stringify((unknown as { op?: unknown }).op)}`, false);
      }
    }
  } catch (err) {
    if (err instanceof AiRuntimeError) throw err;
    throw new AiRuntimeError('MALFORMED_OUTPUT', `local ${task.op} failed: ${err instanceof Error ? err.message : String(err)}`, false, undefined, { cause: err });
  }
}

/**
 * Creates the offline `local` provider running in the calling thread (SAN-7, SAN-8, SAN-9, SAN-11).
 * Deterministic; embeddings are {@link localEmbedding} (1536-d, unit length); TILs are
 * {@link generateTilLocally}, quizzes {@link generateQuizzesLocally}. Each call's CPU work blocks
 * the event loop while it runs: services use the worker-thread runtime (`createThreadedLocalAiRuntime`
 * in `./threaded`), which answers the same. Methods reject with {@link AiRuntimeError} as
 * {@link runLocalTask} does, and TIMEOUT when the signal is already aborted.
 */
export function createLocalAiRuntime(): AiRuntime {
  const run = async <K extends LocalTask['op']>(task: Extract<LocalTask, { op: K }>, signal?: AbortSignal): Promise<LocalTaskResults[K]> => {
    assertNotAborted(signal);
    return runLocalTask(task) as LocalTaskResults[K];
  };
  return {
    provider: 'local',
    analyzeCard: (input, signal) => run({ op: 'analyzeCard', input }, signal),
    refineScrap: (input, signal) => run({ op: 'refineScrap', input }, signal),
    generateTil: (input, signal) => run({ op: 'generateTil', input }, signal),
    generateQuizzes: (input, signal) => run({ op: 'generateQuizzes', input }, signal),
    embed: (texts, signal) => run({ op: 'embed', input: texts }, signal),
  };
}
