/** Failure formatting shared by workflows and activities. Workflow-safe, no I/O. */
import { cutToLength } from '../core/text';

/** Max length of a stored cause chain (async_jobs.error_message). */
export const MAX_CAUSE_CHAIN_CHARS = 4000;

/**
 * SAN-1/SAN-4: renders an error and its `cause` chain as `Name[type]: message <- Name[type]: …`,
 * outermost first, cut to {@link MAX_CAUSE_CHAIN_CHARS} UTF-16 code units (`…` included), never
 * inside a surrogate pair. Temporal failures expose their failure type
 * as `type`; it is shown when present.
 */
export function formatCauseChain(err: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur !== undefined && cur !== null && !seen.has(cur) && parts.length < 10) {
    seen.add(cur);
    if (cur instanceof Error) {
      const type = (cur as { type?: unknown }).type;
      const label = typeof type === 'string' && type !== '' ? `${cur.name}[${type}]` : cur.name;
      parts.push(`${label}: ${cur.message}`);
      cur = (cur as { cause?: unknown }).cause;
    } else {
      parts.push(String(cur));
      break;
    }
  }
  const text = parts.join(' <- ');
  return text.length > MAX_CAUSE_CHAIN_CHARS ? `${cutToLength(text, MAX_CAUSE_CHAIN_CHARS - 1)}…` : text;
}
