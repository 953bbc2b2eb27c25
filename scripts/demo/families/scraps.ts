/**
 * The scraps part of `npm run demo`: the demo user's documents (README files of installed packages,
 * or `--files`) submitted as scraps over HTTP, progress until every CARD_ANALYSIS and SCRAP_REFINE
 * job is terminal, each card with its top-3 similar cards; then today's TIL, its recall cards and
 * recall quiz, and the TIL committed to a local GitHub REST emulator (a real GitHub needs a token
 * of yours: see README), printing the commit URL.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { selfServiceToken, startGithubEmulator, SELF_SERVICE_TOKEN_PREFIX, type GithubEmulator } from '../../../test/support/github-emulator';
import { readmeDocs, spread } from '../../lib/readme-corpus';
import { JSON_BODY, SECOND_USER, SECOND_USER_AUTH } from '../keep';
import { ApiCallError, ok, type ApiClient } from '../../lib/api-client';
import { definePart } from '../part';

const GITHUB_LOGIN = 'demo-octocat';

interface Doc {
  file: string;
  content: string;
  sourceUrl?: string;
}

/** Default corpus: README files of installed packages (written by others, nothing copied). */
async function defaultDocs(limit: number): Promise<Doc[]> {
  const docs = (await readmeDocs(1500)).map((d) => ({ file: d.file, content: d.content, sourceUrl: `https://www.npmjs.com/package/${d.pkg}` }));
  return spread(docs, limit);
}

/** The `--files` documents, each cut to the API's limit. */
async function userDocs(patterns: string[], limit: number, maxChars: number): Promise<Doc[]> {
  const files = (await glob(patterns, { absolute: true, onlyFiles: true })).sort().slice(0, limit);
  return files
    .map((file) => ({ file: path.relative(process.cwd(), file), content: readFileSync(file, 'utf8').slice(0, maxChars) }))
    .filter((d) => d.content.trim().length > 0);
}

/**
 * Follows async jobs until terminal, one progress line per change; keeps every job's last status.
 * Each read long-polls (`Prefer: wait` with the job's last ETag in `If-None-Match`): it answers as
 * soon as the job changes, 304 when it did not within the wait.
 */
function jobFollower(api: ApiClient, say: (line: string) => void) {
  const jobIds: string[] = [];
  const status = new Map<string, string>();
  const etags = new Map<string, string>();
  const waitFor = async (ids: string[], label: string) => {
    jobIds.push(...ids);
    const deadline = Date.now() + 10 * 60_000;
    let last = '';
    for (;;) {
      const open = ids.filter((id) => status.get(id) !== 'COMPLETED' && status.get(id) !== 'FAILED');
      // The first open job is waited on (up to 2 s), the others read at once: one line a change.
      for (const [i, id] of open.entries()) {
        const etag = etags.get(id);
        const { data, response } = await api.GET('/async-jobs/{jobId}', {
          params: { path: { jobId: id }, header: { ...(etag ? { 'if-none-match': etag } : {}), ...(i === 0 && etag ? { prefer: 'wait=2' } : {}) } },
        });
        // 304: unchanged; a 503 (the database busy on a loaded machine, or too many waiters) says "retry later": do so.
        if (response.status === 304 || response.status === 503) continue;
        if (!data) throw new ApiCallError(`GET /async-jobs/${id}`, response.status, undefined);
        status.set(id, data.status);
        const tag = response.headers.get('etag');
        if (tag) etags.set(id, tag);
      }
      const count = (s: string) => ids.filter((id) => status.get(id) === s).length;
      const line = `${label}: ${count('COMPLETED')}/${ids.length} completed, ${count('FAILED')} failed, ${count('PROCESSING')} processing, ${count('PENDING')} pending`;
      if (line !== last) say(line);
      last = line;
      if (count('COMPLETED') + count('FAILED') === ids.length || Date.now() > deadline) return;
    }
  };
  const completed = () => [...status.values()].filter((v) => v === 'COMPLETED').length;
  return { waitFor, completed, total: () => jobIds.length };
}

/** The part; its `prepare` starts the GitHub emulator with one account and repository. */
export const part = definePart<{ github: GithubEmulator; token: string }>({
  async prepare({ say, onStop }) {
    // The local REST emulator (same protocol as api.github.com); any `ghemu_<login>` token is a
    // further account (for a second user, see --keep).
    const github = await startGithubEmulator({ selfServiceTokens: true });
    onStop('GitHub emulator', () => github.close());
    const token = github.addUser(GITHUB_LOGIN);
    github.addRepo(GITHUB_LOGIN, 'til', { description: 'Today I learned' });
    say(`github: local emulator at ${github.url}`);
    return { github, token };
  },
  env: (_api, { github }) => ({ GITHUB_API_URL: github.url }),
  async run({ config, uiUrl, user, options, shared, say }, { github, token: ghToken }) {
    const { api } = user;
    const docs = options.files.length ? await userDocs(options.files, options.limit, config.scraps.maxContentChars) : await defaultDocs(options.limit);
    if (docs.length === 0) throw new Error('no documents found');
    say(`submitting ${docs.length} documents as scraps …`);
    const scraps: { doc: Doc; scrapId: string; jobIds: string[] }[] = [];
    for (const doc of docs) {
      const r = await ok('POST /scraps', api.POST('/scraps', { body: { content: doc.content, ...(doc.sourceUrl ? { sourceUrl: doc.sourceUrl } : {}) } }));
      scraps.push({ doc, scrapId: r.scrapId, jobIds: [r.analysisJobId, r.refineJobId].filter((id): id is string => Boolean(id)) });
    }
    shared.documents = scraps.map((s) => ({ file: s.doc.file, scrapId: s.scrapId }));
    const jobs = jobFollower(api, say);
    await jobs.waitFor(scraps.flatMap((s) => s.jobIds), 'CARD_ANALYSIS + SCRAP_REFINE jobs');

    // Cards and their top-3 similar cards.
    say('');
    let byThreshold = 0;
    let withCard = 0;
    for (const s of scraps) {
      say(`• ${s.doc.file}`);
      const { data: c } = await api.GET('/cards/{id}', { params: { path: { id: s.scrapId } } });
      if (!c) {
        say('    (no card: analysis failed)');
        continue;
      }
      say(`    title:    ${c.title}`);
      say(`    category: ${c.category}   tags: ${c.tags.join(', ')}`);
      const sim = await ok('GET /cards/{id}/similar-cards', api.GET('/cards/{id}/similar-cards', { params: { path: { id: c.cardId }, query: { limit: 3 } } }));
      const top = sim.cards.slice(0, 3).map((x) => `${x.title} (${x.distance.toFixed(3)})`);
      withCard++;
      if (sim.matchedBy === 'threshold') byThreshold++;
      say(`    similar (${sim.matchedBy}${sim.matchedBy === 'threshold' ? ` ≤ ${String(sim.threshold)}` : ''}): ${top.join(' | ') || '—'}`);
    }
    say(`similar cards: ${byThreshold} of ${withCard} cards have related cards (matchedBy: threshold), the others show their nearest (fallback)`);

    // Today's TIL → recall cards → recall quiz (enqueued automatically) → commit to GitHub.
    say('');
    const today = new Date().toISOString().slice(0, 10); // the demo user's time zone is UTC
    const til = await ok('POST /til', api.POST('/til', { body: { targetDate: today } }));
    await jobs.waitFor([til.jobId], 'TIL_GENERATION');
    const summary = await ok('GET /til', api.GET('/til', { params: { query: { date: today } } }));
    say(`${String(summary.title)} (${summary.sourceCardIds.length} cards, ${String(summary.tilMarkdown).length} chars)`);
    const summaryId = { summaryId: til.summaryId };
    const recall = await ok('GET /til/{summaryId}/recall-cards', api.GET('/til/{summaryId}/recall-cards', { params: { path: summaryId } }));
    say(`  recall cards (${recall.matchedBy}): ${recall.cards.slice(0, 3).map((c) => `${c.title} (${c.distance.toFixed(3)})`).join(' | ') || '— (every card is in the TIL)'}`);
    const generations = await ok('GET /recall-quizzes', api.GET('/recall-quizzes', { params: { query: { date: today } } }));
    const auto = generations.generations.find((g) => g.summaryId === til.summaryId);
    if (auto?.jobId) {
      await jobs.waitFor([auto.jobId], 'RECALL_QUIZ_GENERATION');
      const quiz = await ok('GET /recall-quizzes/{generationId}', api.GET('/recall-quizzes/{generationId}', { params: { path: { generationId: auto.generationId } } }));
      say(`  recall quiz: ${quiz.quizzes.length} questions, e.g.`);
      for (const type of ['OX', 'SHORT_ANSWER']) {
        const q = quiz.quizzes.find((x) => x.type === type);
        if (q) say(`    [${type}] ${q.question.slice(0, 140)}  → ${q.answer}`);
      }
    } else {
      say('  recall quiz: not enqueued (see the TIL job)');
    }
    await ok('PUT /github/account', api.PUT('/github/account', { body: { accessToken: ghToken } }));
    await ok('PUT /github/repository', api.PUT('/github/repository', { body: { owner: GITHUB_LOGIN, name: 'til', directory: 'til' } }));
    const commit = await ok('POST /til/{summaryId}/github-commits', api.POST('/til/{summaryId}/github-commits', { params: { path: summaryId } }));
    await jobs.waitFor([commit.jobId], 'TIL_GITHUB_COMMIT');
    const commits = await ok('GET /til/{summaryId}/github-commits', api.GET('/til/{summaryId}/github-commits', { params: { path: summaryId } }));
    const done = commits.commits.find((c) => c.status === 'COMPLETED');
    say(`  committed ${commit.filePath} to the local GitHub emulator: ${done?.htmlUrl ?? '(commit failed)'}`);

    const ns = config.temporal.namespace;
    return {
      completed: jobs.completed(),
      total: jobs.total(),
      closing: [`  find these jobs: ${uiUrl}/namespaces/${ns}/workflows?query=${encodeURIComponent('JobType="CARD_ANALYSIS"')}`],
      keep: {
        where: [
          `  GitHub emulator:  ${github.url}  token ${ghToken} (${GITHUB_LOGIN}, repository ${GITHUB_LOGIN}/til);`,
          `                    any token ${SELF_SERVICE_TOKEN_PREFIX}<login> is the account <login> with a repository <login>/til`,
        ],
        commands: [
          `  curl -s -X PUT "$API/github/account" ${SECOND_USER_AUTH} ${JSON_BODY} -d '{"accessToken":"${selfServiceToken(SECOND_USER)}"}'`,
          `  curl -s -X PUT "$API/github/repository" ${SECOND_USER_AUTH} ${JSON_BODY} -d '{"owner":"${SECOND_USER}","name":"til","directory":"til"}'`,
          `  curl -s -X POST "$API/scraps" ${SECOND_USER_AUTH} ${JSON_BODY} -d '{"content":"# Partial indexes\\n\\nA partial index stores only the rows that match its WHERE clause, so it stays small and fast."}'`,
          '  # once GET $API/async-jobs/<analysisJobId> says COMPLETED: today\'s TIL, then its commit to the emulator',
          `  curl -s -X POST "$API/til" ${SECOND_USER_AUTH} ${JSON_BODY} -d '{"targetDate":"${today}"}'`,
          `  curl -s "$API/til?date=${today}" ${SECOND_USER_AUTH}        # until "status":"COMPLETED"`,
          `  curl -s -X POST "$API/til/<summaryId>/github-commits" ${SECOND_USER_AUTH}`,
          `  curl -s "$API/til/<summaryId>/github-commits" ${SECOND_USER_AUTH}   # status, commitSha, htmlUrl`,
        ],
      },
    };
  },
});
