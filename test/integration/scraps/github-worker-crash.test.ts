/**
 * SAN-10 exactly one commit across a crash: the `github` worker process (src/workers/main.ts --queue github, as
 * production runs it) is SIGKILLed right after GitHub accepted the PUT and before the answer
 * arrives; after a restart the retried activity finds its content on GitHub and records that
 * commit instead of making a second one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { jobWorkflowId } from '../../../src/core/contracts';
import { startGithubEmulator, type GithubEmulator } from '../../support/github-emulator';
import { startStack, waitForJob, type Stack } from '../../support/stack';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let emulator: GithubEmulator;
let stack: Stack;
let env: Record<string, string>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  emulator = await startGithubEmulator();
  stack = await startStack({ aiWorker: false, githubWorker: false, env: { GITHUB_API_URL: emulator.url } });
  env = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'test',
    DATABASE_URL: stack.dbUrl,
    TEMPORAL_ADDRESS: stack.config.temporal.address,
    TEMPORAL_TASK_QUEUE_PREFIX: stack.config.temporal.taskQueuePrefix,
    GITHUB_API_URL: emulator.url,
    LOG_LEVEL: 'error',
  };
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await stack?.stop();
  await emulator?.close();
});

function startGithubWorkerProcess(): ChildProcess {
  // node itself (not the tsx wrapper), so that SIGKILL hits the worker process.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/workers/main.ts', '--queue', 'github'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}
const exited = (c: ChildProcess) =>
  new Promise<number | null>((r) => (c.exitCode !== null || c.signalCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

it('github worker killed right after GitHub accepted the PUT: one commit, recorded after the restart', async () => {
  const user = await stack.newUser();
  const token = emulator.addUser('crashy');
  emulator.addRepo('crashy', 'til');
  await stack.app.inject({ method: 'PUT', url: '/github/account', headers: user.auth, payload: { accessToken: token } });
  await stack.app.inject({ method: 'PUT', url: '/github/repository', headers: user.auth, payload: { owner: 'crashy', name: 'til', directory: 'til' } });
  const summary = await stack.db.dailySummary.create({
    data: { userId: user.userId, targetDate: new Date('2026-11-30T00:00:00Z'), title: 'Crash safety', tilMarkdown: '# Crash safety\n\nIdempotent PUTs.\n', generatedAt: new Date() },
  });

  const first = startGithubWorkerProcess();
  let killed = false;
  let markKilled: () => void = () => undefined;
  const workerKilled = new Promise<void>((resolve) => (markKilled = resolve));
  emulator.afterPut(async () => {
    if (killed) return undefined;
    killed = true;
    first.kill('SIGKILL'); // the commit exists on GitHub; its answer never reaches the worker
    await exited(first);
    markKilled();
    return 'drop';
  });

  const res = await stack.app.inject({ method: 'POST', url: `/til/${summary.id}/github-commits`, headers: user.auth });
  expect(res.statusCode).toBe(202);
  const { commitId, jobId, filePath } = res.json();

  await workerKilled;
  expect(first.signalCode).toBe('SIGKILL');
  expect(emulator.commits('crashy', 'til')).toHaveLength(1);
  expect((await stack.db.tilGithubCommit.findUniqueOrThrow({ where: { id: commitId } })).status).toBe('PROCESSING');

  const second = startGithubWorkerProcess();
  const job = await waitForJob(stack, jobId, user.auth);
  expect(job.status).toBe('COMPLETED');

  const commits = emulator.commits('crashy', 'til');
  expect(commits).toHaveLength(1); // exactly one commit despite the retried activity
  expect(commits[0]!.paths).toEqual([filePath]);
  const row = await stack.db.tilGithubCommit.findUniqueOrThrow({ where: { id: commitId } });
  expect(row).toMatchObject({ status: 'COMPLETED', commitSha: commits[0]!.sha });
  expect(emulator.requests('PUT /repos/{o}/{r}/contents/{path}')).toBe(1);
  expect(emulator.requests('GET /repos/{o}/{r}/commits')).toBe(1);

  const history = await stack.client.workflow.getHandle(jobWorkflowId('TIL_GITHUB_COMMIT', commitId)).fetchHistory();
  const attempts = history.events?.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes?.attempt);
  expect(attempts).toContain(2); // commitTilToGithub's first attempt died with its worker and was retried

  second.kill('SIGTERM');
  expect(await exited(second)).toBe(0);
}, 120_000);
