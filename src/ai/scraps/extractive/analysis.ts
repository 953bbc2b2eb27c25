/**
 * Local card analysis (SAN-7): extractive title and summary, keyword tags, lexicon-scored category,
 * and the local embedding of the content. No I/O.
 */
import { count, localEmbedding } from '../../extractive/embedding';
import { KEYWORD_STOPWORDS, KO_VERB_ENDING_RE, TITLE_MAX } from '../../extractive/key-terms';
import { clip, sentences, stripFinalPunctuation, structure, Structure } from '../../extractive/markdown';
import { contentTokens, isContent, isHangul, stem, words } from '../../extractive/tokens';
import { type CardAnalysis, CardAnalysisSchema, type Category, type ScrapText } from '../answers';

export const SUMMARY_MAX = 600;
export const TAGS_MIN = 3;
export const TAGS_MAX = 8;

/** Sublinear term weights (1 + ln tf) of `tokens`. */
export function termWeights(tokens: string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of tokens) count(tf, t);
  const w = new Map<string, number>();
  for (const [t, n] of tf) w.set(t, 1 + Math.log(n));
  return w;
}

/**
 * Headings that name a part of a document rather than its topic (a README's first heading is often
 * "Install"); the title skips them.
 */
export const GENERIC_HEADINGS = new Set(
  (
    'install|installation|installing|usage|getting started|quick start|quickstart|table of contents|contents|toc|' +
    'overview|introduction|intro|about|example|examples|api|documentation|docs|features|license|changelog|' +
    'contributing|requirements|setup|motivation|background|summary|notes|readme|목차|설치|사용법|소개|개요'
  ).split('|'),
);

/** `s` without leading characters that are neither letters, digits, `@` nor `.` (emoji, `#`, bullets). */
function trimLeadingSymbols(s: string): string {
  let i = 0;
  while (i < s.length && !/[\p{L}\p{N}@.]/u.test(s.charAt(i))) i++;
  return s.slice(i);
}

/**
 * Local title: the given title, else the first heading that names a topic (not one of
 * {@link GENERIC_HEADINGS}), else the first sentence, else the first block. Headings and sentences
 * come from {@link Structure} (badges, images, links, HTML already stripped).
 */
export function extractTitle(input: ScrapText, s: Structure, sents: string[]): string {
  const given = input.title?.trim();
  if (given) return clip(given.replace(/\s+/g, ' '), TITLE_MAX);
  const topical = (h: string) => h.length > 1 && !GENERIC_HEADINGS.has(h.toLowerCase().replace(/[:.!]+$/, '').trim());
  const headings = s.headings.map(trimLeadingSymbols);
  // A generic first heading ("Install") says the document starts without naming its topic: its
  // first sentence does that better than a later, narrower heading.
  const lead = headings[0] !== undefined && topical(headings[0]) ? headings[0] : undefined;
  const first = lead ?? sents[0] ?? headings.find(topical) ?? s.blocks[0] ?? s.headings[0] ?? input.content.replace(/\s+/g, ' ');
  return clip(stripFinalPunctuation(first), TITLE_MAX);
}

/** Local summary: the 1–3 best-weighted sentences in text order, at most {@link SUMMARY_MAX}; `fallback` when there is no sentence. */
export function extractSummary(sents: string[], weights: Map<string, number>, fallback: string): string {
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

/** Tokens that name a badge, image or link reference of a README, not a topic (`downloads-image`, `npm-url`). */
export const REFERENCE_TOKEN_RE = /-(?:image|img|url|svg|badge|link|href)$/;

/** Local tags: 3–8 keyword tags (most frequent surface form per stem), `note` when there is none. */
export function extractTags(tokens: string[], titleTokens: Set<string>): string[] {
  // Group surface forms by stem; the most frequent (then shortest) surface form names the tag.
  const groups = new Map<string, { n: number; forms: Map<string, number> }>();
  for (const t of tokens) {
    if (t.length > 50 || /^\d/.test(t) || KEYWORD_STOPWORDS.has(t) || REFERENCE_TOKEN_RE.test(t)) continue;
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
export const LEXICON: Record<Exclude<Category, 'Other'>, Record<string, number>> = {
  // Words every package README shares (javascript, npm, library, function …) are weak or
  // absent, so the categories split a set of READMEs instead of filing all of them as Programming.
  Programming: kw(
    'programming coding typescript python java rust golang kotlin swift compiler compilers refactoring refactor ' +
      'debugging debugger algorithm algorithms recursion syntax intrinsic intrinsics polyfill ecmascript prototype ' +
      'iterator iterators generator generators closure closures union narrowing generics heap comparator data-structure ' +
      '프로그래밍 코딩 함수 클래스 컴파일러 알고리즘 디버깅 리팩터링 리팩토링 변수 자바스크립트 타입스크립트 파이썬 자바 객체지향 ' +
      '가비지 컬렉션 컬렉터',
    'code function functions class classes variable variables promise promises async error errors type types ' +
      'javascript react 개발 소프트웨어 메서드 타입 객체 코드',
  ),
  Web: kw(
    'http https http2 request requests response responses cookie cookies header headers cors url urls html browser ' +
      'browsers dom rest-api endpoint endpoints route routes router routing websocket websockets mime content-type fetch ' +
      'fastify express middleware etag cache-control cdn hypertext 웹 브라우저 쿠키 헤더 캐시',
    'server servers client web api apis status 서버',
  ),
  Tooling: kw(
    'cli command-line terminal shell lint linter linting eslint bundler webpack babel swc transpile transpiler glob ' +
      'globs wildcard filesystem watcher watching source-map source-maps sourcemap sourcemaps dotenv argv arguments ' +
      'flags git rebase commit commits branch branches 브랜치 커밋 리베이스',
    'file files path paths directory directories command commands config configuration build plugin plugins npm',
  ),
  Testing: kw(
    'test tests testing jest mock mocks mocking assertion assertions coverage snapshot snapshots fixture fixtures ' +
      'unit-test unit-tests e2e benchmark benchmarks property-based 테스트',
    'expect spec specs',
  ),
  Infrastructure: kw(
    'kubernetes docker container containers cloud aws gcp azure deployment deploy linux kernel scheduler ' +
      'scheduling cpu cpus thread threads devops terraform dns load-balancer nginx virtualization hypervisor ' +
      'preemption preemptive context-switch os operating-system logging logger logs log metrics tracing telemetry ' +
      'opentelemetry observability prometheus grpc rpc worker workers stream streams queue queues temporal retries ' +
      '운영체제 커널 스케줄링 스케줄러 스레드 쓰레드 배포 클라우드 컨테이너 리눅스 인프라 컨텍스트 선점 가상화 쿠버네티스 도커',
    'network networks process processes latency memory events 네트워크 프로세스 메모리 지연',
  ),
  Data: kw(
    'database databases postgresql postgres mysql sqlite sql query queries index indexes indices indexing b-tree ' +
      'btree gin gist vacuum transaction transactions analytics warehouse etl pandas planner sharding replication ' +
      'yaml protobuf serialize serialization serialized stringify deserialize csv validation ' +
      'encoding utf-8 base64 mvcc isolation ' +
      '데이터베이스 쿼리 인덱스 트랜잭션 질의 샤딩 복제 격리 직렬화',
    'table tables column columns rows data parse parser json schema schemas validate 테이블 스키마 컬럼 데이터',
  ),
  'AI/ML': kw(
    'machine-learning neural llm llms embedding embeddings transformer transformers gpt dataset datasets inference ' +
      'classifier fine-tuning deep-learning gradient pytorch tensorflow 머신러닝 딥러닝 인공지능 신경망 임베딩 파인튜닝 추론',
    'model models training ai ml prompt 모델 학습 프롬프트',
  ),
  Security: kw(
    'vulnerability vulnerabilities encryption authentication authorization password passwords attack ' +
      'attacks xss csrf tls certificate exploit malware phishing crypto cryptography signature signatures hmac ' +
      '보안 암호화 인증 취약점 해킹 공격 악성코드',
    'security token tokens secret secrets hash 토큰',
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

export function kw(strong: string, weak: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const w of weak.split(/\s+/)) if (w) out[w] = 0.5;
  for (const w of strong.split(/\s+/)) if (w) out[w] = 1;
  return out;
}

export const LEXICON_ENTRIES = Object.entries(LEXICON).map(([cat, terms]) => ({
  cat: cat as Category,
  exact: new Map(Object.entries(terms).filter(([t]) => !isHangul(t))),
  prefixes: Object.entries(terms).filter(([t]) => isHangul(t)),
}));

/** Score a category needs before it wins over `Other`: one specific term, or two generic ones. */
export const CATEGORY_MIN_SCORE = 1;

/** Local category: the best-scoring lexicon category, `Other` below {@link CATEGORY_MIN_SCORE}. */
export function classify(allWords: string[]): Category {
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

/** The answer's fields except the embedding, which {@link localEmbedding} builds valid by construction. */
const AnalysisFieldsSchema = CardAnalysisSchema.omit({ embedding: true });

/** Pure analysis of the local provider (and the test emulator). Input is read as NFC. */
export function analyzeScrapLocally(raw: ScrapText): CardAnalysis {
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
