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
      return { student, auth: { authorization: `Bearer ${u.token}` } };
    }),
  );

  const call = async (auth: Record<string, string>, method: string, url: string, body?: unknown, key?: string) => {
    const headers: Record<string, string> = { ...auth };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (key) headers['idempotency-key'] = key;
    const res = await fetch(`${apiUrl}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  /** Posts a link request and follows the job, noting when each state was first seen. */
  const link = async (auth: Record<string, string>, student: SeedStudent): Promise<JobView> => {
    const t0 = Date.now();
    const posted = await call(auth, 'POST', '/portal/link', { portalType: 'suwon', studentId: student.studentId, password: student.password }, randomUUID());
    if (posted.status !== 202) throw new Error(`POST /portal/link → ${posted.status} ${JSON.stringify(posted.json)}`);
    const jobId = String(posted.json.jobId);
    const seen: string[] = [];
    const deadline = Date.now() + 3 * 60_000;
    for (;;) {
      const job = (await call(auth, 'GET', `/portal/link/jobs/${jobId}`)).json as unknown as JobView;
      if (!seen.some((s) => s.startsWith(`${job.status} `))) seen.push(`${job.status} +${Date.now() - t0} ms`);
      if (job.status === 'SUCCEEDED' || job.status === 'FAILED' || Date.now() > deadline) {
        const d = (await call(auth, 'GET', `/portal/link/jobs/${jobId}/duration`)).json;
        say(`  ${student.profile.name} (${student.studentId}) ${job.kind} ${jobId}: ${seen.join(' → ')}; scrape ${String(d.scrapeMs)} ms, post-processing ${String(d.postProcessMs)} ms, elapsed ${String(d.elapsedMs)} ms${job.errorCode ? ` — ${job.errorCode}: ${job.errorMessage}` : ''}`);
        return job;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const jobs: JobView[] = [];
  jobs.push(...(await Promise.all(users.map((u) => link(u.auth, u.student)))));

  // The portal changes: the first student's latest graded course gets a corrected grade; that user refreshes.
  const changed = cloneStudent(users[0]!.student);
  const courses = [...changed.semesters].reverse().flatMap((sem) => sem.courses);
  const graded = courses.find((c) => c.grade !== null && c.grade !== 'W' && c.grade !== 'A+') ?? courses[0]!;
  const before = graded.grade;
  graded.grade = 'A+';
  emulator.setStudent(changed);
  say(`  the portal corrected ${changed.profile.name}'s ${graded.courseCode} grade ${String(before)} → A+; refreshing …`);
  jobs.push(await link(users[0]!.auth, changed));
  const summary = (await call(users[0]!.auth, 'GET', `/portal/link/jobs/${jobs[2]!.jobId}/summary`)).json;
  say(`  summary after the refresh: ${JSON.stringify(summary.summary ?? summary)}`);

  for (const u of users) {
    const r = await call(u.auth, 'GET', '/api/graduation/progress?portalType=suwon');
    if (r.status !== 200) {
      say(`  graduation progress of ${u.student.profile.name}: ${r.status} ${String(r.json.code)} — ${String(r.json.detail ?? '')}`);
      continue;
    }
    type Requirement = { name?: string; scope?: string; met?: boolean; missing?: unknown };
    const p = r.json as { progress?: { met?: boolean; requirements?: Requirement[] } } & Record<string, unknown>;
    const reqs = p.progress?.requirements ?? (p.requirements as Requirement[] | undefined) ?? [];
    say(`  graduation progress of ${u.student.profile.name}: ${p.progress?.met ?? p.met ? 'all requirements met' : 'not yet met'}`);
    for (const q of reqs) say(`    ${q.met ? 'met    ' : 'missing'} ${q.scope ? `${q.scope.toLowerCase().replace(/_/g, ' ')}: ` : ''}${String(q.name)}${q.met ? '' : `: ${JSON.stringify(q.missing)}`}`);
  }
  const completed = jobs.filter((j) => j.status === 'SUCCEEDED').length;
  return { completed, total: jobs.length };
}
