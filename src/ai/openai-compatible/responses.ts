/**
 * Responses of an OpenAI-compatible endpoint: the chat-completion and embedding response schemas,
 * rate-limit delays, the text of upstream errors and of schema mismatches. Part of the `openai`
 * provider (src/ai/openai.ts); no I/O.
 */
import { z } from 'zod';
import { cutToLength } from '../../core/text';
import { EMBEDDING_DIMENSIONS } from '../types';

/** Upstream error text kept in our messages, in characters. */
export const ERROR_EXCERPT_CHARS = 300;
export const ChatCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullish(),
        message: z.object({ content: z.string().nullish(), refusal: z.string().nullish() }),
      }),
    )
    .min(1),
});

export const EmbeddingResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative().optional(), embedding: z.unknown() })),
});

/**
 * Parses a rate-limit delay from response headers, in milliseconds: `retry-after-ms` first, then
 * `Retry-After` as delta-seconds or an HTTP date. Undefined when absent or unparseable.
 */
export function parseRetryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.round(Number(ms));
  const ra = headers.get('retry-after')?.trim();
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra)) return Math.round(Number(ra) * 1000);
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Unit vector e0: the deterministic embedding of an empty text (nothing is sent upstream). */
export function unitVector(): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  v[0] = 1;
  return v;
}

/** The message of an upstream error body (`error.message`, `error` or `message` of a JSON body), else the body, as an excerpt. */
export function upstreamMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const msg = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof msg === 'string' && msg) return excerpt(msg);
  } catch {
    // not JSON: fall through to the raw excerpt
  }
  return excerpt(body) || '(empty body)';
}

/** `s` with runs of white space as one space, cut to {@link ERROR_EXCERPT_CHARS} (then `…`). */
export function excerpt(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > ERROR_EXCERPT_CHARS ? `${cutToLength(flat, ERROR_EXCERPT_CHARS)}…` : flat;
}

/** An error's message and its cause's. */
export function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}

/** A zod error's issues as `path: message; …`, an excerpt. */
export function zodIssues(error: z.ZodError): string {
  return excerpt(error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
}
