// Runs one REST route of a Router without a server: the request as the route handlers read it.
//
//   const res = await callRoute(router, 'POST', '/connectors/pg/restart', { query: 'includeTasks=true' });
import type { IncomingMessage } from 'node:http';
import type { RestRequest, RestResponse, Router } from '../../../src/rest/server/router.js';

export interface RouteRequestOptions {
  readonly body?: unknown;
  readonly query?: string;
  readonly headers?: Record<string, string>;
}

/** The handler's answer; a thrown RestError rejects, as the handler throws it. */
export function callRoute(
  router: Router,
  method: string,
  path: string,
  o: RouteRequestOptions = {},
): Promise<RestResponse> {
  const { handler, params } = router.match(method, path);
  const req = {
    method,
    path,
    params,
    query: new URLSearchParams(o.query ?? ''),
    json: () => Promise.resolve('body' in o ? o.body : {}),
    raw: { headers: o.headers ?? {} } as unknown as IncomingMessage,
    res: undefined as never,
  } as RestRequest;
  return Promise.resolve().then(() => handler(req));
}
