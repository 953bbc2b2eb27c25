/**
 * 405 METHOD_NOT_ALLOWED support: every route's method and URL pattern is mirrored, at registration,
 * into a find-my-way router (fastify's own router library, same matching rules), so a request that
 * matched no route can be told which methods its path does serve (`Allow`, RFC 9110 section 15.5.6).
 */
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance, RouteOptions } from 'fastify';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Installs the `onRoute` hook (call before any route is registered) and returns the lookup: the
 * methods served at a concrete path (`/cards/123`), in the order above; [] for an unknown path.
 * HEAD is listed wherever GET is (fastify answers it).
 */
export function trackRouteMethods(app: FastifyInstance, opts: { ignoreTrailingSlash?: boolean } = {}): (path: string) => string[] {
  const router = FindMyWay({ ignoreTrailingSlash: opts.ignoreTrailingSlash ?? false });
  app.addHook('onRoute', (route: RouteOptions) => {
    for (const method of ([] as string[]).concat(route.method)) {
      const m = method.toUpperCase() as HTTPMethod;
      if (!METHODS.includes(m) || router.hasRoute(m, route.url)) continue;
      router.on(m, route.url, () => undefined);
    }
  });
  return (path) => {
    const served = METHODS.filter((m) => router.find(m, path) !== null);
    if (served.includes('GET') && !served.includes('HEAD')) served.splice(1, 0, 'HEAD');
    return served;
  };
}
