/**
 * What a consumer-protocol member keeps per owned partition, and the one fetch of it handed to the
 * application ({@link PartitionFetch}): a partition is handed out again only after the previous fetch
 * of it ended, from the offset after the last one the application resolved (not resolved: read again).
 */
import type { KafkaRecord } from '../records/record-batches.js';

export interface PartitionState {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  /** The next offset to fetch. */
  position: number;
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
    resolvedNext: undefined,
    committedNext: -1,
    busy: false,
    revoked: false,
    idle: Promise.resolve(),
    markIdle: () => undefined,
  };
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
