/** Jest globalTeardown: stops the servers that global-setup.ts started (runs even when tests fail). */
import { HANDLES_KEY, type TestServerHandles } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as typeof globalThis & { [HANDLES_KEY]?: TestServerHandles };
  const handles = g[HANDLES_KEY];
  if (!handles) return;
  const results = await Promise.allSettled(handles.stops.map((h) => h.stop()));
  handles.stops = [];
  delete g[HANDLES_KEY];
  const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [`${i}: ${String(r.reason)}`] : []));
  if (failed.length > 0) throw new Error(`test servers did not stop cleanly: ${failed.join('; ')}`);
}
