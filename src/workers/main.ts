/**
 * The worker entry point (DC-2): `npm run worker -- --queue <name>` runs the worker process that
 * serves task queue `<name>` as the manifests declare it (src/families), e.g. `--queue jobs` (with
 * `maintenance`), `--queue ai`, `--queue ai-runs`. `npm run worker:<name>` is the same.
 */
import { parseArgs } from 'node:util';
import { workerProcesses } from '../families';
import { runWorkerProcess } from './run';

if (require.main === module) {
  const { values } = parseArgs({ options: { queue: { type: 'string' } } });
  if (!values.queue) {
    console.error(`usage: worker --queue <name>; worker processes: ${workerProcesses().map((p) => p.queues.join('+')).join(', ')}`);
    process.exit(2);
  }
  runWorkerProcess(values.queue).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
