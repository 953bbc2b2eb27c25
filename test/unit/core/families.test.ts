/** The family list: complete job-type map, real workflows, one activity per name, and a core that imports no family. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { JobType } from '@prisma/client';
import * as workflows from '../../../src/workflows';
import {
  assembleWorkflowTypes,
  FAILURE_CATALOGUE,
  FAMILIES,
  familyActivities,
  JOB_WORKFLOW_TYPES,
  TARGET_HOOKS,
} from '../../../src/families';
import type { FamilyManifest } from '../../../src/families/manifest';

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
  for (const type of thrown) expect(FAILURE_CATALOGUE[type]?.retry).toMatch(/^(non-)?retryable$/);
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
