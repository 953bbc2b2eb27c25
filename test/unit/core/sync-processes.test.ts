/** The README's process list and docker-compose's worker services are the ones the manifests give (scripts/sync-processes.ts). */
import path from 'node:path';
import { workerProcesses } from '../../../src/families';
import { composeWorkerServices, processesTable, README_BLOCK, syncedFiles, withBlock } from '../../../scripts/sync-processes';

it('the generated blocks are current (regenerate with npm run sync:processes)', () => {
  for (const { file, current, synced } of syncedFiles(path.join(__dirname, '..', '..', '..'))) {
    expect({ file: path.basename(file), current }).toEqual({ file: path.basename(file), current: synced });
  }
});

it('name every worker process with its queues and the API; a compose service per process', () => {
  const table = processesTable();
  const compose = composeWorkerServices();
  expect(table).toContain('`node dist/server.js`');
  for (const p of workerProcesses()) {
    expect(table).toContain(`\`node dist/workers/main.js --queue ${p.name}\``);
    for (const q of p.queues) expect(table).toContain(`\`${q}\``);
    expect(compose).toContain(`  worker-${p.name}:\n`);
  }
  expect(() => withBlock('no markers', README_BLOCK, 'x')).toThrow(/no .* block/);
  expect(withBlock(`a\n${README_BLOCK.begin}\nold\n${README_BLOCK.end}\nb`, README_BLOCK, table)).toBe(`a\n${README_BLOCK.begin}\n${table}\n${README_BLOCK.end}\nb`);
});
