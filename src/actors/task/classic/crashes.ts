/**
 * How a classic task reads a crash of its kafkajs consumer: whether to run the consumer again, and the
 * task's error when not.
 */
import type { ConsumerConfig } from 'kafkajs';
import { errorCodeOf } from '../../errors/tolerance.js';

/**
 * kafkajs gives up on a cluster it cannot reach with errors it calls non-retriable (no broker answered
 * the FindCoordinator: `KafkaJSGroupCoordinatorNotFound`), so a broker restart failed classic tasks for
 * good. Connect's consumer keeps trying until the cluster is back; so does the task.
 */
const UNREACHABLE = new Set([
  'KafkaJSGroupCoordinatorNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSBrokerNotFound',
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
]);

/** True when the crash, or an error it was caused by, says the cluster could not be reached. */
export function clusterUnreachable(error: Error): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) if (UNREACHABLE.has(e.name)) return true;
  return false;
}

/** The crash as the task's error; a join the broker refused names the setting to change. */
export function crashReason(error: Error, config: ConsumerConfig): string {
  const why = `the consumer crashed: ${error.message}`;
  if (errorCodeOf(error) !== 'INVALID_SESSION_TIMEOUT') return why;
  return `${why}; the consumer's session.timeout.ms=${config.sessionTimeout} must be within the broker's group.min.session.timeout.ms and group.max.session.timeout.ms: change consumer.override.session.timeout.ms (or the worker's consumer.session.timeout.ms)`;
}
