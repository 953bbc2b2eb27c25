/**
 * Offline, deterministic AI runtime (provider `local`, SAN-7, SAN-8): extractive title and summary,
 * keyword tags, lexicon-scored category, rule-based markdown clean-up and a feature-hashed TF-IDF
 * embedding. No model weights, no network, no randomness: the same input always gives the same answer.
 */
import {
  AiRuntimeError,
  CardAnalysisSchema,
  EMBEDDING_DIMENSIONS,
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

const TOKEN_RE = /\p{Script=Hangul}+|(?:(?!\p{Script=Hangul})[\p{L}\p{N}])+(?:[-_.'](?:(?!\p{Script=Hangul})[\p{L}\p{N}])+)*/gu;
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

/** Lower-cased word tokens with Korean particles stripped (stopwords still included). */
function words(text: string): string[] {
  const out: string[] = [];
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
const HEADING_RE = /^\s{0,3}(#{1,6})\s*(.*?)\s*#*\s*$/;
const BULLET_RE = /^\s*(?:[-*+]|\d+[.)])\s+/;

/** Inline markdown to plain text: images, links, code spans, emphasis, HTML tags, URLs. */
function inlinePlain(s: string): string {
  return s
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>\n]+>/g, ' ')
    .replace(URL_RE, ' ')
    .replace(/`+/g, '')
    .replace(/(\*{1,3}|_{2,3})(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/\s+/g, ' ')
    .trim();
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
    const h = HEADING_RE.exec(raw);
    if (h && /^\s{0,3}#{1,6}(?!#)/.test(raw)) {
      flush();
      const text = inlinePlain(h[2] ?? '');
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

const SENTENCE_SPLIT_RE = /(?<=[.!?。！？]["')\]]*)\s+(?=\S)/u;

function sentences(blocks: string[]): string[] {
  const out: string[] = [];
  for (const b of blocks) {
    for (const s of b.split(SENTENCE_SPLIT_RE)) {
      const t = s.trim();
      if (t) out.push(t);
    }
  }
  return out;
}

/** Clips `s` to at most `max` characters at a word boundary when one is near, marking the cut with `…`. */
function clip(s: string, max: number): string {
  const t = s.trim();
  if (t.length <= max) return t;
  const hard = t.slice(0, max - 1);
  const space = hard.lastIndexOf(' ');
  const cut = space >= max * 0.6 ? hard.slice(0, space) : hard;
  return `${cut.replace(/[\s,;:.-]+$/u, '')}…`;
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
  return clip(first.replace(/(?<=\S)[.!?。]+$/u, ''), TITLE_MAX);
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
    let line = raw.replace(/[ \t\u00a0\u3000]+$/u, '');
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
// The runtime
// ---------------------------------------------------------------------------------------------

/** The answer's fields except the embedding, which {@link localEmbedding} builds valid by construction. */
const AnalysisFieldsSchema = CardAnalysisSchema.omit({ embedding: true });

function assertUsable(input: ScrapText, signal?: AbortSignal): void {
  if (signal?.aborted) throw new AiRuntimeError('TIMEOUT', 'local AI call aborted by the caller', true);
  if (!input.content.trim()) throw new AiRuntimeError('BAD_REQUEST', 'scrap content is empty', false);
}

/** Pure SAN-7 analysis used by {@link createLocalAiRuntime}; exported for tools such as the test emulator. */
export function analyzeLocally(input: ScrapText): CardAnalysis {
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
 * Creates the offline `local` provider (SAN-7, SAN-8). Deterministic; embeddings are
 * {@link localEmbedding} (1536-d, unit length). Methods reject with {@link AiRuntimeError}:
 * BAD_REQUEST for empty content, TIMEOUT when the signal is already aborted.
 */
export function createLocalAiRuntime(): AiRuntime {
  return {
    provider: 'local',
    async analyzeCard(input: ScrapText, signal?: AbortSignal): Promise<CardAnalysis> {
      assertUsable(input, signal);
      return analyzeLocally(input);
    },
    async refineScrap(input: ScrapText, signal?: AbortSignal): Promise<RefineResult> {
      assertUsable(input, signal);
      return RefineResultSchema.parse({ refinedContent: refineMarkdown(input.content) });
    },
    async generateTil(input: { targetDate: string; cards: SourceCard[] }, signal?: AbortSignal): Promise<TilResult> {
      if (signal?.aborted) throw new AiRuntimeError('TIMEOUT', 'local AI call aborted by the caller', true);
      if (input.cards.length === 0) throw new AiRuntimeError('BAD_REQUEST', 'no source cards for the TIL', false);
      const title = clip(`TIL ${input.targetDate}: ${input.cards[0]?.title ?? ''}`, TITLE_MAX);
      const md = [`# ${title}`, ...input.cards.map((c) => `## ${c.title}\n\n${c.summary}`)].join('\n\n');
      return TilResultSchema.parse({ title, tilMarkdown: md, embedding: localEmbedding(md) });
    },
    async generateQuizzes(input: { cards: SourceCard[]; types: QuizTypeName[] }, signal?: AbortSignal): Promise<Quiz[]> {
      if (signal?.aborted) throw new AiRuntimeError('TIMEOUT', 'local AI call aborted by the caller', true);
      return [];
    },
    async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
      if (signal?.aborted) throw new AiRuntimeError('TIMEOUT', 'local AI call aborted by the caller', true);
      return texts.map(localEmbedding);
    },
  };
}
