/**
 * The demo's webhook summary line: deliveries counted over every endpoint the receiver is
 * registered as (the demo user's and a company's), per endpoint and event type, a status other
 * than SUCCEEDED named.
 */
import { webhookSummary } from '../../../scripts/demo/webhooks';

describe('demo webhook summary', () => {
  it("counts the company endpoint's ai_run deliveries with the user endpoint's", () => {
    const s = webhookSummary('http://127.0.0.1:4000/demo-webhooks', [
      { label: 'user', groups: [{ eventType: 'async_job.completed', status: 'SUCCEEDED', count: 12 }, { eventType: 'study_memo_card_job.completed', status: 'SUCCEEDED', count: 3 }] },
      { label: 'company 1a2b3c4d', groups: [{ eventType: 'ai_run.failed', status: 'SUCCEEDED', count: 1 }, { eventType: 'ai_run.succeeded', status: 'SUCCEEDED', count: 9 }] },
    ], 25);
    expect(s).toEqual({
      total: 25,
      succeeded: 25,
      line: 'webhooks: 25/25 deliveries to http://127.0.0.1:4000/demo-webhooks succeeded (25 POSTs received): ' +
        'user: async_job.completed 12, study_memo_card_job.completed 3; company 1a2b3c4d: ai_run.failed 1, ai_run.succeeded 9',
    });
  });

  it('names a delivery that did not succeed and an endpoint without deliveries', () => {
    const s = webhookSummary('http://x/demo-webhooks', [
      { label: 'user', groups: [{ eventType: 'async_job.completed', status: 'SUCCEEDED', count: 2 }, { eventType: 'async_job.completed', status: 'FAILED', count: 1 }] },
      { label: 'company 1a2b3c4d', groups: [] },
    ], 2);
    expect(s.total).toBe(3);
    expect(s.succeeded).toBe(2);
    expect(s.line).toBe('webhooks: 2/3 deliveries to http://x/demo-webhooks succeeded (2 POSTs received): user: async_job.completed 2, async_job.completed (FAILED) 1; company 1a2b3c4d: none');
  });
});
