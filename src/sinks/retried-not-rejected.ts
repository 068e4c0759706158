/**
 * The end of a built-in sink's message for a failure that is the destination's and not the records'
 * (a refused login, a missing grant or table): what happens to the records meanwhile.
 */
export const RETRIED_NOT_REJECTED =
  'The records are not rejected: the put is retried in place, as after any retriable error (errors.retry.timeout)';
