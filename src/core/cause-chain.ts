/** Failure formatting shared by workflows and activities. Workflow-safe, no I/O. */

/** Max length of a stored cause chain (async_jobs.error_message). */
export const MAX_CAUSE_CHAIN_CHARS = 4000;

/**
 * Text PostgreSQL can store (SAN-1 error_message, reasons from Temporal): NUL characters and lone
 * UTF-16 surrogates become U+FFFD, and the text is cut to `maxCodePoints` code points (never inside a
 * surrogate pair), ending with `…` when cut. A cause chain that echoes bad input must not make the
 * FAILED write itself fail.
 */
export function storableText(text: string, maxCodePoints = MAX_CAUSE_CHAIN_CHARS): string {
  const clean = text.replaceAll('\u0000', '\ufffd').toWellFormed();
  if (clean.length <= maxCodePoints) return clean; // UTF-16 length ≥ code points
  const points = Array.from(clean);
  return points.length > maxCodePoints ? `${points.slice(0, maxCodePoints - 1).join('')}…` : clean;
}

/**
 * SAN-1/SAN-4: renders an error and its `cause` chain as `Name[type]: message <- Name[type]: …`,
 * outermost first, made storable and cut to {@link MAX_CAUSE_CHAIN_CHARS} code points ({@link storableText}). Temporal failures expose their failure type
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
  return storableText(parts.join(' <- '));
}
