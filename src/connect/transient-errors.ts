/**
 * Errors a put() throws without saying whether they are retriable, which are transient all the same:
 * Node's own errors for a network or a disk that failed (ECONNREFUSED, ETIMEDOUT, ENOTFOUND, ENOSPC…),
 * and undici's, behind the `fetch failed` TypeError of the built-in fetch. A connector written with
 * `await fetch(url)` and no error handling would otherwise see its batch REJECTed (share mode) the
 * first time its endpoint is down, losing records that are fine. An error the connector raised as a
 * ConnectError (or any sharesink error) is taken at its word.
 */
import { isSharesinkError } from '../errors.js';

const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  // network
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENETRESET',
  // undici (fetch)
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  // disk and process limits
  'ENOSPC',
  'EDQUOT',
  'EIO',
  'EBUSY',
  'EAGAIN',
  'EMFILE',
  'ENFILE',
]);

/**
 * The transient error in `error`, its `cause` chain or an AggregateError's errors: its code and
 * message. Undefined when there is none, or when `error` is a sharesink error (its class decides).
 */
export function transientCause(error: unknown): { code: string; message: string } | undefined {
  if (isSharesinkError(error)) return undefined;
  const seen = new Set<unknown>();
  const visit = (e: unknown): { code: string; message: string } | undefined => {
    if (typeof e !== 'object' || e === null || seen.has(e) || seen.size > 20) return undefined;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && TRANSIENT_CODES.has(code)) {
      const message = (e as { message?: unknown }).message;
      return { code, message: typeof message === 'string' ? message : code };
    }
    if (e instanceof AggregateError) {
      for (const inner of e.errors) {
        const found = visit(inner);
        if (found !== undefined) return found;
      }
    }
    return visit((e as { cause?: unknown }).cause);
  };
  return visit(error);
}
