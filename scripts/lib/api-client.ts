/**
 * The typed API client of the demo and the bench: openapi-fetch over the types generated from the
 * server's OpenAPI document (clients/typescript/schema.d.ts, `npm run client:generate`), so every
 * path, parameter and body they use is checked against the document at typecheck time.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../clients/typescript/schema';

export type { components, operations, paths } from '../../clients/typescript/schema';

/** A client of the API at one base URL with one bearer token. */
export type ApiClient = Client<paths>;

/** A client of the API at `baseUrl` (e.g. `http://127.0.0.1:3000`) sending `Authorization: Bearer <token>`. */
export function createApiClient(baseUrl: string, token: string): ApiClient {
  return createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } });
}

/**
 * The body of a 2xx answer of an openapi-fetch call (undefined for a 204), else throws
 * {@link ApiCallError} naming the operation (`what`: e.g. `POST /scraps`), the status and the
 * problem+json body.
 */
export async function ok<D, E>(what: string, call: Promise<{ data?: D; error?: E; response: Response }>): Promise<D> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiCallError(what, response.status, error);
  return data as D;
}

/** A non-2xx answer of {@link ok}: the status and the problem body. */
export class ApiCallError extends Error {
  constructor(
    what: string,
    readonly status: number,
    readonly problem: unknown,
  ) {
    super(`${what} → ${status} ${JSON.stringify(problem)}`);
    this.name = 'ApiCallError';
  }
}
