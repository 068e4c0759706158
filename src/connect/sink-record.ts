import { ConnectHeaders } from './headers.js';
import type { Schema } from './schema.js';

export type TimestampType = 'CreateTime' | 'LogAppendTime' | 'NoTimestampType';

/**
 * A partition of a topic. In share mode `open()` receives one entry per subscribed topic with
 * `partition === ALL_PARTITIONS`, because a share group has no exclusive partitions to announce.
 */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export const ALL_PARTITIONS = -1;

/** Connect's `Map<TopicPartition, OffsetAndMetadata>` as a list: `offset` is the NEXT offset to consume. */
export interface TopicPartitionOffset extends TopicPartition {
  readonly offset: number;
}

export interface SinkRecordInit {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number | null;
  timestampType: TimestampType;
  key: unknown;
  value: unknown;
  keySchema?: Schema | undefined;
  valueSchema?: Schema | undefined;
  headers?: ConnectHeaders | undefined;
  deliveryCount?: number | undefined;
}

/** Position of a record in the batch handed to `put()`; lets the errant reporter map records back to acks. */
export const BATCH_INDEX = Symbol('sharesink.batchIndex');

/**
 * One record as a sink task sees it, after the key, value and header converters ran.
 * `deliveryCount` is set in share mode only (1 on first delivery); it is undefined in classic mode,
 * so a connector can log redeliveries without caring which mode it runs in.
 */
export class SinkRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number | null;
  readonly timestampType: TimestampType;
  readonly key: unknown;
  readonly value: unknown;
  readonly keySchema: Schema | undefined;
  readonly valueSchema: Schema | undefined;
  readonly headers: ConnectHeaders;
  readonly deliveryCount: number | undefined;
  /** @internal */
  [BATCH_INDEX]: number | undefined;

  constructor(init: SinkRecordInit, batchIndex?: number) {
    this.topic = init.topic;
    this.partition = init.partition;
    this.offset = init.offset;
    this.timestamp = init.timestamp;
    this.timestampType = init.timestampType;
    this.key = init.key;
    this.value = init.value;
    this.keySchema = init.keySchema;
    this.valueSchema = init.valueSchema;
    this.headers = init.headers ?? ConnectHeaders.EMPTY;
    this.deliveryCount = init.deliveryCount;
    this[BATCH_INDEX] = batchIndex;
  }

  /**
   * A copy with some fields replaced (Connect's `newRecord`), for transforms. The copy still acks as
   * the original record: reporting it to the errant record reporter rejects the original.
   */
  newRecord(changes: Partial<Omit<SinkRecordInit, 'offset' | 'deliveryCount'>>): SinkRecord {
    return new SinkRecord({ ...this.toInit(), ...changes }, this[BATCH_INDEX]);
  }

  toInit(): SinkRecordInit {
    return {
      topic: this.topic,
      partition: this.partition,
      offset: this.offset,
      timestamp: this.timestamp,
      timestampType: this.timestampType,
      key: this.key,
      value: this.value,
      keySchema: this.keySchema,
      valueSchema: this.valueSchema,
      headers: this.headers,
      deliveryCount: this.deliveryCount,
    };
  }
}
