/**
 * The AI-runs part of `npm run demo`: a company with an OWNER, who registers the demo's webhook
 * receiver as the company's endpoint (its runs' ai_run events), and an HR member; realistic HR requests
 * in Korean and English over the REST API (some with missing slots, one ambiguous, one the local
 * runtime fails on its first attempt, one it rejects terminally), every run to SUCCEEDED — the
 * rejected one through a manual retry (AR-4) — then HR's decisions (AR-5: the first candidate that
 * no guard blocked is adopted and becomes a Task, the others are discarded; nothing is sent), and a
 * line per run with status, outcome, attempts, candidates and Tasks. Its jobs are the runs, completed
 * when SUCCEEDED.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@prisma/client';
import { createUserWithToken } from '../../../src/auth/tokens';
import { ensureCompany, setMember } from '../../../src/core/companies';
import { createApiClient, ok } from '../../lib/api-client';
import { definePart, type DemoWebhookRegistry } from '../part';

/** Demo markers the demo's config hands the local runtime (AI_RUNTIME_FAIL_FIRST_MARKER / AI_RUNTIME_REJECT_FIRST_MARKER). */
const AR_DEMO_MARKERS = { failFirst: '[demo:flaky]', rejectFirst: '[demo:reject]' } as const;

/** The demo's requests: [label, text, locale]. */
const REQUESTS: readonly [string, string, 'ko' | 'en'][] = [
  ['employment certificate, full', 'I need an employment certificate for my visa application by Friday, in English please. My phone is 010-1234-5678', 'en'],
  ['annual leave (ko)', '다음 주 월요일부터 3일 연차 쓰고 싶습니다', 'ko'],
  ['payroll correction (ko)', '11월 급여가 20만원 적게 들어왔어요. 정정 부탁드립니다', 'ko'],
  ['payroll correction, missing slots', 'Can you fix my payroll? Something looks wrong.', 'en'],
  ['certificate, missing purpose (ko)', '재직증명서 발급해주세요', 'ko'],
  ['ambiguous: which certificate?', 'I need a certificate for the bank, for my loan', 'en'],
  ['sick leave (en)', 'I was sick and saw a doctor, I need sick leave for 2026-12-03 and 2026-12-04. Email me at minji.kim@example.com', 'en'],
  ['career certificate, flaky first attempt (ko)', `${AR_DEMO_MARKERS.failFirst} 이직 때문에 경력증명서 2부가 필요합니다`, 'ko'],
  ['leave, rejected first attempt → manual retry', `${AR_DEMO_MARKERS.rejectFirst} I would like to take annual leave from 2026-12-21 to 2026-12-24`, 'en'],
];

/** A run as GET /api/v1/ai-runs/{aiRunId} answers it, and its ETag. */
interface RunView {
  aiRunId: string;
  status: string;
  analysisOutcome: string | null;
  errorCode: string | null;
  attempts: { number: number; status: string; trigger: string; errorCode: string | null }[];
  candidates: { candidateId: string; taskType: string; missingSlots: string[]; blocked: boolean; confidence: number }[];
  etag: string;
}

/** The part: the local runtime fails or rejects the marked requests' first attempt; retries start after 0.5 s. */
export const part = definePart({
  env: () => ({ AI_RUNTIME_FAIL_FIRST_MARKER: AR_DEMO_MARKERS.failFirst, AI_RUNTIME_REJECT_FIRST_MARKER: AR_DEMO_MARKERS.rejectFirst, AI_RUN_RETRY_INITIAL_MS: '500' }),
  run: ({ apiUrl, db, say, uiUrl, config, webhooks }) => runArDemo(apiUrl, db, webhooks, say, uiUrl, config.temporal.namespace),
});

/** Runs the AR demo against the API at `apiUrl`; `say` prints a line. */
async function runArDemo(apiUrl: string, db: PrismaClient, webhooks: DemoWebhookRegistry, say: (line: string) => void, uiUrl: string, namespace: string): Promise<{ completed: number; total: number }> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const companyId = await ensureCompany(db, `Demo HR Co ${stamp}`);
  // Company endpoints need an OWNER (an HR manager writes runs but does not route their events).
  const owner = await createUserWithToken(db, `demo-owner-${stamp}`);
  await setMember(db, companyId, owner.userId, 'OWNER');
  const endpointId = await webhooks.registerCompany(createApiClient(apiUrl, owner.token), companyId);
  const hr = await createUserWithToken(db, `demo-hr-${stamp}`);
  await setMember(db, companyId, hr.userId, 'HR_MANAGER');
  const api = createApiClient(apiUrl, hr.token);
  say(`AI runs: company ${companyId}, HR manager ${hr.userId}; ${REQUESTS.length} requests …`);
  say(`  webhooks: the company's endpoint ${endpointId} (registered by its OWNER ${owner.userId}) receives every run's ai_run event`);

  // Long polls the run (Prefer: wait with its last ETag: the answer comes as soon as it changes, 304 after the wait).
  const waitFor = async (id: string, statuses: readonly string[]): Promise<RunView> => {
    const deadline = Date.now() + 5 * 60_000;
    let last: RunView | undefined;
    for (;;) {
      const { data, response } = await api.GET('/api/v1/ai-runs/{aiRunId}', {
        params: { path: { aiRunId: id }, header: last ? { 'if-none-match': last.etag, prefer: 'wait=5' } : {} },
      });
      if (data) last = { ...data, etag: response.headers.get('etag') ?? '' };
      else if (response.status !== 304 && response.status !== 503) throw new Error(`GET /api/v1/ai-runs/${id} → ${response.status}`);
      if (last && (statuses.includes(last.status) || Date.now() > deadline)) return last;
      if (response.status === 503) await new Promise((r) => setTimeout(r, 300));
    }
  };

  const runs: { label: string; id: string }[] = [];
  for (const [label, text, locale] of REQUESTS) {
    const r = await ok('POST /api/v1/ai-runs', api.POST('/api/v1/ai-runs', { params: { header: { 'idempotency-key': randomUUID() } }, body: { companyId, text, locale } }));
    runs.push({ label, id: r.aiRunId });
  }
  const finished = new Map<string, RunView>();
  for (const r of runs) finished.set(r.id, await waitFor(r.id, ['SUCCEEDED', 'FAILED']));

  // AR-4: the run that failed terminally is retried by hand (its own Idempotency-Key), once.
  for (const r of runs) {
    const v = finished.get(r.id)!;
    if (v.status !== 'FAILED') continue;
    say(`  ${r.id.slice(0, 8)} FAILED ${v.errorCode ?? ''} → manual retry`);
    const key = randomUUID();
    const retryOnce = () => ok('POST /api/v1/ai-runs/{aiRunId}/retry', api.POST('/api/v1/ai-runs/{aiRunId}/retry', { params: { path: { aiRunId: r.id }, header: { 'idempotency-key': key } } }));
    const retry = await retryOnce();
    const replay = await retryOnce(); // same key: same attempt
    say(`    retry → ${String(retry.status)}, attempt ${String(retry.attemptNumber)} (same key again → attempt ${String(replay.attemptNumber)})`);
    finished.set(r.id, await waitFor(r.id, ['SUCCEEDED', 'FAILED']));
  }

  // AR-5: decisions with If-Match (the run's ETag): adopt the first unblocked candidate, discard the rest.
  const tasks = new Map<string, string[]>();
  for (const r of runs) {
    const v = finished.get(r.id)!;
    if (v.status !== 'SUCCEEDED' || v.candidates.length === 0) continue;
    const adopt = v.candidates.find((c) => !c.blocked);
    const decisions = v.candidates.map((c) => ({ candidateId: c.candidateId, decision: c === adopt ? ('ADOPT' as const) : ('DISCARD' as const) }));
    const out = await api.POST('/api/v1/ai-runs/{aiRunId}/candidate-decisions', { params: { path: { aiRunId: r.id }, header: { 'if-match': v.etag } }, body: { decisions } });
    tasks.set(r.id, out.data ? out.data.tasks.map((t) => `${t.taskType}:${t.status}`) : [`(decisions → ${out.response.status} ${out.error?.code ?? ''})`]);
  }

  for (const r of runs) {
    const v = finished.get(r.id)!;
    const attempts = v.attempts.map((a) => `${a.number}:${a.trigger}:${a.status}${a.errorCode ? `(${a.errorCode})` : ''}`).join(' → ');
    const candidates = v.candidates
      .map((c) => `${c.taskType}${c.missingSlots.length ? ` missing[${c.missingSlots.join(',')}]` : ''}${c.blocked ? ' BLOCKED' : ''}`)
      .join('; ');
    say(`  ${r.id.slice(0, 8)} ${v.status.padEnd(9)} outcome=${(v.analysisOutcome ?? '—').padEnd(15)} attempts=${v.attempts.length} [${attempts}]  ${r.label}`);
    say(`           candidates: ${candidates || '—'}   tasks: ${(tasks.get(r.id) ?? []).join(', ') || '—'}`);
  }
  say(`  find the runs: ${uiUrl}/namespaces/${namespace}/workflows?query=${encodeURIComponent(`CompanyId="${companyId}"`)}`);
  const completed = [...finished.values()].filter((v) => v.status === 'SUCCEEDED').length;
  return { completed, total: runs.length };
}
