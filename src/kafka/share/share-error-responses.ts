/**
 * What a Kafka error means to a share consumer: the session is gone (start a new one), the consumer
 * cannot go on (fail with the reason), its view of leaders and topics is out of date (refresh
 * metadata), or anything else (retry after a short backoff). The request steps (share-fetcher.ts,
 * acknowledger.ts) report what they saw (request-outcome.ts); the consumer applies it.
 */
import { KafkaError, KafkaErrorCode } from '../errors/kafka-errors.js';
import { settleAll, type AckEntry } from './ack-entries.js';
import type { NodeChannel } from './node-channel.js';

/** The share session is gone: start a new one (epoch 0) and re-send what it carried. */
export const SESSION_ERRORS: ReadonlySet<number> = new Set([
  KafkaErrorCode.SHARE_SESSION_NOT_FOUND,
  KafkaErrorCode.INVALID_SHARE_SESSION_EPOCH,
  KafkaErrorCode.SHARE_SESSION_LIMIT_REACHED,
]);

/** No retry can help: the consumer fails and says why. */
export const FATAL_ERRORS: ReadonlySet<number> = new Set([
  KafkaErrorCode.GROUP_AUTHORIZATION_FAILED,
  KafkaErrorCode.TOPIC_AUTHORIZATION_FAILED,
  KafkaErrorCode.UNSUPPORTED_VERSION,
  KafkaErrorCode.INVALID_REQUEST,
]);

/** Partition errors that mean our view of leaders or topics is out of date. */
export const METADATA_ERRORS: ReadonlySet<number> = new Set([
  KafkaErrorCode.NOT_LEADER_OR_FOLLOWER,
  KafkaErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  KafkaErrorCode.UNKNOWN_TOPIC_ID,
  KafkaErrorCode.KAFKA_STORAGE_ERROR,
]);

/** How long a session waits after a failed request before its next one. */
const BACKOFF_MS = 200;

/** A request's top-level error, already applied to its session (reset or advanced, backoff). */
export interface TopLevelError {
  readonly error: KafkaError;
  readonly sessionReset: boolean;
  readonly fatal: boolean;
}

/** A partition's error in a ShareFetch answer. */
export interface PartitionError {
  readonly error: KafkaError;
  readonly topic: string;
  readonly partition: number;
}

/**
 * Applies a request's top-level error code to its session and acknowledgements: undefined when there
 * is none; otherwise the acks are settled with it, the session reset or advanced, and backed off unless
 * the error is fatal.
 */
export function topLevelError(
  ch: NodeChannel,
  code: number,
  message: string | null,
  api: string,
  acks: AckEntry[],
): TopLevelError | undefined {
  if (code === 0) return undefined;
  const error = new KafkaError(code, { api, brokerMessage: message, subject: `broker ${ch.nodeId}` });
  settleAll(acks, error);
  const sessionReset = SESSION_ERRORS.has(code);
  if (sessionReset) ch.session.reset();
  else ch.session.advance();
  const fatal = FATAL_ERRORS.has(code);
  if (!fatal) backoff(ch);
  return { error, sessionReset, fatal };
}

/** What a request that got no answer (connection lost, timeout) means: fatal when it cannot work. */
export function requestFailureIsFatal(err: Error): boolean {
  return (err as { retriable?: boolean }).retriable === false || err.name === 'UnsupportedVersionError';
}

/** A session whose request failed waits {@link BACKOFF_MS} before its next one. */
export function backoff(ch: NodeChannel): void {
  ch.backoffUntil = Date.now() + BACKOFF_MS;
}
