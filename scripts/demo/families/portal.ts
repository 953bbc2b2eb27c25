/**
 * The portal-link part of `npm run demo`: two users link seeded students of the local
 * portal emulator over the REST API (`POST /portal/link` with an Idempotency-Key), the scraper on
 * the `portal` queue logs in over HTTP, stores the snake_case result in the object store (moto) and
 * calls back signed; then one student's record changes in the portal and that user REFRESHes. Each
 * job's states are printed with the time they were first seen, then each user's graduation progress
 * (met / missing items). Its jobs are the link jobs, completed when SUCCEEDED. The part starts the
 * portal emulator and an S3-compatible object store (moto), unless OBJECT_STORE_ENDPOINT points at one.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@prisma/client';
import { createUserWithToken } from '../../../src/auth/tokens';
import { LOCAL_OBJECT_STORE_CREDENTIALS, startLocalObjectStore } from '../../../src/dev/object-store-server';
import { seedSuwonGraduationRules } from '../../../src/services/portal/suwon-graduation-rules';
import { createS3ObjectStore } from '../../../src/storage/s3';
import { startPortalEmulator, type PortalEmulator } from '../../../test/support/portal-emulator';
import { cloneStudent, SEEDED, type SeedStudent } from '../../../test/support/portal-seed';
import { createApiClient, ok, type ApiClient } from '../../lib/api-client';
import { definePart } from '../part';

interface JobView {
  jobId: string;
  kind: string;
  status: string;
  errorCode: string | null;
  errorMessage: string | null;
}

/** What the part starts: the portal emulator, and the object store's environment when it started one. */
interface PortalServers {
  emulator: PortalEmulator;
  objectStoreEnv: Record<string, string>;
}

/** The part. */
export const part = definePart<PortalServers>({
  async prepare({ say, onStop }) {
    const emulator = await startPortalEmulator();
    onStop('portal emulator', () => emulator.close());
    let objectStoreEnv: Record<string, string> = {};
    if (!process.env.OBJECT_STORE_ENDPOINT) {
      const moto = await startLocalObjectStore();
      onStop('object store (moto)', () => moto.stop());
      objectStoreEnv = {
        OBJECT_STORE_ENDPOINT: moto.endpoint,
        OBJECT_STORE_ACCESS_KEY_ID: LOCAL_OBJECT_STORE_CREDENTIALS.accessKeyId,
        OBJECT_STORE_SECRET_ACCESS_KEY: LOCAL_OBJECT_STORE_CREDENTIALS.secretAccessKey,
        OBJECT_STORE_FORCE_PATH_STYLE: 'true',
      };
    }
    say(`portal: emulator at ${emulator.url}, object store ${objectStoreEnv.OBJECT_STORE_ENDPOINT ?? process.env.OBJECT_STORE_ENDPOINT}`);
    return { emulator, objectStoreEnv };
  },
  // The scraper calls the API back: the callback URL names the API's port.
  env: (api, { emulator, objectStoreEnv }) => ({ ...objectStoreEnv, PORTAL_SUWON_BASE_URL: emulator.url, PORTAL_CALLBACK_URL: `http://${api.host}:${api.port}/internal/scrape-results` }),
  async beforeWorkers(config) {
    const bucket = createS3ObjectStore(config.objectStore);
    await bucket.ensureBucket();
    bucket.close();
  },
  run: ({ apiUrl, db, say }, { emulator }) => runPoDemo(apiUrl, db, emulator, say),
});

/** Runs the PO demo against the API at `apiUrl`. */
async function runPoDemo(apiUrl: string, db: PrismaClient, emulator: PortalEmulator, say: (line: string) => void): Promise<{ completed: number; total: number }> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  await seedSuwonGraduationRules(db); // idempotent: the emulator university's rules as data (PO-11)
  say(`Portal link: emulator at ${emulator.url} (the real portal's markup is not available here: the suwon adapter is written against this emulator)`);
  const users = await Promise.all(
    [SEEDED.retakeAndCorrection, SEEDED.doubleMajorNoCertificate].map(async (student, i) => {
      const u = await createUserWithToken(db, `demo-student-${i + 1}-${stamp}`);
      return { student, api: createApiClient(apiUrl, u.token) };
    }),
  );

  /**
   * Posts a link request and follows the job, noting when each state was first seen; each read
   * long-polls (Prefer: wait with the job's last ETag: answered as soon as the job changes).
   */
  const link = async (api: ApiClient, student: SeedStudent): Promise<JobView> => {
    const t0 = Date.now();
    const posted = await ok(
      'POST /portal/link',
      api.POST('/portal/link', { params: { header: { 'idempotency-key': randomUUID() } }, body: { portalType: 'suwon', studentId: student.studentId, password: student.password } }),
    );
    const jobPath = { path: { jobId: posted.jobId } };
    const seen: string[] = [];
    const deadline = Date.now() + 3 * 60_000;
    let etag: string | undefined;
    let job: JobView | undefined;
    for (;;) {
      const { data, response } = await api.GET('/portal/link/jobs/{jobId}', { params: { ...jobPath, header: etag ? { 'if-none-match': etag, prefer: 'wait=5' } : {} } });
      if (data) {
        job = data;
        etag = response.headers.get('etag') ?? undefined;
      } else if (response.status !== 304 && response.status !== 503) throw new Error(`GET /portal/link/jobs/${posted.jobId} → ${response.status}`);
      if (!job) continue;
      if (!seen.some((s) => s.startsWith(`${job!.status} `))) seen.push(`${job.status} +${Date.now() - t0} ms`);
      if (job.status === 'SUCCEEDED' || job.status === 'FAILED' || Date.now() > deadline) {
        const d = await ok('GET /portal/link/jobs/{jobId}/duration', api.GET('/portal/link/jobs/{jobId}/duration', { params: jobPath }));
        say(`  ${student.profile.name} (${student.studentId}) ${job.kind} ${posted.jobId}: ${seen.join(' → ')}; scrape ${String(d.scrapeMs)} ms, post-processing ${String(d.postProcessMs)} ms, elapsed ${String(d.elapsedMs)} ms${job.errorCode ? ` — ${job.errorCode}: ${job.errorMessage}` : ''}`);
        return job;
      }
      if (response.status === 503) await new Promise((r) => setTimeout(r, 100));
    }
  };

  const jobs: JobView[] = [];
  jobs.push(...(await Promise.all(users.map((u) => link(u.api, u.student)))));

  // The portal changes: the first student's latest graded course gets a corrected grade; that user refreshes.
  const changed = cloneStudent(users[0]!.student);
  const courses = [...changed.semesters].reverse().flatMap((sem) => sem.courses);
  const graded = courses.find((c) => c.grade !== null && c.grade !== 'W' && c.grade !== 'A+') ?? courses[0]!;
  const before = graded.grade;
  graded.grade = 'A+';
  emulator.setStudent(changed);
  say(`  the portal corrected ${changed.profile.name}'s ${graded.courseCode} grade ${String(before)} → A+; refreshing …`);
  jobs.push(await link(users[0]!.api, changed));
  const summary = await ok('GET /portal/link/jobs/{jobId}/summary', users[0]!.api.GET('/portal/link/jobs/{jobId}/summary', { params: { path: { jobId: jobs[2]!.jobId } } }));
  say(`  summary after the refresh: ${JSON.stringify(summary.summary ?? summary)}`);

  for (const u of users) {
    const r = await u.api.GET('/api/graduation/progress', { params: { query: { portalType: 'suwon' } } });
    if (!r.data) {
      say(`  graduation progress of ${u.student.profile.name}: ${r.response.status} ${String(r.error?.code)} — ${String(r.error?.detail ?? '')}`);
      continue;
    }
    const p = r.data;
    say(`  graduation progress of ${u.student.profile.name}: ${p.met ? 'all requirements met' : 'not yet met'}`);
    for (const q of p.requirements) say(`    ${q.met ? 'met    ' : 'missing'} ${q.scope.toLowerCase().replace(/_/g, ' ')}: ${q.name}${q.met ? '' : `: ${JSON.stringify(q.missing)}`}`);
  }
  const completed = jobs.filter((j) => j.status === 'SUCCEEDED').length;
  return { completed, total: jobs.length };
}
