/**
 * The production topology is one description: scripts/cluster/processes.ts (the worker processes,
 * from the family manifests), scripts/cluster/temporal.ts (a node's environment for the server's
 * configuration template) and scripts/cluster/install.sh (the server version) must match what
 * docker-compose.yml runs, without a Docker engine.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { taskQueues } from '../../../src/core/contracts';
import { FAMILIES } from '../../../src/families';
import { API_PROCESS, workerProcesses } from '../../../scripts/cluster/processes';
import { PORT_VARIABLES, TEMPORAL_NODE_SETTINGS, TEMPORAL_SERVER_VERSION, temporalNodeEnv } from '../../../scripts/cluster/temporal';

const root = path.resolve(__dirname, '..', '..', '..');
type Svc = { image?: string; command?: string[]; environment?: Record<string, string>; volumes?: string[]; healthcheck?: { test: string[] }; networks?: Record<string, { aliases?: string[] } | null> };
const compose = YAML.parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Svc> };
const svc = (name: string): Svc => {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
};
const aliases = (s: Svc) => Object.values(s.networks ?? {}).flatMap((n) => n?.aliases ?? []);

describe('worker processes', () => {
  it('serve every task queue of the core and of the families, each queue in exactly one entry point that exists', () => {
    const served = workerProcesses().flatMap((p) => p.queues);
    const declared = [...Object.keys(taskQueues()), 'maintenance', ...FAMILIES.flatMap((f) => (f.ownQueues ?? []).map((q) => q.name))];
    expect([...served].sort()).toEqual([...new Set(declared)].sort());
    for (const p of [API_PROCESS, ...workerProcesses()]) expect({ p: p.name, exists: existsSync(path.join(root, 'src', `${p.entry}.ts`)) }).toEqual({ p: p.name, exists: true });
  });

  it('are each a docker-compose service running the built entry point, its healthcheck naming its queue', () => {
    for (const p of workerProcesses()) {
      const s = svc(p.name);
      expect({ p: p.name, command: s.command }).toEqual({ p: p.name, command: ['node', `dist/${p.entry}.js`] });
      expect({ p: p.name, queue: s.healthcheck?.test.at(-1) }).toEqual({ p: p.name, queue: p.queues[0] });
    }
  });
});

describe('API processes', () => {
  it('run twice, reachable under one name', () => {
    for (const name of ['api', 'api-2']) expect(svc(name).command).toEqual(['node', `dist/${API_PROCESS.entry}.js`]);
    expect(aliases(svc('api-2'))).toContain('api');
    expect(svc('api').environment?.PORTAL_CALLBACK_URL).toMatch(/^http:\/\/api:3000\//);
  });
});

describe('Temporal nodes', () => {
  const nodes = ['temporal', 'temporal-2'];
  const local = temporalNodeEnv({
    pg: { host: '127.0.0.1', port: 5432, user: 'postgres', password: 'postgres' },
    ports: Object.fromEntries(Object.keys(PORT_VARIABLES).map((k, i) => [k, 20_000 + i])) as never,
    bindIp: '127.0.0.1',
    dynamicConfigFile: '/x.yaml',
  });

  it('run the version the installer builds, with the settings npm run cluster gives its nodes', () => {
    const installer = readFileSync(path.join(root, 'scripts', 'cluster', 'install.sh'), 'utf8');
    expect(installer).toContain(`TEMPORAL_SERVER_VERSION=${TEMPORAL_SERVER_VERSION}`);
    const version = TEMPORAL_SERVER_VERSION.replace(/^v/, '');
    for (const name of nodes) {
      const s = svc(name);
      expect(s.image).toBe(`temporalio/server:${version}`);
      expect(s.environment).toEqual(expect.objectContaining(TEMPORAL_NODE_SETTINGS));
      // Ports and the announced address are the container's own; every other variable is set.
      const perHost = new Set([...Object.values(PORT_VARIABLES), 'TEMPORAL_BROADCAST_ADDRESS']);
      for (const key of Object.keys(local).filter((k) => !perHost.has(k))) expect({ name, key, set: key in (s.environment ?? {}) }).toEqual({ name, key, set: true });
    }
    for (const name of ['temporal-schema', 'temporal-setup']) expect(svc(name).image).toBe(`temporalio/admin-tools:${version}`);
  });

  it('share one frontend name, Temporal’s own PostgreSQL and the repository’s dynamic config', () => {
    expect(aliases(svc('temporal-2'))).toContain('temporal');
    const env = svc('temporal').environment ?? {};
    const appDb = new URL(svc('api').environment?.DATABASE_URL ?? '').hostname;
    expect(env.POSTGRES_SEEDS).not.toBe(appDb);
    expect(compose.services[env.POSTGRES_SEEDS ?? '']).toBeDefined();
    for (const name of nodes) {
      const mount = (svc(name).volumes ?? []).find((v) => v.startsWith('./deploy/temporal/dynamicconfig.yaml:'));
      expect(mount?.split(':')[1]).toBe(svc(name).environment?.DYNAMIC_CONFIG_FILE_PATH);
    }
    expect(existsSync(path.join(root, 'deploy', 'temporal', 'dynamicconfig.yaml'))).toBe(true);
  });
});
