import { ConnectError } from '../../connect/errors.js';
import { encodeBody } from './body.js';
import type { HttpSinkSettings } from './config.js';
import type { PlannedRequest } from './requests.js';
import { displayUrl } from './secrets.js';
import { classifyStatus } from './status-codes.js';

/** What one request means for its records; thrown errors are left for bugs and misconfiguration. */
export type RequestOutcome =
  | { readonly kind: 'ok' }
  /** Send the same records again later; `retryAfterMs` is the server's Retry-After, if it gave one. */
  | { readonly kind: 'retriable'; readonly message: string; readonly retryAfterMs: number | undefined }
  /** The server refused these records for good (most 4xx). */
  | { readonly kind: 'refused'; readonly status: number; readonly message: string };

/** What to check when the endpoint refuses the client rather than the records. */
const CLIENT_REFUSALS: Readonly<Record<number, string>> = {
  401: ' (the endpoint refused the credentials: check http.auth.type and http.auth.user / http.auth.password or http.auth.token)',
  403: ' (the credentials are not allowed to write there: check them, or the permissions on the endpoint)',
  404: ' (no such endpoint: check http.url)',
  405: ' (the endpoint does not take this method: check http.method)',
  407: ' (the proxy asks for a login)',
  415: ' (the endpoint does not take this content type: check request.body.format and http.headers)',
};

/** How much of an error response's body goes into the message: enough to say why, not a whole page. */
const BODY_EXCERPT = 300;

/**
 * Sends one request with Node's built-in fetch (undici, keep-alive per thread) and classifies the
 * answer. Redirects are not followed: fetch would turn a POST into a GET on 301/302 and report the
 * GET's 200 as if the records had been written.
 */
export async function sendRequest(
  cfg: HttpSinkSettings,
  request: PlannedRequest,
  abort?: AbortSignal,
): Promise<RequestOutcome> {
  const { body, contentType } = encodeBody(cfg.format, request.records);
  const headers = new Headers();
  headers.set('Content-Type', contentType);
  for (const [name, value] of cfg.headers) headers.set(name, value);
  if (cfg.idempotencyHeader !== null) headers.set(cfg.idempotencyHeader, request.key);
  const url = new URL(request.url);
  const what = `${cfg.method} ${displayUrl(url)} (${request.records.length} record${request.records.length === 1 ? '' : 's'})`;
  let response: Response;
  let text: string;
  // Not AbortSignal.timeout(): its timer holds the signal weakly, and inside AbortSignal.any() nothing
  // else holds it, so a garbage collection cancels the timeout (nodejs/node#57736) and a request the
  // endpoint never answers hangs the put for good. The timer's closure keeps this controller alive.
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new DOMException(`no response within ${cfg.timeoutMs} ms`, 'TimeoutError')),
    cfg.timeoutMs,
  );
  try {
    response = await fetch(url, {
      method: cfg.method,
      headers,
      body,
      redirect: 'manual',
      signal: abort === undefined ? timeout.signal : AbortSignal.any([timeout.signal, abort]),
    });
    text = await response.text();
  } catch (error) {
    // the runtime gave up on this put (context.abortSignal()): end it now, its outcome no longer matters
    if (abort?.aborted === true) throw new ConnectError(`${what}: put aborted (${String(abort.reason)})`);
    // the Fetch standard blocks some ports (1, 25, 6000, …) before connecting: retrying cannot help
    if ((error as { cause?: { message?: unknown } }).cause?.message === 'bad port') {
      throw new ConnectError(
        `${what}: fetch refuses port ${url.port}, which the Fetch standard blocks; serve the endpoint on another port`,
      );
    }
    if (isTransportError(error)) {
      return {
        kind: 'retriable',
        message: cfg.redactor.redact(`${what} failed: ${describe(error, cfg.timeoutMs)}`),
        retryAfterMs: undefined,
      };
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const kind = classifyStatus(response.status, cfg.success, cfg.retriable);
  if (kind === 'success') return { kind: 'ok' };
  const excerpt = text.length > BODY_EXCERPT ? `${text.slice(0, BODY_EXCERPT)}…` : text;
  const hint =
    response.status >= 300 && response.status < 400
      ? ' (redirects are not followed; point http.url at the final address)'
      : (CLIENT_REFUSALS[response.status] ?? '');
  const message = cfg.redactor.redact(
    `${what} answered ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}${hint}${excerpt.trim() === '' ? '' : `: ${excerpt.trim()}`}`,
  );
  if (kind === 'retriable') {
    return { kind: 'retriable', message, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
  }
  return { kind: 'refused', status: response.status, message };
}

/**
 * Retry-After as milliseconds from now: delay-seconds or an HTTP date (RFC 9110 §10.2.3). Anything
 * else is ignored, and the runtime's own backoff applies.
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // an HTTP date names a weekday and month; without letters Date.parse would read "-1" as a year
  const date = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Failures of the exchange rather than of the request: no connection, reset, DNS, TLS, timeout.
 * undici reports them as `TypeError: fetch failed` with the socket error as `cause`; the timeout
 * signal as a TimeoutError (or AbortError while the body is read).
 */
function isTransportError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true;
  return error instanceof TypeError && error.message === 'fetch failed';
}

function describe(error: unknown, timeoutMs: number): string {
  const e = error as Error & { cause?: unknown };
  if (e.name === 'TimeoutError' || e.name === 'AbortError')
    return `no complete response within ${timeoutMs} ms (request.timeout.ms)`;
  const cause = e.cause as (Error & { code?: unknown }) | undefined;
  if (cause === undefined) return e.message;
  const code = typeof cause.code === 'string' ? `${cause.code}: ` : '';
  return `${code}${cause.message}`;
}
