/**
 * The family list: complete job-type map, real workflows, one activity per name, every queue and
 * Schedule declared once and served, one owner per config variable and problem code, and a core
 * that imports no family.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { JobType } from '@prisma/client';
import * as workflows from '../../../src/workflows';
import {
  assembleQueues,
  assembleWorkflowTypes,
  CONFIG_ENV_NAMES,
  ERROR_REGISTRY,
  FAMILIES,
  familyActivities,
  JOB_WORKFLOW_TYPES,
  loadConfig,
  processOf,
  QUEUES,
  queueActivities,
  SCHEDULES,
  TARGET_HOOKS,
  workerProcesses,
  workerQueues,
  type Config,
} from '../../../src/families';
import { core } from '../../../src/families/core';
import type { FamilyManifest } from '../../../src/families/manifest';
import { taskQueueOf, taskQueues } from '../../../src/core/contracts';

const ROOT = path.resolve(__dirname, '..', '..', '..');

it('every job type of the database is run by exactly one family, by an exported workflow', () => {
  expect(Object.keys(JOB_WORKFLOW_TYPES).sort()).toEqual(Object.values(JobType).sort());
  for (const workflowType of Object.values(JOB_WORKFLOW_TYPES)) {
    expect(typeof (workflows as Record<string, unknown>)[workflowType]).toBe('function');
  }
});

it('refuses a job type declared by two families or by none', () => {
  const [first] = FAMILIES as [FamilyManifest];
  expect(() => assembleWorkflowTypes([first, { ...first, name: 'copy' }])).toThrow(/declared by two families/);
  expect(() => assembleWorkflowTypes([{ ...first, jobs: { CARD_ANALYSIS: 'cardAnalysisWorkflow' } }])).toThrow(/without a family: .*SCRAP_REFINE/);
});

it('target hooks are declared only for job types the families run', () => {
  for (const jobType of Object.keys(TARGET_HOOKS)) expect(JOB_WORKFLOW_TYPES).toHaveProperty(jobType);
});

it('merges activities per task queue and refuses a name registered twice', () => {
  const ai = { ai: { provider: 'fake' }, db: {}, config: {} } as unknown as Parameters<typeof familyActivities<'ai'>>[1];
  expect(Object.keys(familyActivities('ai', ai))).toEqual(expect.arrayContaining(['analyzeScrap', 'refineScrap', 'generateTil']));
  const [first] = FAMILIES as [FamilyManifest];
  expect(() => familyActivities('ai', ai, [first, { ...first, name: 'copy' }])).toThrow(/analyzeScrap on the ai queue is registered twice \(family copy\)/);
});

it('catalogues every failure type thrown through failure() with a retry class', () => {
  const thrown = new Set<string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts')) for (const m of readFileSync(p, 'utf8').matchAll(/failure\(\w+, '([A-Z_]+)'/g)) thrown.add(m[1]!);
    }
  };
  walk(path.join(ROOT, 'src'));
  expect(thrown.size).toBeGreaterThan(10);
  for (const type of thrown) expect(ERROR_REGISTRY.failures[type]?.retry).toMatch(/^(non-)?retryable$/);
});

it('the core imports no family (src/core and the core/ folder of every role folder)', () => {
  const familyNames = FAMILIES.map((f) => f.name);
  const coreDirs = ['src/core', 'src/activities/core', 'src/workflows/core', 'src/api/routes/core'];
  const offenders: string[] = [];
  for (const dir of coreDirs) {
    for (const name of readdirSync(path.join(ROOT, dir))) {
      const file = path.join(ROOT, dir, name);
      for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
        const target = path.relative(ROOT, path.resolve(path.dirname(file), m[1]!));
        const parts = target.split(path.sep);
        if (parts.includes('families') || familyNames.some((f) => parts.includes(f))) offenders.push(`${path.relative(ROOT, file)} → ${target}`);
      }
    }
  }
  expect(offenders).toEqual([]);
});

it('every family is named by its folder in the role folders', () => {
  for (const f of FAMILIES) {
    expect({ family: f.name, domain: existsSync(path.join(ROOT, 'src/domain', f.name)) }).toEqual({ family: f.name, domain: true });
    expect({ family: f.name, manifest: existsSync(path.join(ROOT, 'src/families', `${f.name}.ts`)) }).toEqual({ family: f.name, manifest: true });
  }
});

it('every task queue is declared once, the core\'s first, and the job workflows\' queues are the core\'s', () => {
  const names = workerQueues();
  expect(new Set(names).size).toBe(names.length);
  expect(names.slice(0, core.queues.length)).toEqual(['jobs', 'maintenance', 'ai', 'github']);
  for (const q of Object.keys(taskQueues())) expect(core.queues.map((d) => d.name)).toContain(q);
  const [first] = FAMILIES as [FamilyManifest<Config>];
  const owning = FAMILIES.find((f) => f.queues.length > 0)!;
  expect(() => assembleQueues([owning, { ...owning, name: 'copy' }])).toThrow(/task queue \S+ is declared twice/);
  expect(() => assembleQueues([first, { ...first, queues: [{ name: 'jobs' }] }])).toThrow(/task queue jobs is declared twice/);
});

it('a job workflow names a declared queue with its input\'s prefix', () => {
  expect(taskQueueOf(taskQueues('t1-'), 'study-cards')).toBe('t1-study-cards');
  expect(taskQueueOf(taskQueues(), 'ai-runs')).toBe('ai-runs');
});

it('every queue is served by exactly one worker process, and each process is named by its first queue', () => {
  const served = workerProcesses().flatMap((p) => p.queues);
  expect(served.sort()).toEqual([...workerQueues()].sort());
  for (const p of workerProcesses()) {
    expect(p.queues[0]).toBe(p.name);
    for (const q of p.queues) expect(processOf(q)).toEqual(p);
  }
  expect(processOf('maintenance').queues).toEqual(['jobs', 'maintenance']);
});

it('every Schedule is declared once, starts an exported workflow, and runs on a declared queue whose worker runs workflows', () => {
  const names = SCHEDULES.map((s) => s.name);
  expect(new Set(names).size).toBe(names.length);
  const config = loadConfig({});
  for (const s of SCHEDULES) {
    expect({ schedule: s.name, workflow: typeof (workflows as Record<string, unknown>)[s.workflow] }).toEqual({ schedule: s.name, workflow: 'function' });
    const queue = QUEUES.find((q) => q.name === s.queue);
    expect({ schedule: s.name, queue: queue?.name, runsWorkflows: queue?.workflows }).toEqual({ schedule: s.name, queue: s.queue, runsWorkflows: true });
    expect(String(s.every(config))).toMatch(/^\d+[smh]$/);
    expect(Array.isArray(s.input(config, taskQueues()))).toBe(true);
  }
});

it('a queue\'s concurrency comes from a config variable the config reads', () => {
  for (const q of QUEUES) {
    const env = q.activityConcurrency?.env;
    if (env) expect({ queue: q.name, env, known: CONFIG_ENV_NAMES.includes(env) }).toEqual({ queue: q.name, env, known: true });
  }
});

it('every shared queue\'s activities merge the core\'s and the families\', refusing a name registered twice', () => {
  const config = loadConfig({});
  const base = { config, db: {}, client: {}, connection: {}, registry: { workflowTypes: JOB_WORKFLOW_TYPES, targets: TARGET_HOOKS, jobTypes: [] }, provided: { ai: { provider: 'fake' } } } as never;
  const ai = queueActivities('ai', base);
  expect(Object.keys(ai)).toEqual(expect.arrayContaining(['analyzeScrap', 'refineScrap', 'generateTil']));
  expect(() => queueActivities('no-such-queue', base)).toThrow(/no manifest declares task queue no-such-queue/);
});

it('every npm worker alias runs the generic entry point for a declared process', () => {
  const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  expect(scripts.worker).toBe('tsx src/workers/main.ts');
  const aliases = Object.entries(scripts).filter(([name]) => name.startsWith('worker:'));
  expect(aliases.length).toBeGreaterThan(0);
  for (const [name, command] of aliases) {
    const queue = name.slice('worker:'.length);
    expect({ name, command }).toEqual({ name, command: `tsx src/workers/main.ts --queue ${queue}` });
    expect(workerProcesses().map((p) => p.name)).toContain(queue);
  }
});
