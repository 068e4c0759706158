/**
 * What a consumer-protocol member keeps per owned partition, and the one fetch of it handed to the
 * application ({@link PartitionFetch}). A partition is with the application one fetch at a time; while it
 * is, the member may read ahead: at most one fetch response more, held in `buffered`, handed over only
 * once the previous fetch ended with everything resolved. Anything else (an early end, a pause, a
 * revocation or loss) drops the read-ahead, and the partition is read again from what was resolved.
 */
import type { KafkaRecord } from '../records/record-batches.js';

/** A fetch response read ahead, not handed to the application yet. */
export interface ReadAhead {
  /** The offset it was fetched from: the partition's `position` when it is handed over. */
  readonly from: number;
  /** Its records from `from` on, control records left out (may be empty: control records only). */
  readonly records: readonly KafkaRecord[];
  /** The last offset it covers, trailing control records included. */
  readonly lastOffset: number;
}

export interface PartitionState {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  /** The next offset to hand to the application: moves only when records are handed over (or skipped). */
  position: number;
  /** The next offset to fetch: `position`, or after the read-ahead / the fetch in flight. */
  fetchNext: number;
  /**
   * Bumped whenever what was read ahead is dropped (pause, revocation, an early end, a reset): a fetch
   * response asked for under an older value is stale and discarded.
   */
  gen: number;
  /** At most one fetch response read ahead (bounded by max.partition.fetch.bytes). */
  buffered: ReadAhead | undefined;
  /** In a Fetch request now (another lane leaves it out). */
  asking: boolean;
  /** Its last answer reached the high watermark: its next Fetch may wait for data (a lane of its own). */
  caughtUp: boolean;
  /** Do not read ahead until the fetch with the application ends (a fetch error while it was busy). */
  holdReadAhead: boolean;
  /** The offset after the last one resolved (what a commit stores); undefined = nothing resolved yet. */
  resolvedNext: number | undefined;
  /** The last offset committed (the next to read), -1 = none by this member. */
  committedNext: number;
  /** A fetch of it is with the application. */
  busy: boolean;
  /** Given up (revoked or lost): the fetch with the application should end. */
  revoked: boolean;
  /** Resolves when the application's fetch of it ends. */
  idle: Promise<void>;
  markIdle: () => void;
}

export function newPartitionState(
  topic: string,
  topicId: string,
  partition: number,
  position: number,
): PartitionState {
  return {
    topic,
    topicId,
    partition,
    position,
    fetchNext: position,
    gen: 0,
    buffered: undefined,
    asking: false,
    caughtUp: false,
    holdReadAhead: false,
    resolvedNext: undefined,
    committedNext: -1,
    busy: false,
    revoked: false,
    idle: Promise.resolve(),
    markIdle: () => undefined,
  };
}

/** Forgets what was read ahead and makes any fetch of it in flight stale: it is read again from `position`. */
export function dropReadAhead(s: PartitionState): void {
  s.buffered = undefined;
  s.fetchNext = s.position;
  s.caughtUp = false;
  s.gen++;
}

/** Kafkajs's shape of offsets, which the classic task runner logs and commits. */
export interface OffsetsByTopic {
  topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>;
}

/** One fetch of one partition, with the application until its callback returns. */
export interface PartitionFetch {
  readonly topic: string;
  readonly partition: number;
  readonly records: readonly KafkaRecord[];
  /** The last offset the fetch covers (trailing control records included), as a string (kafkajs). */
  readonly lastOffset: string;
  /** This offset was handled: a commit stores the next one. */
  resolveOffset(offset: string): void;
  /** What a commit would store now; no topics when nothing new was resolved. */
  uncommittedOffsets(): OffsetsByTopic;
  /** Commits the resolved offset with the member's id and current epoch. */
  commitOffsetsIfNecessary(offsets?: OffsetsByTopic): Promise<void>;
  /**
   * Rejects (an error whose `type` is `REBALANCE_IN_PROGRESS`, kafkajs's rejoin signal) once the partition
   * was given up; the heartbeats themselves run apart from the application.
   */
  heartbeat(): Promise<void>;
  isRunning(): boolean;
  /** True once the partition was revoked or lost. */
  isStale(): boolean;
}

/** The error {@link PartitionFetch.heartbeat} rejects with once its partition moved on. */
export class PartitionRevokedError extends Error {
  readonly type = 'REBALANCE_IN_PROGRESS';
  constructor(topic: string, partition: number) {
    super(`${topic}-${partition} was revoked from this member`);
    this.name = 'PartitionRevokedError';
  }
}
