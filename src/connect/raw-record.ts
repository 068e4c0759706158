import type { TimestampType } from './sink-record.js';

/** A header as Kafka stores it: a string key and raw bytes. */
export interface RawHeader {
  readonly key: string;
  readonly value: Uint8Array | null;
}

/**
 * A record as it comes off the wire, before any converter ran: what the Kafka side hands to the
 * pool and what a worker thread decodes again. Offsets and timestamps are numbers: Kafka offsets
 * stay below 2^53 in practice and the wire encoder rejects any that do not.
 */
export interface RawRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Milliseconds since the epoch; null when the record has no timestamp. */
  readonly timestamp: number | null;
  readonly timestampType: TimestampType;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers: readonly RawHeader[];
  /** Share mode only: how many times the broker has delivered this record (1 the first time). */
  readonly deliveryCount?: number | undefined;
}
