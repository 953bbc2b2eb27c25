/**
 * The OpenAPI document is usable by generators and true to the server: every operation has a
 * unique operationId, creates link to their status reads, the Idempotency-Key header is required
 * exactly where the route answers IDEMPOTENCY_KEY_MISSING and its pattern is the parser's, If-Match
 * likewise, no pattern uses Unicode property classes, the signed callback declares its own security
 * schemes, and the candidate-decision examples name one run and one version.
 */
import fc from 'fast-check';
import { IF_MATCH_PATTERN, parseIfMatch } from '../../../src/api/if-match';
import { IDEMPOTENCY_KEY_HEADER_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN, parseIdempotencyKey } from '../../../src/core/idempotency';
import { parseAiRunEtag } from '../../../src/domain/ai-runs/etag';
import { PORTAL_TYPES } from '../../../src/services/portal/adapters/registry';
import { startStack, type Stack } from '../../support/stack';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { pattern?: string; maxLength?: number; enum?: unknown[]; example?: unknown };
  example?: unknown;
}
interface Link {
  operationId?: string;
  parameters?: Record<string, string>;
}
interface Operation {
  method: string;
  path: string;
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema?: unknown; example?: unknown; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, { description?: string; headers?: Record<string, unknown>; links?: Record<string, Link> }>;
}
interface Doc {
  paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
  components: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, { type: string; in?: string; name?: string }> };
  security?: unknown[];
}

let stack: Stack;
let user: Awaited<ReturnType<Stack['newUser']>>;
let doc: Doc;
let operations: Operation[];

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';
const op = (method: string, path: string) => {
  const found = operations.find((o) => o.method === method && o.path === path);
  if (!found) throw new Error(`${method} ${path} is not in the document`);
  return found;
};
const header = (o: Operation, name: string) => o.parameters?.find((p) => p.in === 'header' && p.name.toLowerCase() === name);
const firstBodyExample = (o: Operation): unknown => {
  const media = o.requestBody?.content['application/json'];
  if (!media) return undefined;
  return media.examples ? Object.values(media.examples)[0]?.value : media.example;
};
/** Every `pattern` in the document (schemas and parameters alike). */
function patterns(node: unknown): string[] {
  const out: string[] = [];
  const stackOf: unknown[] = [node];
  while (stackOf.length > 0) {
    const v = stackOf.pop();
    if (Array.isArray(v)) stackOf.push(...v);
    else if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      if (typeof o.pattern === 'string') out.push(o.pattern);
      stackOf.push(...Object.values(o));
    }
  }
  return out;
}

beforeAll(async () => {
  stack = await startStack({ aiWorker: false, aiRunsWorker: false });
  user = await stack.newUser();
  doc = (await stack.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Doc;
  operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, o]) => ({ ...o, method: method.toUpperCase(), path })));
});
afterAll(async () => {
  await stack?.stop();
});

describe('operation ids and links', () => {
  it('every operation has an operationId, and no two share one', () => {
    expect(operations.length).toBeGreaterThanOrEqual(40);
    expect(operations.filter((o) => !o.operationId).map((o) => `${o.method} ${o.path}`)).toEqual([]);
    const ids = operations.map((o) => o.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('each create links its answer to the status read, by an existing operationId and that operation\'s path parameters', () => {
    const creates: [string, string, string, string][] = [
      ['POST', '/api/v1/ai-runs', '202', 'GET /api/v1/ai-runs/{aiRunId}'],
      ['POST', '/api/v1/ai-runs/{aiRunId}/retry', '202', 'GET /api/v1/ai-runs/{aiRunId}'],
      ['POST', '/portal/link', '202', 'GET /portal/link/jobs/{jobId}'],
      ['POST', '/scraps', '202', 'GET /async-jobs/{jobId}'],
      ['POST', '/til', '202', 'GET /async-jobs/{jobId}'],
      ['POST', '/til/{summaryId}/github-commits', '202', 'GET /async-jobs/{jobId}'],
      ['POST', '/recall-quizzes', '202', 'GET /recall-quizzes/{generationId}'],
      ['POST', '/github-star-recommendations', '202', 'GET /async-jobs/{jobId}'],
      ['POST', '/async-jobs/{jobId}/retry', '202', 'GET /async-jobs/{jobId}'],
      ['POST', '/study/questions/{questionId}/explanation-jobs', '202', 'GET /async-jobs/{jobId}'],
    ];
    for (const [method, path, status, target] of creates) {
      const [tm, tp] = target.split(' ') as [string, string];
      const links = Object.values(op(method, path).responses[status]?.links ?? {});
      expect([method, path, links.map((l) => l.operationId)]).toEqual([method, path, expect.arrayContaining([op(tm, tp).operationId])]);
    }
    const byId = new Map(operations.map((o) => [o.operationId, o]));
    const wrong: string[] = [];
    for (const o of operations) {
      for (const [status, r] of Object.entries(o.responses)) {
        for (const [name, link] of Object.entries(r.links ?? {})) {
          const to = byId.get(link.operationId);
          const pathParams = (to?.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name).sort();
          const given = Object.keys(link.parameters ?? {}).sort();
          if (!to || JSON.stringify(pathParams) !== JSON.stringify(given)) wrong.push(`${o.method} ${o.path} ${status} ${name}`);
          for (const expr of Object.values(link.parameters ?? {})) if (!/^\$(response\.body#\/\w+|request\.path\.\w+)$/.test(expr)) wrong.push(`${o.method} ${o.path} ${name}: ${expr}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('Idempotency-Key', () => {
  it('is required exactly on the operations that answer IDEMPOTENCY_KEY_MISSING without it, with the parser\'s pattern', async () => {
    const declaring = operations.filter((o) => header(o, 'idempotency-key'));
    expect(declaring.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(['POST /api/v1/ai-runs', 'POST /api/v1/ai-runs/{aiRunId}/retry', 'POST /portal/link', 'POST /study/memo-cards/{cardId}/reviews']),
    );
    for (const o of declaring) {
      const body = firstBodyExample(o);
      const res = await stack.app.inject({
        method: o.method as 'POST',
        url: o.path.replace(/\{[^}]+\}/g, SAMPLE_ID),
        headers: { ...user.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      const enforced = (res.json() as { code?: string }).code === 'IDEMPOTENCY_KEY_MISSING';
      const p = header(o, 'idempotency-key')!;
      expect([o.path, p.required === true]).toEqual([o.path, enforced]);
      expect([o.path, p.schema?.pattern, p.schema?.maxLength]).toEqual([o.path, IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_HEADER_MAX_LENGTH]);
    }
  });

  it('the pattern accepts exactly the values the parser accepts', () => {
    const pattern = new RegExp(IDEMPOTENCY_KEY_PATTERN);
    const accepts = (v: string) => {
      try {
        parseIdempotencyKey(v);
        return true;
      } catch {
        return false;
      }
    };
    const chars = fc.constantFrom('a', 'Z', '0', '-', '"', '\\', ' ', ',', '\t', 'é', '~', '!');
    const values = fc.oneof(
      fc.stringOf(chars, { maxLength: 8 }),
      fc.stringOf(chars, { maxLength: 8 }).map((s) => `"${s}"`),
      fc.integer({ min: 250, max: 260 }).map((n) => 'k'.repeat(n)),
      fc.integer({ min: 250, max: 260 }).map((n) => `"${'k'.repeat(n)}"`),
    );
    fc.assert(fc.property(values, (v) => pattern.test(v) === accepts(v)), { numRuns: 2000 });
    for (const v of ['""', '"a"', 'abc', '"a', 'a b']) expect([v, pattern.test(v)]).toEqual([v, accepts(v)]);
  });
});

describe('If-Match of the candidate decisions', () => {
  it('declares the syntax the parser enforces', () => {
    expect(header(op('POST', '/api/v1/ai-runs/{aiRunId}/candidate-decisions'), 'if-match')?.schema?.pattern).toBe(IF_MATCH_PATTERN);
    const pattern = new RegExp(IF_MATCH_PATTERN);
    const member = fc.oneof(fc.constant('*'), fc.stringOf(fc.constantFrom('a', '1', ',', ' ', 'W', '/', '"'), { maxLength: 5 }).map((s) => `"${s}"`), fc.constant('W/"x"'), fc.constant('x'));
    const values = fc.array(fc.tuple(member, fc.constantFrom(',', ', ', ' ,', ',,', ' ')), { maxLength: 4 }).map((ms) => ms.map(([m, sep]) => m + sep).join(''));
    fc.assert(fc.property(values, (v) => pattern.test(v) === (parseIfMatch(v) !== 'malformed')), { numRuns: 2000 });
  });

  it('its examples name one run and one version: path, If-Match and body agree', () => {
    const o = op('POST', '/api/v1/ai-runs/{aiRunId}/candidate-decisions');
    const path = o.parameters?.find((p) => p.in === 'path' && p.name === 'aiRunId');
    const runId = (path?.schema?.example ?? path?.example) as string;
    const ifMatch = header(o, 'if-match');
    const tag = parseAiRunEtag(String(ifMatch?.schema?.example ?? ifMatch?.example));
    expect(tag?.runId).toBe(runId);
    const bodies = Object.values(o.requestBody?.content['application/json']?.examples ?? {}).map((e) => e.value as { version?: number });
    expect(bodies.length).toBeGreaterThan(0);
    for (const b of bodies) if (b.version !== undefined) expect(b.version).toBe(tag?.version);
  });
});

describe('patterns and enums generators can use', () => {
  it('no pattern uses Unicode property classes (\\p{…})', () => {
    const all = patterns(doc);
    expect(all.length).toBeGreaterThan(5);
    expect(all.filter((p) => /\\[pP]\{/.test(p))).toEqual([]);
    for (const p of all) expect(() => new RegExp(p)).not.toThrow();
  });

  it('portalType is the enum of the supported portal types', () => {
    const schemaOf = (ref: unknown): Record<string, unknown> => {
      const r = (ref as { $ref?: string }).$ref;
      return (r ? doc.components.schemas?.[r.split('/').pop()!] : ref) as Record<string, unknown>;
    };
    const body = schemaOf(op('POST', '/portal/link').requestBody?.content['application/json']?.schema) as { properties: Record<string, { enum?: unknown[] }> };
    expect(body.properties.portalType?.enum).toEqual([...PORTAL_TYPES]);
    expect(op('GET', '/api/graduation/progress').parameters?.find((p) => p.name === 'portalType')?.schema?.enum).toEqual([...PORTAL_TYPES]);
  });
});

describe('security', () => {
  it('the scraper callback is authenticated by its signature and timestamp headers, not the bearer token', () => {
    const o = op('POST', '/internal/scrape-results');
    expect(o.security).toEqual([{ callbackSignature: [], callbackTimestamp: [] }]);
    expect(doc.components.securitySchemes?.callbackSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Signature' });
    expect(doc.components.securitySchemes?.callbackTimestamp).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Timestamp' });
    expect((o.parameters ?? []).map((p) => p.name.toLowerCase())).not.toEqual(expect.arrayContaining(['x-signature']));
    const unauthorized = o.responses['401'];
    expect(unauthorized?.description).toEqual(expect.stringContaining('CALLBACK_SIGNATURE_MISSING'));
    expect(unauthorized?.description).toEqual(expect.stringContaining('CALLBACK_TIMESTAMP_STALE'));
    expect(unauthorized?.headers ?? {}).not.toHaveProperty('WWW-Authenticate');
  });

  it('every other protected operation uses the bearer scheme and documents its 401 with WWW-Authenticate', () => {
    expect(doc.security).toEqual([{ bearer: [] }]);
    const wrong = operations
      .filter((o) => o.security === undefined)
      .filter((o) => !o.responses['401']?.headers || !('WWW-Authenticate' in o.responses['401'].headers))
      .map((o) => `${o.method} ${o.path}`);
    expect(wrong).toEqual([]);
  });
});
