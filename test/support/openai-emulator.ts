/**
 * A local OpenAI-compatible HTTP server for tests (SAN-7, SAN-8, SAN-9, SAN-11):
 * `POST /v1/chat/completions` and `POST /v1/embeddings`, bearer-key checked, answers derived
 * deterministically from the prompt by the offline `local` provider's operations, plus fault injection.
 * `card_analysis` and `scrap_refinement` answer from the `<scrap>` text; `til_generation` and
 * `recall_quizzes` from the `<cards>` JSON block of the prompt (the format of the scraps port's prompts),
 * so quizzes cite real input card ids; `memo_cards` and `study_explanation` (ST) from the `<material>`
 * block; any other schema gets a synthesised valid instance.
 *
 * ```ts
 * const emu = await startOpenAiEmulator();           // 127.0.0.1, random port
 * const cfg = { ...config.ai, provider: 'openai', openai: { ...config.ai.openai, baseUrl: emu.url, apiKey: emu.apiKey } };
 * emu.failNext(2, '429');                            // the next 2 applicable requests answer 429
 * emu.setMode('malformed-json');                     // every chat answer is broken until setMode('ok')
 * expect(emu.requests['/v1/chat/completions']).toBe(3);
 * await emu.close();
 * ```
 *
 * Faults apply only to the endpoints where they make sense: chat faults (`malformed-json`,
 * `schema-mismatch`, `refusal`, `truncated`) to chat completions, `wrong-vector-length` to embeddings,
 * and `429`, `500`, `hang` to both. A queued fault is consumed only by a request it applies to;
 * queued faults (`failNext`) win over the standing mode (`setMode`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localEmbedding } from '../../src/ai/extractive/embedding';
import type { SourceCard } from '../../src/ai/scraps/answers';
import { analyzeScrapLocally } from '../../src/ai/scraps/extractive/analysis';
import { generateQuizzesLocally } from '../../src/ai/scraps/extractive/quizzes';
import { refineMarkdown } from '../../src/ai/scraps/extractive/refine';
import { generateTilLocally } from '../../src/ai/scraps/extractive/til';
import { explainStudyQuestionLocally } from '../../src/ai/study/extractive/explanation';
import { extractMemoCardsLocally } from '../../src/ai/study/extractive/memo-cards';
import { EMBEDDING_DIMENSIONS } from '../../src/ai/types';
import { QUIZ_TYPES, type QuizTypeName } from '../../src/domain/scraps/quizzes';

/** Injectable failures. */
export type EmulatorFault =
  /** chat: `message.content` is not JSON. */
  | 'malformed-json'
  /** chat: JSON content that violates the requested schema (wrong types, unknown category). */
  | 'schema-mismatch'
  /** chat: `message.refusal` set, content null. */
  | 'refusal'
  /** chat: `finish_reason: 'length'` with cut-off content. */
  | 'truncated'
  /** embeddings: 768-d vectors instead of 1536. */
  | 'wrong-vector-length'
  /** both: 429 with `Retry-After` (1 s unless overridden). */
  | '429'
  /** both: 500 with an OpenAI-style error body. */
  | '500'
  /** both: the request is accepted and never answered (client timeouts). */
  | 'hang';

/** Options of a fault; only `429` reads them. */
export interface FaultOptions {
  /** Raw `Retry-After` header value (delta-seconds or HTTP date); default `'1'`. */
  retryAfter?: string;
  /** Adds a `retry-after-ms` header. */
  retryAfterMs?: number;
}

/** One received request, as logged by the emulator. */
export interface EmulatorRequest {
  path: string;
  authorized: boolean;
  body: unknown;
}

/** Handle of a running emulator. */
export interface OpenAiEmulator {
  /** Base URL for `OPENAI_BASE_URL`, ending in `/v1`. */
  readonly url: string;
  /** The bearer key the emulator accepts. */
  readonly apiKey: string;
  /** Requests received per path (e.g. `/v1/chat/completions`), including rejected ones. */
  readonly requests: Readonly<Record<string, number>>;
  /** Every request received, in order, with its parsed JSON body. */
  readonly log: readonly EmulatorRequest[];
  /** Makes the next `n` applicable requests fail with `kind`. */
  failNext(n: number, kind: EmulatorFault, options?: FaultOptions): void;
  /** Makes every applicable request fail with `kind` until `setMode('ok')`. */
  setMode(kind: EmulatorFault | 'ok', options?: FaultOptions): void;
  /**
   * Answers chat completions whose `json_schema.name` is `schemaName` with `answer(prompt)`, where
   * `prompt` is the `<scrap>` text or else the whole last user message; `null` restores the default.
   */
  respondTo(schemaName: string, answer: ((prompt: string) => unknown) | null): void;
  /** Clears faults, mode, counters and the log (custom responders stay). */
  reset(): void;
  /** Stops the server, dropping hung requests. */
  close(): Promise<void>;
}

const CHAT_PATH = '/v1/chat/completions';
const EMBEDDINGS_PATH = '/v1/embeddings';
const CHAT_FAULTS = new Set<EmulatorFault>(['malformed-json', 'schema-mismatch', 'refusal', 'truncated', '429', '500', 'hang']);
const EMBEDDING_FAULTS = new Set<EmulatorFault>(['wrong-vector-length', '429', '500', 'hang']);
const WRONG_LENGTH = 768;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Starts an emulator on 127.0.0.1 with a random port. */
export async function startOpenAiEmulator(options: { apiKey?: string } = {}): Promise<OpenAiEmulator> {
  const apiKey = options.apiKey ?? 'sk-emulator-0123456789abcdef';
  let queue: { kind: EmulatorFault; left: number; options: FaultOptions }[] = [];
  let mode: { kind: EmulatorFault; options: FaultOptions } | null = null;
  let requests: Record<string, number> = {};
  let log: EmulatorRequest[] = [];
  const responders = new Map<string, (prompt: string) => unknown>();
  let seq = 0;

  const takeFault = (path: string): { kind: EmulatorFault; options: FaultOptions } | null => {
    const applies = path === CHAT_PATH ? CHAT_FAULTS : path === EMBEDDINGS_PATH ? EMBEDDING_FAULTS : new Set();
    const queued = queue.find((q) => applies.has(q.kind));
    if (queued) {
      queued.left -= 1;
      if (queued.left <= 0) queue = queue.filter((q) => q !== queued);
      return queued;
    }
    return mode && applies.has(mode.kind) ? mode : null;
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : 500;
      const message = err instanceof Error ? err.message : String(err);
      sendJson(res, status, { error: { message, type: status === 401 ? 'invalid_request_error' : 'server_error', code: null } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests[path] = (requests[path] ?? 0) + 1;
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const auth = req.headers.authorization ?? '';
    const authorized = auth === `Bearer ${apiKey}`;
    log.push({ path, authorized, body });

    if (path !== CHAT_PATH && path !== EMBEDDINGS_PATH) throw new HttpError(404, `unknown path ${path}`);
    if (req.method !== 'POST') throw new HttpError(405, `${req.method ?? '?'} not allowed`);
    if (!authorized) {
      const given = auth.replace(/^Bearer\s+/i, '');
      throw new HttpError(401, `Incorrect API key provided: ${given || '(none)'}.`);
    }
    if (typeof body !== 'object' || body === null) throw new HttpError(400, 'body must be a JSON object');

    const fault = takeFault(path);
    if (fault?.kind === 'hang') return; // never answered; close() drops the socket
    if (fault?.kind === '429') {
      res.setHeader('retry-after', fault.options.retryAfter ?? '1');
      if (fault.options.retryAfterMs !== undefined) res.setHeader('retry-after-ms', String(fault.options.retryAfterMs));
      return sendJson(res, 429, { error: { message: 'Rate limit reached (emulated).', type: 'requests', code: 'rate_limit_exceeded' } });
    }
    if (fault?.kind === '500') {
      return sendJson(res, 500, { error: { message: 'The server had an error (emulated).', type: 'server_error', code: null } });
    }
    if (path === CHAT_PATH) return sendJson(res, 200, chat(body as Record<string, unknown>, fault?.kind));
    return sendJson(res, 200, embeddings(body as Record<string, unknown>, fault?.kind));
  }

  function chat(body: Record<string, unknown>, fault: EmulatorFault | undefined): unknown {
    if (typeof body.model !== 'string' || !Array.isArray(body.messages)) throw new HttpError(400, 'model and messages are required');
    const prompt = scrapText(body.messages);
    const format = body.response_format as { type?: string; json_schema?: { name?: string; schema?: unknown } } | undefined;
    const name = format?.type === 'json_schema' ? (format.json_schema?.name ?? '') : '';

    let content: string | null;
    let finish = 'stop';
    let refusal: string | null = null;
    if (fault === 'malformed-json') content = '{"title": "Unterminated answer", "summary": ';
    else if (fault === 'schema-mismatch') content = JSON.stringify(mismatch(name));
    else if (fault === 'refusal') {
      content = null;
      refusal = 'I cannot help with that request.';
    } else {
      const answer = name ? answerFor(name, format?.json_schema?.schema, prompt) : analyzeScrapLocally({ content: prompt || '-' }).summary;
      content = typeof answer === 'string' ? answer : JSON.stringify(answer);
      if (fault === 'truncated') {
        content = content.slice(0, Math.max(1, Math.floor(content.length / 2)));
        finish = 'length';
      }
    }
    seq += 1;
    return {
      id: `chatcmpl-emu-${seq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal }, finish_reason: finish, logprobs: null }],
      usage: { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil((content ?? '').length / 4), total_tokens: 0 },
    };
  }

  function answerFor(name: string, schema: unknown, prompt: string): unknown {
    const custom = responders.get(name);
    if (custom) return custom(prompt);
    const text = prompt.trim() || '(empty)';
    if (name === 'card_analysis') {
      const a = analyzeScrapLocally({ content: text });
      return { title: a.title, summary: a.summary, tags: a.tags, category: a.category };
    }
    if (name === 'scrap_refinement') return { refinedContent: refineMarkdown(text) };
    const request = name === 'til_generation' || name === 'recall_quizzes' ? cardsRequest(prompt) : null;
    if (request && name === 'til_generation') {
      const til = generateTilLocally({ targetDate: request.targetDate, cards: request.cards });
      return { title: til.title, tilMarkdown: til.tilMarkdown };
    }
    if (request) return { quizzes: generateQuizzesLocally({ cards: request.cards, types: request.types }) };
    if (name === 'memo_cards' || name === 'study_explanation') return studyAnswer(name, prompt);
    return synthesize(schema, '', analyzeScrapLocally({ content: text }));
  }

  function embeddings(body: Record<string, unknown>, fault: EmulatorFault | undefined): unknown {
    const input = body.input;
    const texts = typeof input === 'string' ? [input] : Array.isArray(input) && input.every((t) => typeof t === 'string') ? (input as string[]) : null;
    if (typeof body.model !== 'string' || !texts || texts.length === 0) throw new HttpError(400, 'model and a non-empty string input are required');
    if (texts.some((t) => t === '')) throw new HttpError(400, "'$.input' is invalid: empty string");
    if (body.dimensions !== undefined && body.dimensions !== EMBEDDING_DIMENSIONS) {
      throw new HttpError(400, `the emulator only serves ${EMBEDDING_DIMENSIONS} dimensions`);
    }
    return {
      object: 'list',
      model: body.model,
      data: texts.map((t, index) => {
        const v = localEmbedding(t);
        return { object: 'embedding', index, embedding: fault === 'wrong-vector-length' ? v.slice(0, WRONG_LENGTH) : v };
      }),
      usage: { prompt_tokens: 0, total_tokens: 0 },
    };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    get requests() {
      return requests;
    },
    get log() {
      return log;
    },
    failNext(n, kind, opts = {}) {
      if (!Number.isInteger(n) || n < 1) throw new RangeError(`failNext: n must be a positive integer, got ${n}`);
      queue.push({ kind, left: n, options: opts });
    },
    setMode(kind, opts = {}) {
      mode = kind === 'ok' ? null : { kind, options: opts };
    },
    respondTo(schemaName, answer) {
      if (answer) responders.set(schemaName, answer);
      else responders.delete(schemaName);
    },
    reset() {
      queue = [];
      mode = null;
      requests = {};
      log = [];
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** The scrap text of the last user message (inside `<scrap>…</scrap>` when present). */
function scrapText(messages: unknown[]): string {
  const users = messages.filter((m): m is { role: string; content: unknown } => typeof m === 'object' && m !== null && (m as { role?: unknown }).role === 'user');
  const last = users[users.length - 1]?.content;
  const text = typeof last === 'string'
    ? last
    : Array.isArray(last)
      ? last.map((p) => (typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('\n')
      : '';
  const open = text.indexOf('<scrap>');
  const close = text.lastIndexOf('</scrap>');
  return open >= 0 && close > open ? text.slice(open + '<scrap>'.length, close).trim() : text.trim();
}

/**
 * The request in a TIL or quiz prompt: `Target date: …` and `Quiz types: …` lines and the cards as
 * a JSON array between `<cards>` and `</cards>`. Null when there is no parseable, non-empty card list.
 */
function cardsRequest(prompt: string): { targetDate: string; types: QuizTypeName[]; cards: SourceCard[] } | null {
  const block = /<cards>\s*([^]*?)\s*<\/cards>/.exec(prompt)?.[1];
  if (!block) return null;
  let data: unknown;
  try {
    data = JSON.parse(block);
  } catch {
    return null;
  }
  if (!Array.isArray(data)) return null;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const cards = data
    .filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null && typeof (c as { cardId?: unknown }).cardId === 'string')
    .map((c) => ({ cardId: str(c.cardId), title: str(c.title), summary: str(c.summary), content: str(c.content) }));
  if (cards.length === 0) return null;
  const targetDate = /^Target date:\s*(\S+)/m.exec(prompt)?.[1] ?? '1970-01-01';
  const listed = /^Quiz types:\s*(.+)$/m.exec(prompt)?.[1]?.split(/[\s,]+/) ?? [];
  const types = QUIZ_TYPES.filter((t) => listed.includes(t));
  return { targetDate, types: types.length > 0 ? types : [...QUIZ_TYPES], cards };
}

/**
 * ST answers from the `<material>` JSON block and the head lines of the study port's
 * messages: `memo_cards` as the local extraction of the `explanation` passage (limit from
 * "At most N cards."), `study_explanation` as the local explanation of "Question: …".
 */
function studyAnswer(name: 'memo_cards' | 'study_explanation', prompt: string): unknown {
  const open = prompt.indexOf('<material>');
  const close = prompt.indexOf('</material>');
  const passages = open >= 0 && close > open ? (JSON.parse(prompt.slice(open + '<material>'.length, close)) as { ref: string; text: string }[]) : [];
  const head = open >= 0 ? prompt.slice(0, open) : prompt;
  const line = (label: string) => head.split('\n').find((l) => l.startsWith(label))?.slice(label.length).trim();
  const topic = line('Topic:') ?? null;
  if (name === 'memo_cards') {
    const text = (ref: string) => passages.find((p) => p.ref === ref)?.text ?? '';
    const maxCards = Number(/At most (\d+) cards/.exec(head)?.[1] ?? 12);
    const related = passages.filter((p) => !['explanation', 'question', 'user_answer'].includes(p.ref));
    return extractMemoCardsLocally({ topic, question: text('question'), userAnswer: text('user_answer'), explanation: text('explanation') || '-', related, maxCards });
  }
  const userAnswer = passages.find((p) => p.ref === 'user_answer')?.text ?? null;
  return explainStudyQuestionLocally({ topic, question: line('Question:') ?? '-', userAnswer, related: passages.filter((p) => p.ref !== 'user_answer') });
}

/** Valid JSON for a schema the emulator does not know, filled from the local analysis. */
function synthesize(schema: unknown, key: string, a: { title: string; summary: string; tags: string[] }): unknown {
  const s = (schema ?? {}) as { type?: unknown; enum?: unknown[]; properties?: Record<string, unknown>; items?: unknown; minItems?: number; minimum?: number };
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, synthesize(v, k, a)]));
    case 'array': {
      const n = Math.max(s.minItems ?? 1, 1);
      if ((s.items as { type?: unknown } | undefined)?.type === 'string' && !(s.items as { enum?: unknown }).enum) {
        return Array.from({ length: n }, (_, i) => a.tags[i % a.tags.length] ?? `item-${i}`);
      }
      return Array.from({ length: n }, () => synthesize(s.items, key, a));
    }
    case 'string':
      return /title|name|question|cue/i.test(key) ? a.title : a.summary;
    case 'integer':
    case 'number':
      return s.minimum ?? 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** JSON that parses but violates the schema named `name`. */
function mismatch(name: string): unknown {
  if (name === 'card_analysis') return { title: '', summary: 42, tags: 'not-a-list', category: 'Cooking' };
  if (name === 'scrap_refinement') return { content: 'refined text under the wrong key' };
  if (name === 'til_generation') return { title: 42, markdown: '# TIL under the wrong key' };
  if (name === 'recall_quizzes') return { quizzes: [{ type: 'ESSAY', question: '', answer: 7 }] };
  return { unexpected: true };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}
