import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import * as workflows from '../../../src/workflows';
import { testDataConverter } from '../../support/temporal';
import { bundle } from '../harness';

const dir = join(__dirname, '..', '..', 'histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
const load = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as unknown;

it('has a history for every workflow type', () => {
  const types = new Set(files.map((f) => {
    const h = load(f) as { events: { workflowExecutionStartedEventAttributes?: { workflowType: { name: string } } }[] };
    return h.events[0]?.workflowExecutionStartedEventAttributes?.workflowType.name;
  }));
  const exported = Object.keys(workflows).filter((name) => name !== 'noopWorkflow');
  expect([...types].sort()).toEqual(exported.sort());
});

it('replays every checked-in history against the current workflow code', async () => {
  const workflowBundle = await bundle();
  const histories = files.map((f) => ({ workflowId: f, history: load(f) }));
  const results = [];
  for await (const r of Worker.runReplayHistories({ workflowBundle, dataConverter: testDataConverter() }, histories)) results.push(r);
  expect(results).toHaveLength(files.length);
  for (const r of results) expect({ id: r.workflowId, error: r.error }).toEqual({ id: r.workflowId, error: undefined });
});

it('rejects an incompatible change with DeterminismViolationError', async () => {
  const workflowBundle = await bundle(require.resolve('../fixtures/changed-workflows'));
  await expect(Worker.runReplayHistory({ workflowBundle, dataConverter: testDataConverter() }, load('card-analysis-completed.json'))).rejects.toBeInstanceOf(DeterminismViolationError);
});

/** `file`'s history with `extra` merged into its start input: an input whose flags its worker ignored. */
function withStartInput(file: string, extra: Record<string, unknown>): unknown {
  const h = load(file) as { events: { workflowExecutionStartedEventAttributes?: { input: { payloads: { data: string }[] } } }[] };
  const payload = h.events[0]!.workflowExecutionStartedEventAttributes!.input.payloads[0]!;
  const input = JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8')) as Record<string, unknown>;
  payload.data = Buffer.from(JSON.stringify({ ...input, ...extra }), 'utf8').toString('base64');
  return h;
}

it('replays runs whose input sets companionsAfterWork or localWrites but whose worker ignored them: any rollout order', async () => {
  const workflowBundle = await bundle();
  const analysis = withStartInput('card-analysis-local-completed.json', { companionsAfterWork: true });
  await expect(Worker.runReplayHistory({ workflowBundle, dataConverter: testDataConverter() }, analysis)).resolves.toBeUndefined();
  const aiRun = withStartInput('ai-run-succeeded.json', { localWrites: true });
  await expect(Worker.runReplayHistory({ workflowBundle, dataConverter: testDataConverter() }, aiRun)).resolves.toBeUndefined();
});
