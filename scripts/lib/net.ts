/**
 * Ports and URLs for the scripts that start local servers (demo, bench); a free port chosen by the
 * OS is `getFreePort` of src/dev/temporal-server.
 */
import { createServer } from 'node:net';

/** Whether `port` on 127.0.0.1 can be listened on right now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer().once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** `port` when it is free, else 0 (the server then picks one). */
export async function preferPort(port: number): Promise<number> {
  return (await portFree(port)) ? port : 0;
}

/** `url` with its password, if any, replaced by `***` (for printing); `<unparsable URL>` when it is not a URL. */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '<unparsable URL>';
  }
  if (!u.password) return url;
  u.password = '***';
  return u.toString();
}
