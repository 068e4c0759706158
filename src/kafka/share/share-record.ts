/** What the share consumer hands out, and what an acknowledgement can name. */

/**
 * Structurally a `RawRecord` (src/connect/raw-record.ts), the pool's input: the same fields, each type
 * the same or narrower, so the runtime hands these objects to the pool as they are instead of copying
 * each one (the decoder's records, record-batches.ts, read `key` and `value` through getters).
 * `kafka/` does not import `connect/`, so the two are declared apart;
 * test/unit/kafka/share/share-record.test.ts fails to compile or to pass when they drift.
 */
export interface ShareRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** ms since epoch: the producer's (CreateTime) or, on a LogAppendTime topic, the broker's append time. */
  readonly timestamp: number;
  /** Which clock `timestamp` is: a LogAppendTime topic overwrites the producer's with the broker's. */
  readonly timestampType: 'CreateTime' | 'LogAppendTime';
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: ReadonlyArray<{ readonly key: string; readonly value: Buffer | null }>;
  /** 1 on the first delivery; +1 each time the record comes back (released or lock expired). */
  readonly deliveryCount: number;
}

/** Records to acknowledge: records as `poll()` returned them, or offsets of one partition. */
export type AckTarget =
  | ShareRecord
  | readonly ShareRecord[]
  | { readonly topic: string; readonly partition: number; readonly offsets: readonly number[] };
