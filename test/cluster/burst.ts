/**
 * A mixed burst over every family (scraps, AI runs, portal links, study questions), submitted by
 * a few concurrent clients alternating between the API processes, with a fault injected once a
 * given share of the submissions is in. Returns what was started, for the terminal and
 * ran-twice checks of ./support.ts.
 */
import { randomUUID } from 'node:crypto';
import {
  newCompanyMember, newTopic, newUser, scrapText, startAiRun, startPortalLink, startScrap, startStudyQuestion,
  type ClusterContext, type StartedJob,
} from './support';

/** How many of each (scraps count two jobs each). */
export interface BurstPlan {
  scraps: number;
  aiRuns: number;
  portalLinks: number;
  questions: number;
}

/** Jobs a plan makes (a scrap is two). */
export const jobsOf = (p: BurstPlan) => 2 * p.scraps + p.aiRuns + p.portalLinks + p.questions;

/** Options of {@link runBurst}. */
export interface BurstOptions {
  /** Concurrent submitting clients (default 6). */
  clients?: number;
  /** Share of submissions (0 … 1) after which `fault` runs, while the rest go on (default 0.3). */
  faultAfter?: number;
  /** The fault; the burst goes on while it runs. */
  fault?: () => Promise<void>;
}

/**
 * Submits the plan's requests in an interleaved order (client k starts on API k mod n and fails over
 * on its own), runs `fault` once `faultAfter` of them are submitted, and resolves with every started
 * job once all submissions and the fault are done.
 */
export async function runBurst(ctx: ClusterContext, plan: BurstPlan, o: BurstOptions = {}): Promise<{ jobs: StartedJob[]; userIds: string[] }> {
  const tag = `burst-${randomUUID().slice(0, 8)}`;
  const writer = await newUser(ctx, 'cluster-writer');
  const hr = await newCompanyMember(ctx);
  const student = await newUser(ctx, 'cluster-student');
  const topicId = plan.questions > 0 ? await newTopic(ctx, student) : '';
  const tasks: ((api: number) => Promise<StartedJob>)[] = [];
  const longest = Math.max(plan.scraps, plan.aiRuns, plan.portalLinks, plan.questions);
  for (let i = 0; i < longest; i++) {
    if (i < plan.scraps) tasks.push((api) => startScrap(ctx, writer, scrapText(tag, i), api));
    if (i < plan.aiRuns) tasks.push((api) => startAiRun(ctx, hr, `I need an employment certificate for my visa (${tag} ${i})`, api));
    if (i < plan.portalLinks) tasks.push((api) => startPortalLink(ctx, i, api));
    if (i < plan.questions) tasks.push((api) => startStudyQuestion(ctx, student, topicId, i, api));
  }
  const jobs: StartedJob[] = [];
  const faultAt = Math.floor(tasks.length * (o.faultAfter ?? 0.3));
  let faultRun: Promise<void> | undefined;
  let next = 0;
  await Promise.all(
    Array.from({ length: o.clients ?? 6 }, async (_, k) => {
      for (let i = next++; i < tasks.length; i = next++) {
        if (i === faultAt && o.fault) faultRun = o.fault();
        jobs.push(await tasks[i]!(k + i));
      }
    }),
  );
  await faultRun;
  return { jobs, userIds: [writer.userId, hr.userId, student.userId, ...jobs.map((j) => j.userId)] };
}
