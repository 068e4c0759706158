/**
 * Errors the REST API answers with, and the one place a failure becomes an HTTP status: the REST
 * layer's own errors carry theirs, the herder's map by kind, the offsets module's refusals by class.
 * The response body is Connect's error JSON, `{ "error_code": <status>, "message": "..." }`, so Connect
 * clients parse it unchanged.
 */
import { SharesinkError, type SharesinkErrorCode } from '../../errors.js';
import { HerderError, type HerderErrorKind } from '../../herder/errors.js';
import { GroupNotEmptyError, OffsetsRequestError } from '../../offsets/errors.js';

export class RestError extends SharesinkError {
  readonly status: number;

  constructor(code: SharesinkErrorCode, status: number, message: string) {
    super(code, message);
    this.status = status;
  }
}

export const notFound = (message: string): RestError =>
  new RestError('SHARESINK_REST_NOT_FOUND', 404, message);

export const badRequest = (message: string): RestError =>
  new RestError('SHARESINK_REST_BAD_REQUEST', 400, message);

export const conflict = (message: string): RestError =>
  new RestError('SHARESINK_REST_CONFLICT', 409, message);

const HERDER_STATUS: Readonly<Record<HerderErrorKind, number>> = {
  'bad-request': 400,
  forbidden: 403,
  'not-found': 404,
  'not-supported': 405,
  conflict: 409,
  // a not-leader error reaches here only when the request could not be forwarded (see forward.ts)
  'not-leader': 409,
  'rebalance-in-progress': 409,
  internal: 500,
};

/** The HTTP status of an error the API knows; undefined for an unexpected one (a 500, logged). */
export function statusOf(err: unknown): number | undefined {
  if (err instanceof RestError) return err.status;
  if (err instanceof HerderError) return HERDER_STATUS[err.kind];
  if (err instanceof OffsetsRequestError) return 400;
  if (err instanceof GroupNotEmptyError) return 409;
  return undefined;
}

/** Connect's error body for any error; unexpected errors become 500 without internals beyond the message. */
export function errorBody(err: unknown): { status: number; body: { error_code: number; message: string } } {
  const status = statusOf(err) ?? 500;
  const message = err instanceof Error ? err.message : String(err);
  return { status, body: { error_code: status, message } };
}
