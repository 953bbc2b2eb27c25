/**
 * AR-3/AR-5 the entity tag of an AI run: the one definition shared by `GET /api/v1/ai-runs/{id}`
 * (which sends it as `ETag`) and `POST …/candidate-decisions` (which checks it in `If-Match`).
 * Strong (RFC 9110 section 8.8.1): every change a client can see in the run's representation bumps
 * `ai_runs.version`, so one version is one representation. The format is the one h/ar-run's GET
 * already sends (its `aiRunTag` in src/api/routes/ai-runs/schemas.ts, quoted by `entityTag`), so the
 * two agree byte for byte; at merge that function can delegate to this one. Pure, no I/O.
 */

/** The strong entity tag of run `runId` at `version`: `"ai-run-<runId>-v<version>"` (quotes included). */
export function aiRunEtag(runId: string, version: number): string {
  return `"ai-run-${runId}-v${version}"`;
}

const ETAG = /^"ai-run-([0-9a-f-]{36})-v(\d{1,9})"$/;

/**
 * The run id and version an entity tag made by {@link aiRunEtag} names; undefined for anything
 * else, including a weak tag (`W/"…"`), which never matches under If-Match's strong comparison.
 */
export function parseAiRunEtag(tag: string): { runId: string; version: number } | undefined {
  const m = ETAG.exec(tag.trim());
  return m ? { runId: m[1]!, version: Number(m[2]) } : undefined;
}
