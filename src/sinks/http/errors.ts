import { ConnectError } from '../../connect/errors.js';

/**
 * The endpoint answered a request with a status that is neither success nor retriable (most 4xx).
 * With behavior.on.error=errant it is the reason each record of that request is reported errant;
 * with behavior.on.error=fail it fails the put. The message names method, URL (without credentials
 * or query), status and the start of the response body, with configured secrets redacted.
 */
export class HttpRequestRefusedError extends ConnectError {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message, {}, 'SHARESINK_HTTP_REFUSED');
    this.status = status;
  }
}
