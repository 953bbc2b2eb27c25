/** The README's list of processes is the one the manifests give (scripts/readme-processes.ts). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { workerProcesses } from '../../../src/families';
import { BEGIN, END, processesTable, withProcesses } from '../../../scripts/readme-processes';

const readme = readFileSync(path.join(__dirname, '..', '..', '..', 'README.md'), 'utf8');

it('is current (regenerate with npm run docs:processes)', () => {
  expect(withProcesses(readme)).toBe(readme);
});

it('names every worker process with its queues, and the API', () => {
  const table = processesTable();
  expect(table).toContain('`node dist/server.js`');
  for (const p of workerProcesses()) {
    expect(table).toContain(`\`node dist/workers/main.js --queue ${p.name}\``);
    for (const q of p.queues) expect(table).toContain(`\`${q}\``);
  }
  expect(() => withProcesses('no markers')).toThrow(/no .* block/);
  expect(withProcesses(`a\n${BEGIN}\nold\n${END}\nb`)).toBe(`a\n${BEGIN}\n${table}\n${END}\nb`);
});
