/** What the share consumer hands out, and what an acknowledgement can name. */

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
