/** The options of a ShareConsumer (share-consumer.ts) and of its `poll()`. */
import type { Logger } from 'pino';
import type { ClusterTransportOptions } from './cluster-transport.js';
import type { FetchSettings } from './share-fetcher.js';
import type { ShareTransport } from './transport.js';

export interface ShareConsumerOptions extends Omit<ClusterTransportOptions, 'logger'> {
  readonly groupId: string;
  readonly logger?: Logger;
  readonly rackId?: string;
  /** Longest time the broker holds a ShareFetch open waiting for records (ShareFetch MaxWaitMs). Default 500. */
  readonly fetchMaxWaitMs?: number;
  readonly fetchMinBytes?: number;
  /**
   * ShareFetch MaxBytes, a soft limit (the broker still returns at least one batch). Default 1 MiB, as Kafka's
   * ShareConsumerPerformance uses: the broker's work per ShareFetch grows with MaxBytes when a backlog is
   * waiting (Kafka 4.4, 2 cores: 0.7 ms at 1 MiB vs 3.5 ms at 50 MiB for the same 592 records).
   */
  readonly fetchMaxBytes?: number;
  /** Soft limit of records per fetch (ShareFetch MaxRecords). Default 500. */
  readonly maxRecords?: number;
  /**
   * About the most records one poll() returns: an answer of several times this many is handed out in
   * equal pieces, to the polls waiting or to the next ones (poll-queue.ts). Default: maxRecords.
   */
  readonly pollMaxRecords?: number;
  /**
   * The most polls' worth (`pollMaxRecords` each) one ShareFetch may ask for, MaxBytes growing with it,
   * while polls take the pieces fast enough that the last one waits under a tenth of the acquisition
   * lock (fetch-window.ts). Default 1: every ShareFetch asks for `maxRecords`.
   */
  readonly fetchMaxPolls?: number;
  /** Preferred records per acquired batch (ShareFetch BatchSize). Default: maxRecords. */
  readonly batchSize?: number;
  /** `record_limit` makes MaxRecords a hard limit (Kafka ≥ 4.2). Default `batch_optimized`. */
  readonly acquireMode?: 'batch_optimized' | 'record_limit';
  /**
   * Longest time an acknowledgement waits behind a ShareFetch already at the broker: while this consumer
   * holds records it handed out and that are not finally acknowledged, ShareFetch MaxWaitMs is at most
   * this (a session carries one request at a time, so acks queue behind a long poll). Default 100.
   */
  readonly ackFlushDelayMs?: number;
  /**
   * How long a final acknowledgement (accept / release / reject, and the consumer's own GAP and
   * REJECT of undecodable records) may wait for a ShareFetch to carry it before it goes in a
   * ShareAcknowledge of its own; `commit()` and `close()` send it with the session's next request. Each
   * acknowledging request makes the broker write the group's share state, so fewer of them cost the
   * broker less (ADR 0021). Default 0: at the end of the turn, as ADR 0005 describes; the runtime
   * sets 20. A value that is not a finite number above 0 counts as 0.
   */
  readonly ackLingerMs?: number;
  /** For tests: the wire to use instead of a real cluster connection. */
  readonly transport?: ShareTransport;
}

export interface PollOptions {
  /** How long `poll()` waits for records before it returns []. Default 1000. */
  readonly maxWaitMs?: number;
}

/**
 * The runtime's `ackLingerMs`: a put's acks ride the ShareFetch that follows within this time, as they
 * do when its fetch window serves several puts (ADR 0019, ADR 0021).
 */
export const RUNTIME_ACK_LINGER_MS = 20;

/** See {@link ShareConsumerOptions.fetchMaxBytes}. */
export const DEFAULT_FETCH_MAX_BYTES = 1_048_576;

/** The ShareFetch fields that `options` set once for every request. */
export function fetchSettings(options: ShareConsumerOptions): FetchSettings {
  const maxRecords = options.maxRecords ?? 500;
  return {
    minBytes: options.fetchMinBytes ?? 1,
    maxBytes: options.fetchMaxBytes ?? DEFAULT_FETCH_MAX_BYTES,
    maxRecords,
    batchSize: options.batchSize ?? maxRecords,
    acquireMode: options.acquireMode === 'record_limit' ? 1 : 0,
  };
}
