/**
 * Token budgets of OpenAI-compatible requests, estimated without a tokenizer: ASCII about 4
 * characters per token, Hangul and other scripts up to 1.5 tokens per character. No I/O.
 */
import { cutToLength } from '../../core/text';

/** `text` cut (on a code-point boundary) where its estimated tokens pass `maxTokens`. */
export function clipToTokens(text: string, maxTokens: number): string {
  let tokens = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    tokens += c < 0x80 ? 0.25 : c >= 0xac00 && c <= 0xd7a3 ? 1.5 : 1;
    if (tokens > maxTokens) return cutToLength(text, i);
  }
  return text;
}

/** Estimated tokens of `text` (an upper bound: 1.5 for every non-ASCII character). */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (let i = 0; i < text.length; i++) tokens += text.charCodeAt(i) < 0x80 ? 0.25 : 1.5;
  return tokens;
}
