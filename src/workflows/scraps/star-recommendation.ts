/** SAN-12 GITHUB_STAR_RECOMMENDATION workflow. */
import { proxyActivities } from '@temporalio/workflow';
import { PROJECTION_RETRY } from '../../core/activity-options';
import type { GithubStarActivities, StarRecommendationActivities } from '../../activities/scraps/github-stars';
import type { JobWorkflowInput, JobWorkflowResult } from '../../core/contracts';
import { repoText } from '../../domain/scraps/star-ranking';
import { runJob } from '../core/job-runner';
import { aiActivities } from './proxies';

/**
 * SAN-12, workflow ID `github-star-recommendation:<userId>` (one active per user, SAN-2): fetches
 * every starred repository on the `github` queue (up to 5 attempts; GitHub's rate-limit delay is
 * honoured), matches them to the user's knowledge cards on the `ai` queue (up to 4 attempts), then
 * ranks, stores and completes the job in one transaction on the `jobs` queue.
 */
export async function githubStarRecommendationWorkflow(input: JobWorkflowInput): Promise<JobWorkflowResult> {
  const github = proxyActivities<GithubStarActivities>({
    taskQueue: input.queues.github,
    startToCloseTimeout: '5m',
    heartbeatTimeout: '30s',
    retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 5 },
  });
  const ai = aiActivities(input, '10m', '30s');
  const store = proxyActivities<StarRecommendationActivities>({
    taskQueue: input.queues.jobs,
    startToCloseTimeout: '1m',
    retry: PROJECTION_RETRY,
  });
  return runJob(input, async () => {
    const repos = await github.fetchStarredRepos({ userId: input.userId });
    const matches = repos.length ? await ai.matchStarredRepos({ userId: input.userId, texts: repos.map(repoText) }) : [];
    await store.storeStarRecommendations({ jobId: input.jobId, userId: input.userId, repos, matches });
  });
}
