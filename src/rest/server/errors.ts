/**
 * Errors the REST API answers with. Each carries the HTTP status; the response body is Connect's
 * error JSON, `{ "error_code": <status>, "message": "..." }`, so Connect clients parse it unchanged.
 */
import { SharesinkError, type SharesinkErrorCode } from '../../errors.js';

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

/** Creating, reconfiguring or deleting connectors at runtime: the connector files are the source of truth. */
export const notSupported = (what: string): RestError =>
  new RestError(
    'SHARESINK_REST_NOT_SUPPORTED',
    405,
    `${what} is not supported: sharesink runs the connectors of its config files (standalone). Edit the file and restart the worker.`,
  );

/** Connect's error body for any error; unexpected errors become 500 without internals beyond the message. */
export function errorBody(err: unknown): { status: number; body: { error_code: number; message: string } } {
  if (err instanceof RestError)
    return { status: err.status, body: { error_code: err.status, message: err.message } };
  const message = err instanceof Error ? err.message : String(err);
  return { status: 500, body: { error_code: 500, message } };
}
