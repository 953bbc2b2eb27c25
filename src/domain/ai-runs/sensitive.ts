/**
 * Detection of sensitive data in free text (AR-6, AR-9): phone numbers (Korean mobile, landline,
 * +82), e-mail addresses, Korean resident registration numbers (주민등록번호) and bank account
 * numbers. Used by masking (what PostgreSQL stores) and by the AR-9 guards (what a candidate may
 * carry into a field that would be sent). Pure, no imports: safe in workflow code.
 *
 * Spans are UTF-16 code unit offsets `[start, end)` into the scanned text; they never overlap and
 * come in text order. A span is matched by the first kind that claims it, in the order e-mail,
 * RRN, phone, account (so `010-1234-5678` is a phone, never an account number).
 */

/** Kinds of sensitive data, stable names used in guard findings. */
export const SENSITIVE_KINDS = ['EMAIL', 'RRN', 'PHONE', 'ACCOUNT_NUMBER'] as const;
export type SensitiveKind = (typeof SENSITIVE_KINDS)[number];

/** One sensitive span of a text. */
export interface SensitiveSpan {
  kind: SensitiveKind;
  start: number;
  end: number;
}

const PATTERNS: Record<SensitiveKind, RegExp> = {
  EMAIL: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![A-Za-z0-9-])/g,
  // YYMMDD, optional hyphen (or space), then the 7-digit back part starting with 1-8.
  RRN: /(?<![\d-])\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])[ -]?[1-8]\d{6}(?![\d-])/g,
  // 010-1234-5678, 01012345678, 010 1234 5678, +82 10-1234-5678, 02-123-4567, 031-123-4567, 070-…
  PHONE: /(?<![\d+-])(?:\+82[ -]?(?:0?1[016789]|0?[2-6]\d?|0?70)|01[016789]|02|0[3-6][1-5]|070)[ .-]?\d{3,4}[ .-]?\d{4}(?![\d-])/g,
  // Hyphenated digit groups or a run of digits with 10-16 digits in all (checked below).
  ACCOUNT_NUMBER: /(?<![\d-])(?:\d{2,6}(?:-\d{2,7}){1,4}|\d{10,16})(?![\d-])/g,
};

const ACCOUNT_MIN_DIGITS = 10;
const ACCOUNT_MAX_DIGITS = 16;

/**
 * The sensitive spans of `text`, in text order, non-overlapping (AR-6, AR-9). Linear in the text
 * length: every pattern starts only where a run of its characters starts (a look-behind) and has
 * bounded repetitions, so no input makes it backtrack quadratically.
 */
export function findSensitive(text: string): SensitiveSpan[] {
  const spans: SensitiveSpan[] = [];
  const overlaps = (start: number, end: number) => spans.some((s) => start < s.end && s.start < end);
  for (const kind of ['EMAIL', 'RRN', 'PHONE', 'ACCOUNT_NUMBER'] as const) {
    for (const m of text.matchAll(PATTERNS[kind])) {
      const start = m.index;
      const end = start + m[0].length;
      if (kind === 'ACCOUNT_NUMBER') {
        const digits = m[0].replace(/\D/g, '').length;
        if (digits < ACCOUNT_MIN_DIGITS || digits > ACCOUNT_MAX_DIGITS) continue;
      }
      if (!overlaps(start, end)) spans.push({ kind, start, end });
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** The distinct kinds of sensitive data in `text`, in {@link SENSITIVE_KINDS} order. */
export function sensitiveKinds(text: string): SensitiveKind[] {
  const found = new Set(findSensitive(text).map((s) => s.kind));
  return SENSITIVE_KINDS.filter((k) => found.has(k));
}

/**
 * `text` with every sensitive span replaced by spaces of the same length: offsets stay valid, and
 * the digits of a phone number cannot be read as an amount, a date or a count.
 */
export function blankSensitive(text: string, spans: readonly SensitiveSpan[] = findSensitive(text)): string {
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start) + ' '.repeat(s.end - s.start);
    at = s.end;
  }
  return out + text.slice(at);
}
