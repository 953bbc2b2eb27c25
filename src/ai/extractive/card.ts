/**
 * Local card analysis (SAN-7): extractive title and summary, keyword tags, lexicon-scored category.
 * Part of the `local` runtime (src/ai/local.ts); no I/O.
 */
import { type Category, type ScrapText } from '../types';
import { count } from './embedding';
import { clip, stripFinalPunctuation, Structure } from './markdown';
import { contentTokens, isHangul, stem } from './tokens';

export const TITLE_MAX = 120;
export const SUMMARY_MAX = 600;
export const TAGS_MIN = 3;
export const TAGS_MAX = 8;

export function termWeights(tokens: string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of tokens) count(tf, t);
  const w = new Map<string, number>();
  for (const [t, n] of tf) w.set(t, 1 + Math.log(n));
  return w;
}

export function extractTitle(input: ScrapText, s: Structure, sents: string[]): string {
  const given = input.title?.trim();
  if (given) return clip(given.replace(/\s+/g, ' '), TITLE_MAX);
  const first = s.headings[0] ?? sents[0] ?? s.blocks[0] ?? input.content.replace(/\s+/g, ' ');
  return clip(stripFinalPunctuation(first), TITLE_MAX);
}

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

/** Words that are content for retrieval but make poor tags. */
export const TAG_STOPWORDS = new Set(
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
export const KO_VERB_ENDING_RE = /(?:다|고|며|면|서|게|니|도록|지만|는데|려고)$|^\p{Script=Hangul}[어아]$/u;

export function extractTags(tokens: string[], titleTokens: Set<string>): string[] {
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
export const LEXICON: Record<Exclude<Category, 'Other'>, Record<string, number>> = {
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
