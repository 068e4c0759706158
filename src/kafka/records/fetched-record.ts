/** The decoder's record: its fields, and its key and value read from the batch's bytes when asked. */

export interface RecordHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

/** A decoded record: {@link FetchedRecord}'s fields, without its class (test fakes are plain objects). */
export type KafkaRecord = Omit<FetchedRecord, 'toJSON'>;

/**
 * One record, in the shape the share consumer hands out (`ShareRecord`) and the pool encodes (`RawRecord`):
 * the decoder builds the final object, so a record is one allocation, not one per stage. Like Java's
 * `ConsumerRecord` it names its topic and partition.
 *
 * A class, not an object literal: V8 may pretenure a literal's allocation site whose objects survived
 * the young generation's first collections (the fetch window holds a few thousand records while the
 * JIT warms up), and records then went to the old generation, which only full collections free. As
 * literals they were 74 % of what outlived the young generation on the main thread; V8's pretenuring
 * turned off, or this class, cut those promotions alike (docs/jdbc-sink.md, Performance).
 *
 * `key` and `value` are views made when read (each read a new view of the same bytes): a view object
 * kept per record was 29 % of what the main thread promoted to the old generation, and the pool's
 * encoder, the only reader on the hot path, reads each once.
 */
export class FetchedRecord implements KafkaRecord {
  /**
   * Share groups: how often the broker has delivered the record, which only the ShareFetch's acquired
   * ranges say; 0 until the share consumer sets it from them (acquired-records.ts).
   */
  declare deliveryCount: number;
  // private fields, not properties: a spread, a log line or JSON.stringify must not carry the batch's bytes
  /** The batch's record area the key and value lie in (the response's bytes, or the decompressed ones). */
  readonly #bytes: Buffer;
  readonly #keyAt: number;
  /** -1: a null key. */
  readonly #keyLength: number;
  readonly #valueAt: number;
  /** -1: a null value. */
  readonly #valueLength: number;

  constructor(
    /** The `topic` decode option ('' when none was given). */
    readonly topic: string,
    /** The `partition` decode option (-1 when none was given). */
    readonly partition: number,
    readonly offset: number,
    /** ms since epoch: CreateTime (base + delta) or, for LogAppendTime batches, the batch's maxTimestamp. */
    readonly timestamp: number,
    /** The batch's timestamp type: a LogAppendTime topic overwrites the producer's time with the broker's. */
    readonly timestampType: 'CreateTime' | 'LogAppendTime',
    /** In wire order; duplicates kept. A shared empty array when there are none. */
    readonly headers: readonly RecordHeader[],
    bytes: Buffer,
    keyAt: number,
    keyLength: number,
    valueAt: number,
    valueLength: number,
  ) {
    this.#bytes = bytes;
    this.#keyAt = keyAt;
    this.#keyLength = keyLength;
    this.#valueAt = valueAt;
    this.#valueLength = valueLength;
    this.deliveryCount = 0;
  }

  get key(): Buffer | null {
    return this.#keyLength < 0 ? null : this.#bytes.subarray(this.#keyAt, this.#keyAt + this.#keyLength);
  }

  get value(): Buffer | null {
    return this.#valueLength < 0
      ? null
      : this.#bytes.subarray(this.#valueAt, this.#valueAt + this.#valueLength);
  }

  /** What JSON.stringify and loggers see: the record's fields, key and value included. */
  toJSON(): KafkaRecord {
    const { topic, partition, offset, timestamp, timestampType, key, value, headers, deliveryCount } = this;
    return { topic, partition, offset, timestamp, timestampType, key, value, headers, deliveryCount };
  }
}
