/**
 * What one request of a share session reports to its consumer (the fetch and acknowledge steps return
 * it, as next-request.ts returns its choice), and how the consumer applies it: its lines and counters,
 * the lock duration, stale metadata, and the error it must fail with.
 */
import type { Logger } from 'pino';
import { RetryLines } from '../../observability/retry-lines.js';
import { failureFields } from '../errors/failure-reason.js';
import type { PartitionAckResult } from './ack-entries.js';
import type { NodeChannel } from './node-channel.js';
import type { ShareConsumerMetrics } from './share-consumer-metrics.js';
import type { TopicIdPartition } from './share-session.js';
import {
  backoff,
  FATAL_ERRORS,
  METADATA_ERRORS,
  requestFailureIsFatal,
  type PartitionError,
  type TopLevelError,
} from './share-error-responses.js';

export interface RequestOutcome {
  /** The broker answered (a failure to reach it, logged before, is over). */
  answered: boolean;
  topLevelError: TopLevelError | undefined;
  /** AcquisitionLockTimeoutMs, when the answer carried one. */
  lockTimeoutMs: number | undefined;
  /** Some answer said the consumer's view of leaders or topics is out of date. */
  metadataStale: boolean;
  /** ShareFetch partition errors. */
  partitionErrors: PartitionError[];
}

export function emptyOutcome(): RequestOutcome {
  return {
    answered: false,
    topLevelError: undefined,
    lockTimeoutMs: undefined,
    metadataStale: false,
    partitionErrors: [],
  };
}

/** Folds `next` (a later request of the same step) into `into`. */
export function mergeOutcome(into: RequestOutcome, next: RequestOutcome): RequestOutcome {
  into.answered ||= next.answered;
  into.topLevelError ??= next.topLevelError;
  into.lockTimeoutMs = next.lockTimeoutMs ?? into.lockTimeoutMs;
  into.metadataStale ||= next.metadataStale;
  into.partitionErrors.push(...next.partitionErrors);
  return into;
}

/** Acquired offsets without a record to hand out, which the consumer acknowledges itself. */
export interface AutoAck {
  readonly tp: TopicIdPartition;
  /** gap: no data record there (markers, compaction); reject: the batch cannot be decoded (poison). */
  readonly type: 'gap' | 'reject';
  readonly offsets: number[];
  /** Why the batch could not be decoded (reject only). */
  readonly cause?: unknown;
}

/** The consumer's state that request outcomes set. */
export interface ConsumerState {
  /** AcquisitionLockTimeoutMs as the broker last reported it. */
  lockTimeoutMs: number | undefined;
  /** Leaders or topics are out of date: refresh metadata before the next fetch. */
  metadataStale: boolean;
}

/**
 * Applies `outcome` of a request on broker `nodeId` to `state` and `lines`; answers the error the
 * consumer must fail with, if any.
 */
export function applyOutcome(
  outcome: RequestOutcome,
  nodeId: number,
  state: ConsumerState,
  lines: OutcomeLog,
): Error | undefined {
  if (outcome.answered) lines.answered(nodeId);
  if (outcome.lockTimeoutMs !== undefined) state.lockTimeoutMs = outcome.lockTimeoutMs;
  if (outcome.metadataStale) state.metadataStale = true;
  let fatal: Error | undefined;
  const top = outcome.topLevelError;
  if (top !== undefined) {
    if (top.sessionReset) lines.sessionReset(nodeId, top.error.kafkaName);
    if (top.fatal) fatal = top.error;
  }
  for (const p of outcome.partitionErrors) {
    if (METADATA_ERRORS.has(p.error.kafkaCode)) {
      state.metadataStale = true;
      lines.log.info(
        { topic: p.topic, partition: p.partition, code: p.error.kafkaName },
        'partition moved or unknown; refreshing metadata',
      );
    } else if (FATAL_ERRORS.has(p.error.kafkaCode)) {
      fatal ??= p.error;
    } else {
      lines.log.warn(
        { topic: p.topic, partition: p.partition, err: p.error.message },
        'share fetch partition error',
      );
    }
  }
  return fatal;
}

/** A share consumer's lines and counters about its requests. */
export class OutcomeLog {
  readonly log: Logger;
  readonly #metrics: ShareConsumerMetrics;
  /** The lines of failures retried while a broker is down: once per 30 s per broker and cause. */
  readonly #retryLines: RetryLines;

  constructor(log: Logger, metrics: ShareConsumerMetrics) {
    this.log = log;
    this.#metrics = metrics;
    this.#retryLines = new RetryLines(log);
  }

  /** The broker answered: a failure to reach it ({@link requestFailed}) is over. */
  answered(nodeId: number): void {
    this.#retryLines.recovered(nodeId, { nodeId }, 'share fetch recovered');
  }

  sessionReset(nodeId: number, code: string): void {
    this.log.info({ nodeId, code }, 'share session reset');
    this.#metrics.sessionResets++;
  }

  /**
   * A request that got no answer (connection lost, timeout): 'fatal' when it cannot work; else the
   * session backs off and the request is retried, logged once per 30 s per broker and cause.
   */
  requestFailed(ch: NodeChannel, err: Error): 'fatal' | 'retry' {
    if (requestFailureIsFatal(err)) return 'fatal';
    const reason = failureFields(err);
    this.#retryLines.failed(
      ch.nodeId,
      reason.err,
      { nodeId: ch.nodeId, ...reason },
      'share fetch failed; retrying',
    );
    backoff(ch);
    return 'retry';
  }

  /** A metadata refresh failed (it is tried again): logged as {@link requestFailed} logs a fetch. */
  metadataFailed(err: unknown): void {
    const reason = failureFields(err);
    this.#retryLines.failed('metadata', reason.err, reason, 'metadata refresh failed');
  }

  /** A metadata refresh succeeded: one line when its failure was logged. */
  metadataRefreshed(): void {
    this.#retryLines.recovered('metadata', {}, 'metadata refresh recovered');
  }

  /** Acquired records that could not be decoded: poison for every member, so they are rejected. */
  undecodable(a: AutoAck): void {
    const { topic, partition } = a.tp;
    this.log.error(
      { err: a.cause, topic, partition, offsets: a.offsets.length },
      'undecodable records rejected',
    );
  }

  /** Counts one partition's acknowledgement result, and logs it when it failed. */
  countAck(r: PartitionAckResult): void {
    this.#metrics.onAck(r.type, r.offsets.length, r.error !== null);
    if (r.error)
      this.log.warn(
        {
          topic: r.topic,
          partition: r.partition,
          type: r.type,
          count: r.offsets.length,
          err: r.error.message,
        },
        'acknowledgement failed',
      );
  }
}
