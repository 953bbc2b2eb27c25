/**
 * The README's example, compiled by the repository's typecheck (tsconfig includes clients/) so it
 * stays true to the generated types: submit a scrap, long-poll its analysis job, start an AI run.
 * Not part of the published package (package.json `files`).
 */
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { paths } from './schema';

/** Runs the example against the API at `baseUrl` as the holder of `token`, a member of `companyId`. */
export async function example(baseUrl: string, token: string, companyId: string): Promise<void> {
  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } });

  // 202 Accepted: the scrap and its jobs (CARD_ANALYSIS, SCRAP_REFINE).
  const { data: scrap, error } = await api.POST('/scraps', {
    body: { content: '# Partial indexes\n\nA partial index stores only the rows that match its WHERE clause.' },
  });
  if (!scrap) throw new Error(`POST /scraps: ${error?.code}`); // error: the problem+json body

  // Long polling (RFC 7240): with the last ETag in If-None-Match and `Prefer: wait=<s>`, the server
  // answers as soon as the job changes (200), or 304 when it did not within the wait.
  let etag: string | undefined;
  for (;;) {
    const { data: job, response } = await api.GET('/async-jobs/{jobId}', {
      params: { path: { jobId: scrap.analysisJobId }, header: etag ? { 'if-none-match': etag, prefer: 'wait=20' } : {} },
    });
    if (response.status === 304) continue; // unchanged during the wait
    if (response.status === 503) {
      await new Promise((r) => setTimeout(r, 1000)); // busy: Retry-After
      continue;
    }
    if (!job) throw new Error(`GET /async-jobs: ${response.status}`);
    etag = response.headers.get('etag') ?? undefined;
    if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
  }

  // An AI run for a company the user belongs to; the Idempotency-Key header is required (a retry
  // with the same key and body answers the same run).
  const { data: run } = await api.POST('/api/v1/ai-runs', {
    params: { header: { 'idempotency-key': randomUUID() } },
    body: { companyId, text: 'I need an employment certificate for my visa', locale: 'en' },
  });
  console.log(run?.aiRunId, run?.status);
}
