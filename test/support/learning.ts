/** Helpers of the TIL and recall-quiz integration tests (SAN-9, SAN-11). */
import { waitForJob, type Stack } from './stack';

type User = Awaited<ReturnType<Stack['newUser']>>;

/** A user whose time zone is `timeZone` (users.time_zone). */
export async function newUserInZone(stack: Stack, timeZone: string): Promise<User> {
  const user = await stack.newUser();
  await stack.db.user.update({ where: { id: user.userId }, data: { timeZone } });
  return user;
}

/** Today's date `YYYY-MM-DD` in an IANA time zone. */
export function todayIn(timeZone: string, now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** `date` plus `days` calendar days. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * Submits a scrap through the API, waits for its card (CARD_ANALYSIS) and refinement, and, when
 * `createdAt` is given, moves the card to that instant (so a test controls which day it belongs to).
 */
export async function addCard(stack: Stack, user: User, content: string, createdAt?: string): Promise<{ scrapId: string; cardId: string; title: string }> {
  const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content } });
  if (res.statusCode !== 202) throw new Error(`POST /scraps answered ${res.statusCode}: ${res.body}`);
  const { scrapId, analysisJobId, refineJobId } = res.json();
  const analysis = await waitForJob(stack, analysisJobId, user.auth);
  if (analysis.status !== 'COMPLETED') throw new Error(`card analysis ${analysis.status}: ${analysis.errorMessage}`);
  if (refineJobId) await waitForJob(stack, refineJobId, user.auth);
  const card = (await stack.app.inject({ method: 'GET', url: `/cards/${scrapId}`, headers: user.auth })).json();
  if (createdAt) await stack.db.knowledgeCard.update({ where: { id: card.cardId }, data: { createdAt: new Date(createdAt) } });
  return { scrapId, cardId: card.cardId, title: card.title };
}
