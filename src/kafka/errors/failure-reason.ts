/**
 * A failure as a log line reads best: the broker, and the reason once, short.
 *
 * Logged as `{ err }`, a connection error says its reason three times: pino's serializer joins the
 * messages along the cause chain, and {@link KafkaConnectionError} prefixes the broker to kafkajs's own
 * message, which already ends with the address (`127.0.0.1:9092: Connection error: connect ECONNREFUSED
 * 127.0.0.1:9092: Connection error: connect ECONNREFUSED 127.0.0.1:9092`). {@link failureFields} makes
 * that `broker=127.0.0.1:9092 err="connect ECONNREFUSED"`.
 */
import { KafkaConnectionError } from './kafka-errors.js';

/**
 * The socket error alone, as Node names it: `connect ECONNREFUSED`, `getaddrinfo ENOTFOUND kafka`,
 * `Connection timeout`. The wrappers (`host:port: Connection error: …`) and the repeated address go.
 */
export function socketError(err: unknown, address: string): string {
  let text = err instanceof Error ? err.message : String(err);
  if (text.startsWith(`${address}: `)) text = text.slice(address.length + 2);
  text = text.replace(/^Connection error: /, '');
  // Node appends the address, `1.2.3.4:9092` or `::1:9092`
  return text.replace(/ \S+:\d+$/, '');
}

/** Log fields for a failure: `broker` and the socket error for a connection error, else the message. */
export function failureFields(err: unknown): { readonly broker?: string; readonly err: string } {
  if (err instanceof KafkaConnectionError) return { broker: err.broker, err: socketError(err, err.broker) };
  return { err: err instanceof Error ? err.message : String(err) };
}
