/** Captures a pino logger's JSON lines in memory, for tests that assert on what was logged. */
import { Writable } from 'node:stream';

/** The stream to hand to the logger and the parsed lines written to it so far, in order. */
export interface LogCapture {
  stream: Writable;
  lines: Record<string, unknown>[];
}

/** A stream of newline-delimited JSON; a line split across writes is parsed once it is complete. */
export function captureJsonLogs(): LogCapture {
  const lines: Record<string, unknown>[] = [];
  let partial = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { stream, lines };
}
