/** PostgreSQL wire-protocol messages that the PGlite front (./pglite-wire.ts) writes and inspects. */

/** A frontend message of `type` with `body`. */
export function frontendMessage(type: string, body: Buffer): Uint8Array {
  const out = Buffer.alloc(5 + body.length);
  out.write(type, 0, 'latin1');
  out.writeInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return new Uint8Array(out);
}
/** `s` as a NUL-terminated UTF-8 string. */
const cstring = (s: string) => Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0])]);
/** Sync, CopyFail, ROLLBACK and DISCARD ALL: what the front sends on its own to reset the session. */
export const SYNC = frontendMessage('S', Buffer.alloc(0));
export const COPY_FAIL = frontendMessage('f', cstring('the client connection closed'));
export const ROLLBACK = frontendMessage('Q', cstring('ROLLBACK'));
export const DISCARD_ALL = frontendMessage('Q', cstring('DISCARD ALL'));

/**
 * Statements that leave state in the session beyond their own transaction: SET / RESET, set_config(),
 * PREPARE, LISTEN, DECLARE (a WITH HOLD cursor), DISCARD, DEALLOCATE, LOAD, temporary tables and
 * session advisory locks. Over-matching only costs one DISCARD ALL.
 */
const SESSION_STATEMENT = /(?:^|;)\s*(?:set|reset|prepare|listen|declare|discard|deallocate|load|create\s+(?:(?:global|local)\s+)?temp(?:orary)?)\b|set_config\s*\(|pg_advisory_lock/i;

/** The NUL-terminated string of `bytes` starting at `at`, and the index after its NUL. */
function cstringAt(bytes: Uint8Array, at: number): { text: string; end: number } {
  let end = at;
  while (end < bytes.length && bytes[end] !== 0) end++;
  return { text: Buffer.from(bytes.buffer, bytes.byteOffset + at, end - at).toString('utf8'), end: end + 1 };
}

/**
 * True when running `m` may leave session state that another connection would inherit: a startup
 * packet (its parameters become session settings), a named prepared statement, or SQL matching
 * {@link SESSION_STATEMENT}.
 */
export function changesSessionState(m: { type: string; bytes: Uint8Array }): boolean {
  if (m.type === 'startup') return true;
  if (m.type === 'Q') return SESSION_STATEMENT.test(cstringAt(m.bytes, 5).text);
  if (m.type === 'P') {
    const name = cstringAt(m.bytes, 5);
    return name.text !== '' || SESSION_STATEMENT.test(cstringAt(m.bytes, name.end).text);
  }
  return false;
}

/** A backend ErrorResponse (severity FATAL) with SQLSTATE `code`. */
export function fatal(code: string, message: string): Buffer {
  const fields = Buffer.concat([
    Buffer.from('S'), cstring('FATAL'), Buffer.from('V'), cstring('FATAL'),
    Buffer.from('C'), cstring(code), Buffer.from('M'), cstring(message), Buffer.from([0]),
  ]);
  const head = Buffer.alloc(5);
  head.write('E', 0, 'latin1');
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

/**
 * The type of the last backend message in `data` and, for ReadyForQuery, its transaction status
 * ('I' idle, 'T' in a transaction, 'E' in a failed one). Undefined for empty or cut-off output.
 */
export function lastBackendMessage(data: Uint8Array): { type: string; status?: string } | undefined {
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  let last: { type: string; status?: string } | undefined;
  while (at + 5 <= view.length) {
    const length = view.readInt32BE(at + 1);
    if (length < 4 || at + 1 + length > view.length) return undefined;
    const type = String.fromCharCode(view[at]!);
    last = type === 'Z' && length === 5 ? { type, status: String.fromCharCode(view[at + 5]!) } : { type };
    at += 1 + length;
  }
  return at === view.length ? last : undefined;
}
