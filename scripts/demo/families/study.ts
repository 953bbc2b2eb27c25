/**
 * The study part of `npm run demo`: over the REST API, as the demo user (whose scraps
 * became knowledge cards: the "own material" the explanations and cards are retrieved from), a
 * topic in focus with at least 10 questions built from the demo's real documents (their knowledge
 * cards' titles), each explained by a STUDY_EXPLANATION job; the memo-card poller (a Temporal
 * Schedule on the `study-cards` queue, polling study questions only here: the demo's config) extracts
 * their cards; the cards of two questions printed with their evidence; one explanation
 * replaced by hand → a new version, extracted at once through POST /study/memo-card-jobs → its old
 * cards retired and the new ones live, side by side; a
 * few reviews through the review loop (ts-fsrs). Its jobs are the explanation jobs and the memo-card
 * extraction jobs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ok, type ApiClient } from '../../lib/api-client';
import { definePart } from '../part';

/**
 * The part: a 15 s poll over study questions only (few poll runs in the Web UI's list), extraction
 * retries after 0.5 s.
 */
export const part = definePart({
  env: () => ({ ST_POLL_INTERVAL_SECONDS: '15', ST_POLL_SOURCE_KINDS: 'study_question', ST_EXTRACT_RETRY_DELAY_MS: '500' }),
  async run({ user, shared, say }) {
    // The knowledge cards of the documents the scraps part submitted, in its order.
    const cards: { title: string; file: string }[] = [];
    for (const d of shared.documents ?? []) {
      const { data: card } = await user.api.GET('/cards/{id}', { params: { path: { id: d.scrapId } } });
      if (card) cards.push({ title: card.title, file: d.file });
    }
    return runStDemo({ api: user.api, cards, say });
  },
});

/** What {@link runStDemo} needs from the demo. */
interface StDemoOptions {
  /** The typed API client as the demo user. */
  api: ApiClient;
  /** The demo user's knowledge cards: title and document of each analysed document. */
  cards: { title: string; file: string }[];
  say: (line: string) => void;
  /** How long to wait for the jobs at most (ms, default 10 min). */
  timeoutMs?: number;
}

interface MemoCard {
  cardId: string;
  kind: 'basic' | 'cloze';
  cue: string | null;
  answer: string;
  clozeText: string | null;
  live: boolean;
  sourceVersion: string;
  evidence: { sourceKind: string; quote: string }[];
}
interface MemoJob {
  jobId: string;
  status: string;
  attempts: number;
  errorCode: string | null;
  sourceVersion: string;
  dropped: Record<string, number>;
}

const cut = (s: string, n: number): string => {
  const cps = Array.from(s.replace(/\s+/g, ' ').trim());
  return cps.length <= n ? cps.join('') : `${cps.slice(0, n - 1).join('')}…`;
};
const front = (c: MemoCard): string => (c.kind === 'basic' ? `${c.cue ?? ''} → ${c.answer}` : (c.clozeText ?? '').replace(/\{\{c\d+::([^}:]+)(::[^}]*)?\}\}/g, '[$1]'));

/** Runs the ST demo (see the module comment). */
async function runStDemo(opts: StDemoOptions): Promise<{ completed: number; total: number }> {
  const { api, say } = opts;
  const deadline = Date.now() + (opts.timeoutMs ?? 10 * 60_000);
  const sources = opts.cards.filter((c) => c.title.trim()).slice(0, 12);
  if (sources.length < 10) say(`study: only ${sources.length} documents have a card; fewer than 10 questions`);

  const topic = await ok('POST /study/topics', api.POST('/study/topics', { body: { name: 'The npm packages this demo runs on' } }));
  const topicPath = { path: { topicId: topic.topicId } };
  await ok('PUT /study/topics/{topicId}/focus', api.PUT('/study/topics/{topicId}/focus', { params: topicPath, body: { focused: true } }));
  const questions: { questionId: string; question: string; jobId: string }[] = [];
  for (const s of sources) {
    const question = `What is ${s.title.replace(/[.?!:]+$/u, '')} and what is it for?`;
    const r = await ok('POST /study/topics/{topicId}/questions', api.POST('/study/topics/{topicId}/questions', { params: topicPath, body: { question } }));
    if (r.explanationJobId) questions.push({ questionId: r.questionId, question, jobId: r.explanationJobId });
    else say(`study: no explanation job for “${cut(question, 60)}”`);
  }
  say(`study: topic ${topic.topicId} (focused), ${questions.length} questions from the documents; STUDY_EXPLANATION jobs …`);

  // The explanation jobs (async_jobs, the `ai` queue).
  const explanationStatus = new Map<string, string>();
  for (;;) {
    for (const q of questions) {
      const s = explanationStatus.get(q.jobId);
      if (s === 'COMPLETED' || s === 'FAILED') continue;
      explanationStatus.set(q.jobId, (await ok('GET /async-jobs/{jobId}', api.GET('/async-jobs/{jobId}', { params: { path: { jobId: q.jobId } } }))).status);
    }
    const done = [...explanationStatus.values()].filter((s) => s === 'COMPLETED' || s === 'FAILED').length;
    if (done === questions.length || Date.now() > deadline) break;
    await sleep(500);
  }
  const explained = [...explanationStatus.values()].filter((s) => s === 'COMPLETED').length;
  say(`study: STUDY_EXPLANATION jobs: ${explained}/${questions.length} completed`);

  // The poller enqueues one extraction per explained version (the topic in focus first).
  const question = (questionId: string) => ({ path: { questionId } });
  const jobsOf = async (questionId: string): Promise<MemoJob[]> =>
    (await ok('GET /study/questions/{questionId}/memo-card-jobs', api.GET('/study/questions/{questionId}/memo-card-jobs', { params: question(questionId) }))).jobs;
  const questionOf = (questionId: string) => ok('GET /study/questions/{questionId}', api.GET('/study/questions/{questionId}', { params: question(questionId) }));
  const memoCardsOf = async (questionId: string, include?: 'retired'): Promise<MemoCard[]> =>
    (await ok('GET /study/questions/{questionId}/memo-cards', api.GET('/study/questions/{questionId}/memo-cards', { params: { ...question(questionId), ...(include ? { query: { include } } : {}) } }))).cards;
  const waitExtracted = async (questionId: string, version: string): Promise<MemoJob | undefined> => {
    for (;;) {
      const job = (await jobsOf(questionId)).find((j) => j.sourceVersion === version);
      if ((job && job.status !== 'pending' && job.status !== 'processing') || Date.now() > deadline) return job;
      await sleep(500);
    }
  };
  const versions = new Map<string, string>();
  for (const q of questions) {
    const v = (await questionOf(q.questionId)).explanationVersion;
    if (v) versions.set(q.questionId, v);
  }
  say('study: waiting for the memo-card poller (Temporal Schedule on the study-cards queue, every 15 s) …');
  const extraction = new Map<string, MemoJob | undefined>();
  for (const q of questions) {
    const v = versions.get(q.questionId);
    if (v) extraction.set(q.questionId, await waitExtracted(q.questionId, v));
  }
  const byStatus = (s: string) => [...extraction.values()].filter((j) => j?.status === s).length;
  const drops = new Map<string, number>();
  for (const j of extraction.values()) for (const [r, n] of Object.entries(j?.dropped ?? {})) drops.set(r, (drops.get(r) ?? 0) + n);
  const dropText = [...drops].map(([r, n]) => `${r} ${n}`).join(', ') || 'none';
  say(`study: memo-card jobs of the questions: ${byStatus('completed')} completed (${[...extraction.values()].filter((j) => j?.errorCode === 'all_dropped').length} all_dropped), ${byStatus('failed')} failed, ${byStatus('skipped')} skipped; cards dropped by the guards: ${dropText}`);

  // Cards with their evidence for two questions.
  const withCards: { q: (typeof questions)[number]; cards: MemoCard[] }[] = [];
  for (const q of questions) {
    const cards = await memoCardsOf(q.questionId);
    if (cards.length > 0) withCards.push({ q, cards });
  }
  for (const { q, cards } of withCards.slice(0, 2)) {
    say('');
    say(`• ${q.question}  (${cards.length} cards)`);
    for (const c of cards.slice(0, 4)) {
      say(`    [${c.kind}] ${cut(front(c), 150)}`);
      for (const e of c.evidence.slice(0, 1)) say(`        evidence (${e.sourceKind}): “${cut(e.quote, 150)}”`);
    }
  }

  // One explanation replaced by hand: a new version, re-extracted once; old cards retired, new ones live.
  const target = withCards[0];
  if (target) {
    const before = target.cards;
    // The old explanation without the sentence of its last card, plus a new paragraph: that card is
    // retired, the unchanged ones keep their identity (and progress), the new sentences become cards.
    const old = (await questionOf(target.q.questionId)).explanation ?? '';
    const dropped = before.length > 1 ? before[before.length - 1]!.evidence[0]?.quote ?? '' : '';
    const replacement = [
      dropped ? old.replace(dropped, '').trim() : old,
      'A memo card is a question and answer pair that is reviewed on a schedule. Spaced repetition is a review method that shows a card again just before it would be forgotten.',
    ].filter(Boolean).join('\n\n');
    const put = await ok('PUT /study/questions/{questionId}/explanation', api.PUT('/study/questions/{questionId}/explanation', { params: question(target.q.questionId), body: { explanation: replacement } }));
    say('');
    say(`study: replaced the explanation of “${cut(target.q.question, 60)}” → version ${put.explanationVersion}`);
    // A client need not wait for the poller: POST /study/memo-card-jobs extracts the version now.
    const now = await ok('POST /study/memo-card-jobs', api.POST('/study/memo-card-jobs', { body: { sourceKind: 'study_question', sourceId: target.q.questionId } }));
    say(`  extraction asked for now (POST /study/memo-card-jobs): ${now.status}${now.status === 'skipped' ? ` (${now.reason}: the poller was first)` : ''}`);
    const job = put.explanationVersion ? await waitExtracted(target.q.questionId, put.explanationVersion) : undefined;
    say(`  its memo-card job: ${job?.status ?? 'not run'} at attempt ${job?.attempts ?? 0}${job?.errorCode ? ` (${job.errorCode})` : ''}`);
    const all = await memoCardsOf(target.q.questionId, 'retired');
    const retired = all.filter((c) => !c.live);
    const live = all.filter((c) => c.live);
    const rows = Math.max(retired.length, live.length);
    say(`  ${'old version (retired)'.padEnd(62)} | new version (live)`);
    for (let i = 0; i < Math.min(rows, 6); i++) {
      const l = retired[i] ? cut(front(retired[i]!), 60) : '';
      const r = live[i] ? `${cut(front(live[i]!), 60)}${before.some((b) => b.cardId === live[i]!.cardId) ? '  (kept: same id, same progress)' : ''}` : '';
      say(`  ${l.padEnd(62)} | ${r}`);
    }
  }

  // A few reviews through the review loop (live cards only: the replaced question's old cards are retired).
  const reviewable = (await ok('GET /study/topics/{topicId}/memo-cards', api.GET('/study/topics/{topicId}/memo-cards', { params: topicPath }))).cards.slice(0, 3);
  let reviewed = 0;
  for (const [i, c] of reviewable.entries()) {
    try {
      await ok('POST /study/memo-cards/{cardId}/reviews', api.POST('/study/memo-cards/{cardId}/reviews', { params: { path: { cardId: c.cardId } }, body: { rating: i === 0 ? 'again' : 'good' } }));
      reviewed += 1;
    } catch (err) {
      if (reviewed === 0 && i === 0) say(`study: reviews not available (${cut(String(err), 200)})`);
      break;
    }
  }
  if (reviewed > 0) {
    const due = await ok('GET /study/memo-cards/due', api.GET('/study/memo-cards/due'));
    say(`study: ${reviewed} reviews recorded (ts-fsrs); ${due.dueCount} cards due now`);
  }

  // Every study job of the demo user: explanation jobs and every memo-card job of its questions.
  const extractionJobs: MemoJob[] = [];
  for (const q of questions) extractionJobs.push(...(await jobsOf(q.questionId)));
  const completed = explained + extractionJobs.filter((j) => j.status === 'completed').length;
  const total = questions.length + extractionJobs.length;
  return { completed, total };
}
