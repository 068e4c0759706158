/**
 * A small path router over node:http: `/connectors/:name/tasks/:task/status`-style patterns, one
 * handler per (method, pattern). An unknown path answers 404; a known path with another method 405,
 * as Connect's Jersey server does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, notFound, RestError } from './errors.js';

export interface RestRequest {
  readonly method: string;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The request body parsed as JSON ({} when empty). */
  json(): Promise<unknown>;
  readonly raw: IncomingMessage;
  readonly res: ServerResponse;
}

/** What a handler answers: JSON, text, no content, or `streaming` when it wrote the response itself. */
export type RestResponse =
  | { readonly status: number; readonly json: unknown }
  | { readonly status: number; readonly text: string; readonly contentType: string }
  | { readonly status: number }
  | 'streaming';

export type Handler = (req: RestRequest) => RestResponse | Promise<RestResponse>;

interface Route {
  readonly method: string;
  readonly parts: readonly string[];
  readonly handler: Handler;
}

export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler): this {
    this.routes.push({ method, parts: split(pattern), handler });
    return this;
  }

  /** The handler and path parameters for a request, or a RestError (404 / 405). */
  match(method: string, path: string): { handler: Handler; params: Record<string, string> } {
    const parts = split(path);
    let pathKnown = false;
    for (const route of this.routes) {
      const params = matchParts(route.parts, parts);
      if (params === undefined) continue;
      pathKnown = true;
      if (route.method === method) return { handler: route.handler, params };
    }
    if (pathKnown)
      throw new RestError('SHARESINK_REST_METHOD_NOT_ALLOWED', 405, `HTTP ${method} not allowed on ${path}`);
    throw notFound(`Unknown endpoint ${path}`);
  }
}

function split(path: string): string[] {
  return path.split('/').filter((p) => p !== '');
}

function matchParts(
  pattern: readonly string[],
  parts: readonly string[],
): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const value = parts[i]!;
    if (p.startsWith(':')) {
      try {
        params[p.slice(1)] = decodeURIComponent(value);
      } catch {
        throw badRequest(`Malformed path segment ${value}`);
      }
    } else if (p !== value) return undefined;
  }
  return params;
}
