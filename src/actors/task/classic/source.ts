/**
 * What the classic task runner reads partitions through: a consumer group whose member hands it one fetch
 * of one partition at a time and commits the offsets it resolves. Two sources implement it: kafkajs
 * (`group.protocol=classic`, its Consumer as it is, see kafkajsSource) and sharesink's own KIP-848 member
 * (`group.protocol=consumer`, consumer-protocol-source.ts). The shapes are kafkajs's (`EachBatchPayload`,
 * `uncommittedOffsets`), which the runner was written against.
 */
import type { Batch, ConsumerConfig, Kafka } from 'kafkajs';
import type { RawRecord } from '../../../connect/raw-record.js';
import { classicRawRecords } from './records.js';

export interface SourceOffsets {
  topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>;
}

/** One fetch of one partition: kafkajs's `EachBatchPayload`, the parts the runner uses. */
export interface SourceFetch {
  readonly batch: Pick<Batch, 'topic' | 'partition'> & {
    readonly messages: ReadonlyArray<{ offset: string }>;
  };
  /** The records already as the pool takes them (consumer protocol); kafkajs's are converted from `batch`. */
  readonly rawRecords?: readonly RawRecord[];
  /** The last offset the fetch covers, when `batch.messages` does not hold it. */
  readonly lastOffset?: string;
  resolveOffset(offset: string): void;
  uncommittedOffsets(): SourceOffsets;
  commitOffsetsIfNecessary(offsets?: SourceOffsets): Promise<void>;
  /** Rejects with an error whose `type` is a rejoin type (isRejoinError) when the partition moved on. */
  heartbeat(): Promise<void>;
  isRunning(): boolean;
  isStale(): boolean;
}

/** A consumer group member as the classic task runner drives it. */
export interface ClassicSource {
  onAssignment(listener: (assignment: Record<string, number[]>) => void): void;
  onCrash(listener: (error: Error) => void): void;
  connect(): Promise<void>;
  subscribe(topics: ReadonlyArray<string | RegExp>, fromBeginning: boolean): Promise<void>;
  /** Joins and starts fetching; settles once the member joined, or rejects when it cannot. */
  run(eachFetch: (fetch: SourceFetch) => Promise<void>, concurrency: number): Promise<void>;
  pause(topics: readonly string[]): void;
  resume(topics: readonly string[]): void;
  /** Stops fetching and leaves, without waiting for the fetches with the runner (a failed task). */
  stop(): Promise<void>;
  /** Waits for the fetches with the runner (their commits), leaves, disconnects. */
  disconnect(): Promise<void>;
}

export function fetchRecords(fetch: SourceFetch): readonly RawRecord[] {
  return fetch.rawRecords ?? classicRawRecords(fetch.batch as Batch);
}

export function fetchLastOffset(fetch: SourceFetch): string | undefined {
  return fetch.lastOffset ?? fetch.batch.messages[fetch.batch.messages.length - 1]?.offset;
}

/**
 * A kafkajs consumer as a {@link ClassicSource}. kafkajs restarts a crashed consumer on a timer of its own,
 * which a stop cannot see: a restart that fired could join the group after the stop. kafkajs asks
 * `retriableCrash` instead, for a retriable crash only, and the runner's onCrash restarts it.
 */
export function kafkajsSource(
  kafka: Kafka,
  config: ConsumerConfig,
  retriableCrash: (error: Error) => void,
): ClassicSource {
  const consumer = kafka.consumer({
    ...config,
    retry: {
      retries: 5,
      restartOnFailure: (err) => {
        retriableCrash(err);
        return Promise.resolve(false);
      },
    },
  });
  const partitionsOf = (topics: readonly string[]) => topics.map((topic) => ({ topic }));
  return {
    onAssignment: (l) => void consumer.on(consumer.events.GROUP_JOIN, (e) => l(e.payload.memberAssignment)),
    onCrash: (l) => void consumer.on(consumer.events.CRASH, (e) => l(e.payload.error)),
    connect: () => consumer.connect(),
    subscribe: (topics, fromBeginning) => consumer.subscribe({ topics: [...topics], fromBeginning }),
    run: (eachFetch, concurrency) =>
      consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: concurrency,
        eachBatch: (payload) => eachFetch(payload),
      }),
    pause: (topics) => consumer.pause(partitionsOf(topics)),
    resume: (topics) => consumer.resume(partitionsOf(topics)),
    stop: () => consumer.stop(),
    disconnect: () => consumer.disconnect(),
  };
}
