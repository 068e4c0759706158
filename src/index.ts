/**
 * sharesink: Kafka sink connectors on Node.js, reading through share groups (KIP-932) or classic groups.
 *
 * @example
 * ```ts
 * import { SharesinkError, isSharesinkError } from 'sharesink';
 * ```
 */
export { SharesinkError, ConfigError, isSharesinkError } from './errors.js';
export type { SharesinkErrorOptions } from './errors.js';
