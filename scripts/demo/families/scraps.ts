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
import { definePart, type DemoUser } from '../part';

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

/** Follows async jobs until terminal, one progress line per change; keeps every job's last status. */
function jobFollower(call: DemoUser['call'], say: (line: string) => void) {
  const jobIds: string[] = [];
  const status = new Map<string, string>();
  const waitFor = async (ids: string[], label: string) => {
    jobIds.push(...ids);
    const deadline = Date.now() + 10 * 60_000;
    let last = '';
    for (;;) {
      for (const id of ids) {
        if (status.get(id) === 'COMPLETED' || status.get(id) === 'FAILED') continue;
        // A 503 (the database busy on a loaded machine) is answered with "retry later": do so.
        const job = await call('GET', `/async-jobs/${id}`).catch((err: unknown) => {
          if (err instanceof Error && / → 503 /.test(err.message)) return undefined;
          throw err;
        });
        if (job) status.set(id, job.status as string);
      }
      const count = (s: string) => ids.filter((id) => status.get(id) === s).length;
      const line = `${label}: ${count('COMPLETED')}/${ids.length} completed, ${count('FAILED')} failed, ${count('PROCESSING')} processing, ${count('PENDING')} pending`;
      if (line !== last) say(line);
      last = line;
      if (count('COMPLETED') + count('FAILED') === ids.length || Date.now() > deadline) return;
      await new Promise((r) => setTimeout(r, 500));
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
  async run({ apiUrl, config, uiUrl, user, options, shared, say }, { github, token: ghToken }) {
    const { call, auth } = user;
    const docs = options.files.length ? await userDocs(options.files, options.limit, config.scraps.maxContentChars) : await defaultDocs(options.limit);
    if (docs.length === 0) throw new Error('no documents found');
    say(`submitting ${docs.length} documents as scraps …`);
    const scraps: { doc: Doc; scrapId: string; jobIds: string[] }[] = [];
    for (const doc of docs) {
      const r = await call('POST', '/scraps', { content: doc.content, ...(doc.sourceUrl ? { sourceUrl: doc.sourceUrl } : {}) });
      scraps.push({ doc, scrapId: r.scrapId as string, jobIds: [r.analysisJobId as string, r.refineJobId as string].filter(Boolean) });
    }
    shared.documents = scraps.map((s) => ({ file: s.doc.file, scrapId: s.scrapId }));
    const jobs = jobFollower(call, say);
    await jobs.waitFor(scraps.flatMap((s) => s.jobIds), 'CARD_ANALYSIS + SCRAP_REFINE jobs');

    // Cards and their top-3 similar cards.
    say('');
    let byThreshold = 0;
    let withCard = 0;
    for (const s of scraps) {
      say(`• ${s.doc.file}`);
      const card = await fetch(`${apiUrl}/cards/${s.scrapId}`, { headers: auth });
      if (!card.ok) {
        say('    (no card: analysis failed)');
        continue;
      }
      const c = (await card.json()) as { cardId: string; title: string; category: string; tags: string[] };
      say(`    title:    ${c.title}`);
      say(`    category: ${c.category}   tags: ${c.tags.join(', ')}`);
      const sim = (await call('GET', `/cards/${c.cardId}/similar-cards?limit=3`)) as { matchedBy: string; cards: { title: string; distance: number }[] };
      const top = sim.cards.slice(0, 3).map((x) => `${x.title} (${x.distance.toFixed(3)})`);
      withCard++;
      if (sim.matchedBy === 'threshold') byThreshold++;
      say(`    similar (${sim.matchedBy}${sim.matchedBy === 'threshold' ? ` ≤ ${String((sim as { threshold?: number }).threshold)}` : ''}): ${top.join(' | ') || '—'}`);
    }
    say(`similar cards: ${byThreshold} of ${withCard} cards have related cards (matchedBy: threshold), the others show their nearest (fallback)`);

    // Today's TIL → recall cards → recall quiz (enqueued automatically) → commit to GitHub.
    say('');
    const today = new Date().toISOString().slice(0, 10); // the demo user's time zone is UTC
    const til = await call('POST', '/til', { targetDate: today });
    await jobs.waitFor([til.jobId as string], 'TIL_GENERATION');
    const summary = await call('GET', `/til?date=${today}`);
    say(`${String(summary.title)} (${(summary.sourceCardIds as string[]).length} cards, ${String(summary.tilMarkdown).length} chars)`);
    const recall = (await call('GET', `/til/${String(til.summaryId)}/recall-cards`)) as { matchedBy: string; cards: { title: string; distance: number }[] };
    say(`  recall cards (${recall.matchedBy}): ${recall.cards.slice(0, 3).map((c) => `${c.title} (${c.distance.toFixed(3)})`).join(' | ') || '— (every card is in the TIL)'}`);
    const generations = (await call('GET', `/recall-quizzes?date=${today}`)) as { generations: { generationId: string; jobId: string | null; summaryId: string | null }[] };
    const auto = generations.generations.find((g) => g.summaryId === til.summaryId);
    if (auto?.jobId) {
      await jobs.waitFor([auto.jobId], 'RECALL_QUIZ_GENERATION');
      const quiz = (await call('GET', `/recall-quizzes/${auto.generationId}`)) as { quizzes: { type: string; question: string; answer: string }[] };
      say(`  recall quiz: ${quiz.quizzes.length} questions, e.g.`);
      for (const type of ['OX', 'SHORT_ANSWER']) {
        const q = quiz.quizzes.find((x) => x.type === type);
        if (q) say(`    [${type}] ${q.question.slice(0, 140)}  → ${q.answer}`);
      }
    } else {
      say('  recall quiz: not enqueued (see the TIL job)');
    }
    await call('PUT', '/github/account', { accessToken: ghToken });
    await call('PUT', '/github/repository', { owner: GITHUB_LOGIN, name: 'til', directory: 'til' });
    const commit = await call('POST', `/til/${String(til.summaryId)}/github-commits`);
    await jobs.waitFor([commit.jobId as string], 'TIL_GITHUB_COMMIT');
    const commits = (await call('GET', `/til/${String(til.summaryId)}/github-commits`)) as { commits: { status: string; htmlUrl: string | null; commitSha: string | null; filePath: string }[] };
    const done = commits.commits.find((c) => c.status === 'COMPLETED');
    say(`  committed ${String(commit.filePath)} to the local GitHub emulator: ${done?.htmlUrl ?? '(commit failed)'}`);

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
