import { SharesinkError } from '../errors.js';
import type { RawHeader, RawRecord } from '../connect/raw-record.js';
import type { TimestampType } from '../connect/sink-record.js';

/**
 * A batch of raw records in the form that crosses the thread boundary: two ArrayBuffers that are
 * transferred (moved, not copied) plus a small topic table. One allocation for all bytes instead of
 * one Buffer per key and value keeps the structured clone cost flat in the record count.
 *
 * `data`: every key, value, header key (UTF-8) and header value, back to back.
 * `meta`: Float64[count × 2] (offset, timestamp; NaN = no timestamp), then
 *         Int32[count × RECORD_INTS] (see R_* below), then Int32[headerCount × 4] (see H_* below).
 * A length of -1 means null.
 */
export interface WireBatch {
  readonly count: number;
  readonly headerCount: number;
  readonly topics: readonly string[];
  readonly data: ArrayBuffer;
  readonly meta: ArrayBuffer;
}

const R_TOPIC = 0;
const R_PARTITION = 1;
const R_KEY_START = 2;
const R_KEY_LEN = 3;
const R_VALUE_START = 4;
const R_VALUE_LEN = 5;
const R_HEADER_START = 6;
const R_HEADER_COUNT = 7;
const R_DELIVERY_COUNT = 8;
const R_TIMESTAMP_TYPE = 9;
const RECORD_INTS = 10;
const H_KEY_START = 0;
const H_KEY_LEN = 1;
const H_VALUE_START = 2;
const H_VALUE_LEN = 3;
const HEADER_INTS = 4;
const MAX_DATA = 2 ** 31 - 1;
/** Shared by every record without headers: most have none, and an array each was garbage. */
const NO_HEADERS: RawHeader[] = Object.freeze([]) as unknown as RawHeader[];

const TIMESTAMP_TYPES: readonly TimestampType[] = ['NoTimestampType', 'CreateTime', 'LogAppendTime'];

function timestampTypeIndex(type: TimestampType): number {
  return type === 'CreateTime' ? 1 : type === 'LogAppendTime' ? 2 : 0;
}

function invalid(message: string): never {
  throw new SharesinkError('SHARESINK_BATCH_INVALID', message);
}

export function isWireBatch(value: unknown): value is WireBatch {
  return typeof value === 'object' && value !== null && (value as WireBatch).meta instanceof ArrayBuffer;
}

/** The buffers to pass as `transferList`; the batch is unusable on the sending side afterwards. */
export function transferables(batch: WireBatch): ArrayBuffer[] {
  return [batch.data, batch.meta];
}

/** Copies the records' bytes into one fresh buffer; the input records stay valid for a retry. */
export function encodeWireBatch(records: readonly RawRecord[]): WireBatch {
  const count = records.length;
  let headerCount = 0;
  let size = 0;
  // read once: a decoded record makes a new view each time its key or value is read
  const keys = new Array<Uint8Array | null>(count);
  const values = new Array<Uint8Array | null>(count);
  // indexed loops: a for-of over each record's (usually empty) header array cost an iterator per record
  for (let i = 0; i < count; i++) {
    const r = records[i]!;
    const key = (keys[i] = r.key);
    const value = (values[i] = r.value);
    size += (key?.byteLength ?? 0) + (value?.byteLength ?? 0);
    const headers = r.headers;
    for (let j = 0; j < headers.length; j++) {
      size += Buffer.byteLength(headers[j]!.key, 'utf8') + (headers[j]!.value?.byteLength ?? 0);
    }
    headerCount += headers.length;
  }
  if (size > MAX_DATA) invalid(`Batch of ${size} bytes exceeds the ${MAX_DATA}-byte wire limit`);

  const data = new ArrayBuffer(size);
  const bytes = Buffer.from(data);
  const meta = new ArrayBuffer(count * 16 + (count * RECORD_INTS + headerCount * HEADER_INTS) * 4);
  const floats = new Float64Array(meta, 0, count * 2);
  const ints = new Int32Array(meta, count * 16, count * RECORD_INTS);
  const hints = new Int32Array(meta, count * 16 + count * RECORD_INTS * 4, headerCount * HEADER_INTS);
  const topics: string[] = [];
  const topicIndex = new Map<string, number>();
  let pos = 0;
  let h = 0;
  const put = (value: Uint8Array | null, at: Int32Array, slot: number): void => {
    if (value === null) {
      at[slot] = 0;
      at[slot + 1] = -1;
      return;
    }
    bytes.set(value, pos);
    at[slot] = pos;
    at[slot + 1] = value.byteLength;
    pos += value.byteLength;
  };

  for (let i = 0; i < count; i++) {
    const r = records[i]!;
    if (!Number.isSafeInteger(r.offset) || r.offset < 0)
      invalid(`Offset ${r.offset} of ${r.topic} is not a safe integer`);
    if (!Number.isInteger(r.partition) || r.partition < -1 || r.partition > MAX_DATA) {
      invalid(`Partition ${r.partition} of ${r.topic} is not an int32`);
    }
    let topic = topicIndex.get(r.topic);
    if (topic === undefined) {
      topic = topics.push(r.topic) - 1;
      topicIndex.set(r.topic, topic);
    }
    const base = i * RECORD_INTS;
    floats[i * 2] = r.offset;
    floats[i * 2 + 1] = r.timestamp ?? NaN;
    ints[base + R_TOPIC] = topic;
    ints[base + R_PARTITION] = r.partition;
    ints[base + R_TIMESTAMP_TYPE] = timestampTypeIndex(r.timestampType);
    ints[base + R_DELIVERY_COUNT] = r.deliveryCount ?? -1;
    put(keys[i] ?? null, ints, base + R_KEY_START);
    put(values[i] ?? null, ints, base + R_VALUE_START);
    ints[base + R_HEADER_START] = h;
    ints[base + R_HEADER_COUNT] = r.headers.length;
    for (let j = 0; j < r.headers.length; j++) {
      const header = r.headers[j]!;
      const hb = h * HEADER_INTS;
      const keyLength = bytes.write(header.key, pos, 'utf8');
      hints[hb + H_KEY_START] = pos;
      hints[hb + H_KEY_LEN] = keyLength;
      pos += keyLength;
      put(header.value, hints, hb + H_VALUE_START);
      h++;
    }
  }
  return { count, headerCount, topics, data, meta };
}

/** Records whose keys, values and header values are Buffer views over `batch.data` (no copies). */
export function decodeWireBatch(batch: WireBatch): RawRecord[] {
  const { count, headerCount, topics, data, meta } = batch;
  const floats = new Float64Array(meta, 0, count * 2);
  const ints = new Int32Array(meta, count * 16, count * RECORD_INTS);
  const hints = new Int32Array(meta, count * 16 + count * RECORD_INTS * 4, headerCount * HEADER_INTS);
  const bytes = Buffer.from(data);
  const view = (start: number, length: number): Buffer | null =>
    length < 0 ? null : Buffer.from(data, start, length);
  const records = new Array<RawRecord>(count);
  for (let i = 0; i < count; i++) {
    const base = i * RECORD_INTS;
    const ownHeaders = ints[base + R_HEADER_COUNT]!;
    const headers: RawHeader[] = ownHeaders === 0 ? NO_HEADERS : new Array<RawHeader>(ownHeaders);
    const firstHeader = ints[base + R_HEADER_START]!;
    for (let j = 0; j < ownHeaders; j++) {
      const hb = (firstHeader + j) * HEADER_INTS;
      const keyStart = hints[hb + H_KEY_START]!;
      headers[j] = {
        key: bytes.toString('utf8', keyStart, keyStart + hints[hb + H_KEY_LEN]!),
        value: view(hints[hb + H_VALUE_START]!, hints[hb + H_VALUE_LEN]!),
      };
    }
    const timestamp = floats[i * 2 + 1]!;
    const deliveryCount = ints[base + R_DELIVERY_COUNT]!;
    records[i] = {
      topic: topics[ints[base + R_TOPIC]!]!,
      partition: ints[base + R_PARTITION]!,
      offset: floats[i * 2]!,
      timestamp: Number.isNaN(timestamp) ? null : timestamp,
      timestampType: TIMESTAMP_TYPES[ints[base + R_TIMESTAMP_TYPE]!] ?? 'NoTimestampType',
      key: view(ints[base + R_KEY_START]!, ints[base + R_KEY_LEN]!),
      value: view(ints[base + R_VALUE_START]!, ints[base + R_VALUE_LEN]!),
      headers,
      deliveryCount: deliveryCount < 0 ? undefined : deliveryCount,
    };
  }
  return records;
}
