/**
 * What a Kafka error means to a share consumer, and what it does about it: the session is gone (start
 * a new one), the consumer cannot go on (fail with the reason), its view of leaders and topics is out
 * of date (refresh metadata), or anything else (retry after a short backoff).
 */
import type { Logger } from 'pino';
import { KafkaError, KafkaErrorCode } from '../errors/kafka-errors.js';
import { failureFields } from '../errors/failure-reason.js';
import { RetryLines } from '../../observability/retry-lines.js';
import { settleAll, type AckEntry, type PartitionAckResult } from './ack-entries.js';
import type { NodeChannel } from './node-channel.js';
import type { ShareConsumerMetrics } from './share-consumer-metrics.js';

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

/** What the responses below act on: the consumer's log, counters, failure and metadata. */
export interface ErrorHost {
  readonly log: Logger;
  /** The lines of failures retried while a broker is down: once per 30 s per broker and cause. */
  readonly retryLines: RetryLines;
  readonly metrics: ShareConsumerMetrics;
  fail(err: Error): void;
  onMetadataStale(): void;
}

/** A consumer's {@link ErrorHost}, with retry lines of its own. */
export function errorHost(
  log: Logger,
  metrics: ShareConsumerMetrics,
  fail: (err: Error) => void,
  onMetadataStale: () => void,
): ErrorHost {
  return { log, retryLines: new RetryLines(log), metrics, fail, onMetadataStale };
}

/** Handles a request's top-level error code; false when the request's work is void. */
export function topLevelOk(
  host: ErrorHost,
  ch: NodeChannel,
  code: number,
  message: string | null,
  api: string,
  acks: AckEntry[],
): boolean {
  // the broker answered: a failure to reach it (onRequestFailure) is over
  host.retryLines.recovered(ch.nodeId, { nodeId: ch.nodeId }, 'share fetch recovered');
  if (code === 0) return true;
  const err = new KafkaError(code, { api, brokerMessage: message, subject: `broker ${ch.nodeId}` });
  settleAll(acks, err);
  if (SESSION_ERRORS.has(code)) {
    host.log.info({ nodeId: ch.nodeId, code: err.kafkaName }, 'share session reset');
    ch.session.reset();
    host.metrics.sessionResets++;
  } else {
    ch.session.advance();
  }
  if (FATAL_ERRORS.has(code)) host.fail(err);
  else backoff(ch);
  return false;
}

/**
 * A request that got no answer (connection lost, timeout): fatal when it cannot work, else retried. A
 * broker that is down fails every retry the same way: logged once per 30 s per broker and cause.
 */
export function onRequestFailure(host: ErrorHost, ch: NodeChannel, err: Error): void {
  if ((err as { retriable?: boolean }).retriable === false || err.name === 'UnsupportedVersionError') {
    host.fail(err);
    return;
  }
  const reason = failureFields(err);
  host.retryLines.failed(
    ch.nodeId,
    reason.err,
    { nodeId: ch.nodeId, ...reason },
    'share fetch failed; retrying',
  );
  host.onMetadataStale();
  backoff(ch);
}

/** A metadata refresh failed (it is tried again): logged as {@link onRequestFailure} logs a fetch. */
export function onMetadataFailure(host: ErrorHost, err: unknown): void {
  const reason = failureFields(err);
  host.retryLines.failed('metadata', reason.err, reason, 'metadata refresh failed');
}

/** A metadata refresh succeeded: one line when its failure was logged. */
export function onMetadataRefreshed(host: ErrorHost): void {
  host.retryLines.recovered('metadata', {}, 'metadata refresh recovered');
}

export function onPartitionError(
  host: ErrorHost,
  code: number,
  message: string | null,
  topic: string,
  partition: number,
): void {
  const err = new KafkaError(code, {
    api: 'ShareFetch',
    brokerMessage: message,
    subject: `${topic}-${partition}`,
  });
  if (METADATA_ERRORS.has(code)) {
    host.onMetadataStale();
    host.log.info(
      { topic, partition, code: err.kafkaName },
      'partition moved or unknown; refreshing metadata',
    );
  } else if (FATAL_ERRORS.has(code)) {
    host.fail(err);
  } else {
    host.log.warn({ topic, partition, err: err.message }, 'share fetch partition error');
  }
}

/** Counts one partition's acknowledgement result, and logs it when it failed. */
export function countAck(host: ErrorHost, r: PartitionAckResult): void {
  host.metrics.onAck(r.type, r.offsets.length, r.error !== null);
  if (r.error)
    host.log.warn(
      { topic: r.topic, partition: r.partition, type: r.type, count: r.offsets.length, err: r.error.message },
      'acknowledgement failed',
    );
}

function backoff(ch: NodeChannel): void {
  ch.backoffUntil = Date.now() + BACKOFF_MS;
}
