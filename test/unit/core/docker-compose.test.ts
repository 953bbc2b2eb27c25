/**
 * docker-compose.yml, Dockerfile and .env.example checked without a Docker engine: structure,
 * pinned images, the dependency graph, ports, the variables the app reads (every config section),
 * the entry points the commands name, and the worker services against the manifests.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { loadConfig } from '../../../src/families';
import { SEARCH_ATTRIBUTE_NAMES } from '../../../src/core/contracts';
import { CONFIG_ENV_NAMES, QUEUES, workerProcesses } from '../../../src/families';
import { COMPOSE_DYNAMIC_CONFIG_FILE, composeTemporalNodeEnv, TEMPORAL_SERVER_VERSION } from '../../../scripts/cluster/temporal';

const root = path.resolve(__dirname, '..', '..', '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

const Command = z.union([z.string(), z.array(z.string())]);
const Environment = z.union([
  z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(=.*)?$/)),
]);
const Condition = z.enum(['service_started', 'service_healthy', 'service_completed_successfully']);
const Duration = z.string().regex(/^(\d+(\.\d+)?(us|ms|s|m|h))+$/);
const Service = z
  .object({
    image: z.string().optional(),
    build: z
      .union([z.string(), z.strictObject({ context: z.string(), target: z.string().optional(), dockerfile: z.string().optional() })])
      .optional(),
    command: Command.optional(),
    entrypoint: Command.optional(),
    environment: Environment.optional(),
    ports: z.array(z.string().regex(/^(\d+:)?\d+(\/(tcp|udp))?$/)).optional(),
    volumes: z.array(z.string()).optional(),
    depends_on: z
      .union([z.array(z.string()), z.record(z.string(), z.strictObject({ condition: Condition, restart: z.boolean().optional() }))])
      .optional(),
    healthcheck: z
      .strictObject({
        test: z.union([z.string(), z.array(z.string()).min(2)]),
        interval: Duration.optional(),
        timeout: Duration.optional(),
        retries: z.number().int().positive().optional(),
        start_period: Duration.optional(),
      })
      .optional(),
    restart: z.enum(['no', 'always', 'on-failure', 'unless-stopped']).or(z.string().regex(/^on-failure:\d+$/)).optional(),
    init: z.boolean().optional(),
    stop_grace_period: Duration.optional(),
    networks: z.record(z.string(), z.strictObject({ aliases: z.array(z.string()).optional() }).nullable()).optional(),
  })
  .strict()
  .refine((s) => s.image !== undefined || s.build !== undefined, 'a service needs an image or a build');
const ComposeFile = z
  .object({
    name: z.string().optional(),
    services: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/), Service),
    volumes: z.record(z.string(), z.null().or(z.object({}).passthrough())).optional(),
  })
  .catchall(z.unknown())
  .superRefine((doc, ctx) => {
    for (const key of Object.keys(doc)) {
      if (!['name', 'services', 'volumes', 'networks'].includes(key) && !key.startsWith('x-')) {
        ctx.addIssue({ code: 'custom', message: `unknown top-level key ${key}` });
      }
    }
  });
type Compose = z.infer<typeof ComposeFile>;
type ServiceDef = z.infer<typeof Service>;

/** Every environment variable the config reads: each config section's (src/config, assembled in src/families). */
const configEnvKeys = (): string[] => [...CONFIG_ENV_NAMES];

/** Resolves `${VAR:-default}` / `${VAR-default}` to the default, as compose does with VAR unset. */
function withDefaults(value: string): string {
  return value.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*(:?-([^}]*))?\}/g, (_m, _d, def: string | undefined) => def ?? '');
}

function envOf(service: ServiceDef): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((e) => [e.split('=')[0], e.includes('=') ? e.slice(e.indexOf('=') + 1) : '']));
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

function dependsOn(service: ServiceDef): Record<string, z.infer<typeof Condition>> {
  const deps = service.depends_on ?? {};
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((d) => [d, 'service_started' as const]));
  return Object.fromEntries(Object.entries(deps).map(([k, v]) => [k, v.condition]));
}

/** Long-running services without a healthcheck: nothing depends on the UI being healthy. */
const UNPROBED = new Set(['temporal-ui']);

const commandText = (c: ServiceDef['command']) => (c === undefined ? '' : Array.isArray(c) ? c.join(' ') : c);

/** docker-compose service of each worker process the manifests declare. */
const workerServices = () => workerProcesses().map((p) => `worker-${p.name}`);

let compose: Compose;
let services: Array<[string, ServiceDef]>;
const appServices = () => services.filter(([, s]) => s.build !== undefined);

beforeAll(() => {
  const parsed: unknown = YAML.parse(read('docker-compose.yml'), { merge: true });
  compose = ComposeFile.parse(parsed);
  services = Object.entries(compose.services);
});

describe('docker-compose.yml', () => {
  test('has the database, Temporal, its UI and setup jobs, the migration, the API and a worker per queue', () => {
    const names = Object.keys(compose.services);
    for (const name of ['postgres', 'temporal', 'temporal-ui', 'temporal-setup', 'migrate', 'api', 'minio', ...workerServices()]) {
      expect(names).toContain(name);
    }
    expect(compose.services.postgres?.image).toMatch(/^pgvector\/pgvector:/);
    expect(compose.services['temporal-ui']?.image).toMatch(/^temporalio\/ui:/);
    expect(commandText(compose.services.migrate?.command)).toBe('bash scripts/prisma.sh migrate deploy');
    expect(commandText(compose.services.api?.command)).toBe('node dist/server.js');
  });

  test('every image is pinned to a version tag', () => {
    for (const [name, s] of services) {
      if (s.image === undefined) continue;
      const tag = /^[^:@]+(?::([^@]+))?(@sha256:[0-9a-f]{64})?$/.exec(s.image);
      expect({ name, tag: tag?.[1] }).toEqual({ name, tag: expect.stringMatching(/\d/) });
      expect(tag?.[1]).not.toMatch(/latest/);
    }
  });

  test('depends_on names existing services, waits on healthchecks and one-shot jobs, and has no cycle', () => {
    for (const [name, s] of services) {
      for (const [dep, condition] of Object.entries(dependsOn(s))) {
        const target = compose.services[dep];
        expect({ name, dep, exists: target !== undefined }).toEqual({ name, dep, exists: true });
        if (condition === 'service_healthy') expect({ dep, healthcheck: target?.healthcheck !== undefined }).toEqual({ dep, healthcheck: true });
        if (condition === 'service_completed_successfully') {
          expect({ dep, restart: target?.restart ?? 'no' }).toEqual({ dep, restart: expect.stringMatching(/^(no|on-failure(:\d+)?)$/) });
        }
      }
    }
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (name: string, trail: string[]): void => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'visiting') throw new Error(`depends_on cycle: ${[...trail, name].join(' -> ')}`);
      state.set(name, 'visiting');
      const s = compose.services[name];
      for (const dep of s ? Object.keys(dependsOn(s)) : []) visit(dep, [...trail, name]);
      state.set(name, 'done');
    };
    for (const [name] of services) visit(name, []);
  });

  test('long-running services have healthchecks; app services wait for the migration and the search attributes', () => {
    for (const [name, s] of services) {
      const oneShot = s.restart === 'no' || /^on-failure/.test(s.restart ?? '');
      if (oneShot || UNPROBED.has(name)) continue;
      expect({ name, healthcheck: s.healthcheck !== undefined }).toEqual({ name, healthcheck: true });
    }
    for (const name of ['api', ...workerServices()]) {
      const deps = dependsOn(compose.services[name] as ServiceDef);
      expect(deps.migrate).toBe('service_completed_successfully');
      expect(deps['temporal-setup']).toBe('service_completed_successfully');
    }
  });

  test('published host ports do not clash', () => {
    const hostPorts = services.flatMap(([name, s]) =>
      (s.ports ?? []).filter((p) => p.includes(':')).map((p) => ({ name, port: Number(p.split(':')[0]) })),
    );
    const seen = new Map<number, string>();
    for (const { name, port } of hostPorts) {
      expect({ port, owner: seen.get(port) ?? name }).toEqual({ port, owner: name });
      seen.set(port, name);
    }
    expect(seen.get(Number(withDefaults(envOf(compose.services.api as ServiceDef).API_PORT ?? '')))).toBe('api');
  });

  test('app services set only variables the config reads, and those values load', () => {
    const keys = new Set(configEnvKeys());
    for (const [name, s] of appServices()) {
      const env = envOf(s);
      for (const key of Object.keys(env)) expect({ name, key, known: keys.has(key) }).toEqual({ name, key, known: true });
      const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, withDefaults(v)]));
      expect(() => loadConfig(resolved)).not.toThrow();
    }
  });

  test('app services reach the database and Temporal through compose service names', () => {
    for (const [name, s] of appServices()) {
      const env = envOf(s);
      const dbHost = new URL(env.DATABASE_URL ?? '').hostname;
      const temporalHost = (env.TEMPORAL_ADDRESS ?? '').split(':')[0] ?? '';
      expect({ name, dbHost: compose.services[dbHost] ? dbHost : undefined }).toEqual({ name, dbHost });
      expect({ name, temporalHost: compose.services[temporalHost] ? temporalHost : undefined }).toEqual({ name, temporalHost });
    }
    const temporal = envOf(compose.services.temporal as ServiceDef);
    expect(temporal.DB).toBe('postgres12');
    expect(compose.services[temporal.POSTGRES_SEEDS ?? '']).toBeDefined();
  });

  test('the setup job registers every search attribute as Keyword', () => {
    const script = commandText(compose.services['temporal-setup']?.command);
    expect(script).toContain('search-attribute create');
    expect(script).toContain('--type Keyword');
    for (const name of SEARCH_ATTRIBUTE_NAMES) expect(script).toContain(name);
  });

  test('every node entry point exists in src', () => {
    for (const [name, s] of services) {
      const entry = /^node (dist\/\S+)\.js\b/.exec(commandText(s.command))?.[1];
      if (!entry) continue;
      const source = entry.replace(/^dist\//, 'src/') + '.ts';
      expect({ name, source, exists: existsSync(path.join(root, source)) }).toEqual({ name, source, exists: true });
    }
  });

  test('the worker services are the manifests\' worker processes: the generic entry point per process, its health by its queue', () => {
    const running = services.filter(([, s]) => commandText(s.command).includes('dist/workers/')).map(([name]) => name);
    expect(running.sort()).toEqual(workerServices().sort());
    for (const p of workerProcesses()) {
      const s = compose.services[`worker-${p.name}`] as ServiceDef;
      expect({ name: p.name, command: commandText(s.command) }).toEqual({ name: p.name, command: `node dist/workers/main.js --queue ${p.name}` });
      expect({ name: p.name, probed: (s.healthcheck?.test as string[] | undefined)?.at(-1) }).toEqual({ name: p.name, probed: p.queues[0] });
    }
  });

  test('each worker service sets its queues\' concurrency variables, defaulting to the config\'s defaults', () => {
    const defaults = loadConfig({});
    for (const q of QUEUES) {
      const env = q.activityConcurrency?.env;
      if (!env) continue;
      const service = `worker-${q.process ?? q.name}`;
      const value = envOf(compose.services[service] as ServiceDef)[env];
      expect({ service, env, value }).toEqual({ service, env, value: `\${${env}:-${q.activityConcurrency!.of(defaults)}}` });
    }
  });

  test('shell text escapes its own variables from compose interpolation ($$)', () => {
    for (const [name, s] of services) {
      const texts = [s.command, s.entrypoint, s.healthcheck?.test].flatMap((c) => (c === undefined ? [] : Array.isArray(c) ? c : [c]));
      for (const text of texts) {
        const bare = text.replace(/\$\$/g, '').match(/\$(?!\{[A-Za-z_][A-Za-z0-9_]*(:?-[^}]*)?\})\S*/g);
        expect({ name, bare }).toEqual({ name, bare: null });
      }
    }
  });

  test('build targets exist in the Dockerfile, whose base image is pinned', () => {
    const dockerfile = read('Dockerfile');
    const stages = [...dockerfile.matchAll(/^FROM\s+\S+\s+AS\s+(\S+)/gim)].map((m) => m[1]);
    for (const [name, s] of appServices()) {
      const target = typeof s.build === 'object' ? s.build.target : undefined;
      expect({ name, target: target && stages.includes(target) ? target : undefined }).toEqual({ name, target });
    }
    const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
    expect(base).toMatch(/^node:\d+\.\d+\.\d+-/);
  });

  test('the migrate image holds what prisma.config.ts reads: the schema folder, the migrations, the modules it imports', () => {
    const stages = new Map<string, { from: string; copies: string[] }>();
    let stage: { from: string; copies: string[] } | undefined;
    for (const line of read('Dockerfile').split('\n')) {
      const from = /^FROM\s+(\S+)\s+AS\s+(\S+)/i.exec(line);
      if (from) stages.set(from[2] as string, (stage = { from: from[1] as string, copies: [] }));
      const copy = /^COPY\s+(?!--from)(.+)\s+\S+$/i.exec(line);
      if (copy && stage) stage.copies.push(...(copy[1] as string).trim().split(/\s+/));
    }
    const copied: string[] = [];
    for (let s = stages.get('migrate'); s; s = stages.get(s.from)) copied.push(...s.copies);
    const config = read('prisma.config.ts');
    const needs = [
      'prisma.config.ts',
      'scripts/prisma.sh',
      ...[...config.matchAll(/\b(?:schema|path): '([^']+)'/g)].map((m) => m[1] as string),
      ...[...config.matchAll(/from '\.\/([^']+)'/g)].map((m) => `${m[1] as string}.ts`),
    ];
    expect(needs).toEqual(expect.arrayContaining(['prisma/schema', 'prisma/migrations']));
    for (const need of needs) {
      const inImage = copied.some((c) => need === c || need.startsWith(`${c.replace(/\/$/, '')}/`));
      expect({ need, inImage, exists: existsSync(path.join(root, need)) }).toEqual({ need, inImage: true, exists: true });
    }
  });
});

describe('docker-compose.yml: the cluster topology of npm run cluster', () => {
  const aliases = (s: ServiceDef | undefined) => Object.values(s?.networks ?? {}).flatMap((n) => n?.aliases ?? []);
  const nodes = ['temporal', 'temporal-2'];

  test('two API processes run the API entry point, reachable under one name that the portal calls back', () => {
    for (const name of ['api', 'api-2']) expect({ name, command: commandText(compose.services[name]?.command) }).toEqual({ name, command: 'node dist/server.js' });
    expect(aliases(compose.services['api-2'])).toContain('api');
    expect(envOf(compose.services.api as ServiceDef).PORTAL_CALLBACK_URL).toMatch(/^http:\/\/api:3000\//);
  });

  test('two Temporal nodes run the version the installer builds, with the environment npm run cluster gives its nodes', () => {
    expect(read('scripts/cluster/install.sh')).toContain(`TEMPORAL_SERVER_VERSION=${TEMPORAL_SERVER_VERSION}`);
    const version = TEMPORAL_SERVER_VERSION.replace(/^v/, '');
    for (const name of nodes) {
      const s = compose.services[name] as ServiceDef;
      expect({ name, image: s.image }).toEqual({ name, image: `temporalio/server:${version}` });
      expect({ name, env: envOf(s) }).toEqual({ name, env: composeTemporalNodeEnv() });
    }
    for (const name of ['temporal-schema', 'temporal-setup']) expect({ name, image: compose.services[name]?.image }).toEqual({ name, image: `temporalio/admin-tools:${version}` });
  });

  test('the nodes share one frontend name, Temporal’s own PostgreSQL (not the projections’) and the repository’s dynamic config', () => {
    expect(aliases(compose.services['temporal-2'])).toContain('temporal');
    const env = envOf(compose.services.temporal as ServiceDef);
    expect(env.POSTGRES_SEEDS).not.toBe(new URL(envOf(compose.services.api as ServiceDef).DATABASE_URL ?? '').hostname);
    expect(compose.services[env.POSTGRES_SEEDS ?? '']?.image).toMatch(/^postgres:/);
    for (const name of nodes) {
      const mount = (compose.services[name]?.volumes ?? []).find((v) => v.startsWith('./deploy/temporal/dynamicconfig.yaml:'));
      expect({ name, mountedAt: mount?.split(':')[1] }).toEqual({ name, mountedAt: COMPOSE_DYNAMIC_CONFIG_FILE });
    }
    expect(existsSync(path.join(root, 'deploy', 'temporal', 'dynamicconfig.yaml'))).toBe(true);
  });
});

describe('.env.example', () => {
  test('lists every variable the config reads once, with its default and a comment', () => {
    const lines = read('.env.example').split('\n');
    const vars = lines.flatMap((l, i) => {
      const m = /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(l);
      return m ? [{ key: m[1] as string, comment: lines[i - 1]?.startsWith('#') && !/^#\s*[A-Z][A-Z0-9_]*=/.test(lines[i - 1] ?? '') }] : [];
    });
    expect(vars.map((v) => v.key).sort()).toEqual(configEnvKeys().sort());
    for (const v of vars) expect(v).toEqual({ key: v.key, comment: true });
  });

  test('its values load', () => {
    const env = Object.fromEntries(
      read('.env.example')
        .split('\n')
        .filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(() => loadConfig(env)).not.toThrow();
  });
});
