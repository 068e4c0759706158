/**
 * RecordBatch v2 decoding for the `Records` bytes of a ShareFetch partition.
 *
 * Our own decoder rather than kafkajs's (see docs/adr/0001-wire-layer.md): one pass per batch with plain
 * loops, offsets and timestamps as numbers, key and value read from the (decompressed) batch bytes when
 * asked (fetched-record.ts) — the only per-record allocations are the record object and, when it has
 * headers, its header array and their value views. CRC-32C is verified by default (kafkajs does not check
 * it).
 *
 * Rules:
 * - A partial batch at the end (the broker cut the response at MaxBytes) is not an error: decoding stops at
 *   the last complete batch and {@link DecodedRecords.truncated} says so.
 * - Control batches (transaction markers) are skipped unless `includeControl` is set.
 * - A batch whose CRC does not match or that does not decompress throws {@link CorruptRecordBatchError}
 *   carrying the batch's offset range; any other malformed byte throws {@link KafkaProtocolError}.
 */
import { MissingPackageError } from '../../optional-package.js';
import { CorruptRecordBatchError, KafkaProtocolError } from '../errors/kafka-errors.js';
import { compressionName, decompress, decompressSync } from './compression.js';
import { crc32c } from './crc32c.js';
import { Reader } from '../protocol/reader.js';
import { FetchedRecord, type KafkaRecord, type RecordHeader } from './fetched-record.js';

export type { KafkaRecord, RecordHeader } from './fetched-record.js';

export interface RecordBatch {
  readonly baseOffset: number;
  /** baseOffset + lastOffsetDelta: the last offset the batch covers (records may be missing after compaction). */
  readonly lastOffset: number;
  readonly partitionLeaderEpoch: number;
  readonly attributes: number;
  /** 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd. */
  readonly compression: number;
  /** 0 CreateTime, 1 LogAppendTime. */
  readonly timestampType: 0 | 1;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  readonly baseTimestamp: number;
  readonly maxTimestamp: number;
  /** -1 when not idempotent / transactional. */
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly records: KafkaRecord[];
}

export interface DecodeRecordsOptions {
  /** The topic and partition the bytes came from, copied onto each record. */
  topic?: string;
  partition?: number;
  /** Verify each batch's CRC-32C. Default true. */
  verifyCrc?: boolean;
  /** Return control batches (transaction markers) too. Default false. */
  includeControl?: boolean;
}

export interface DecodedRecords {
  /** Complete batches, in order (control batches only with `includeControl`). */
  readonly batches: RecordBatch[];
  /** Bytes of complete batches (the rest, if any, is a partial batch). */
  readonly bytesUsed: number;
  /** True when the input ended with a partial batch. */
  readonly truncated: boolean;
  /** Control batches skipped (their offsets are not application records: acknowledge them as gaps). */
  readonly controlBatchesSkipped: number;
}

const EMPTY_HEADERS: readonly RecordHeader[] = Object.freeze([]);

// Offsets inside a batch (from its first byte).
const LENGTH_OFFSET = 8;
const LOG_OVERHEAD = 12; // baseOffset + batchLength
const MAGIC_OFFSET = 16;
const CRC_OFFSET = 17;
const ATTRIBUTES_OFFSET = 21;
const HEADER_SIZE = 61;
const MIN_RECORD_SIZE = 7; // length, attributes, timestampDelta, offsetDelta, keyLength, valueLength, headerCount

const COMPRESSION_MASK = 0x07;
const TIMESTAMP_TYPE_MASK = 0x08;
const TRANSACTIONAL_MASK = 0x10;
const CONTROL_MASK = 0x20;

interface BatchHeader {
  start: number;
  end: number;
  baseOffset: number;
  lastOffset: number;
  partitionLeaderEpoch: number;
  attributes: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

/** Reads the header of the batch at `pos`, or returns undefined when the bytes left hold no complete batch. */
function readBatchHeader(buf: Buffer, pos: number, verifyCrc: boolean): BatchHeader | undefined {
  if (buf.length - pos < LOG_OVERHEAD) return undefined;
  const r = new Reader(buf, pos);
  const baseOffset = r.int64();
  const batchLength = r.int32();
  if (batchLength < HEADER_SIZE - LOG_OVERHEAD) {
    throw new KafkaProtocolError(`record batch at offset ${baseOffset} has invalid length ${batchLength}`, {
      position: pos + LENGTH_OFFSET,
    });
  }
  const end = pos + LOG_OVERHEAD + batchLength;
  if (end > buf.length) return undefined; // partial batch: the response was cut at MaxBytes
  const magic = buf.readInt8(pos + MAGIC_OFFSET);
  if (magic !== 2) {
    throw new KafkaProtocolError(
      `record batch at offset ${baseOffset} has magic ${magic}; only v2 is supported`,
      {
        position: pos + MAGIC_OFFSET,
      },
    );
  }
  // The CRC first: every field after it is only trusted once it matches.
  if (verifyCrc) {
    const expected = buf.readUInt32BE(pos + CRC_OFFSET);
    const actual = crc32c(buf, pos + ATTRIBUTES_OFFSET, end);
    if (expected !== actual) {
      const lastOffset = baseOffset + buf.readInt32BE(pos + ATTRIBUTES_OFFSET + 2);
      throw new CorruptRecordBatchError(
        `record batch ${baseOffset}..${lastOffset} failed its CRC-32C check ` +
          `(stored ${expected.toString(16)}, computed ${actual.toString(16)})`,
        baseOffset,
        lastOffset,
      );
    }
  }
  r.pos = pos + ATTRIBUTES_OFFSET;
  const attributes = r.int16();
  const lastOffsetDelta = r.int32();
  const h: BatchHeader = {
    start: pos,
    end,
    baseOffset,
    lastOffset: baseOffset + lastOffsetDelta,
    partitionLeaderEpoch: buf.readInt32BE(pos + LOG_OVERHEAD),
    attributes,
    baseTimestamp: r.int64(),
    maxTimestamp: r.int64(),
    producerId: r.int64(),
    producerEpoch: r.int16(),
    baseSequence: r.int32(),
    recordCount: r.int32(),
  };
  if (h.recordCount < 0) {
    throw new KafkaProtocolError(`record batch at offset ${baseOffset} has record count ${h.recordCount}`);
  }
  return h;
}

/** Decodes `count` records from `buf[start..end)` (uncompressed record area). */
function readRecords(
  h: BatchHeader,
  buf: Buffer,
  start: number,
  end: number,
  where: RecordSource,
): KafkaRecord[] {
  const count = h.recordCount;
  if (count * MIN_RECORD_SIZE > end - start) {
    throw new KafkaProtocolError(
      `record batch ${h.baseOffset}..${h.lastOffset} claims ${count} records in ${end - start} bytes`,
    );
  }
  const logAppendTime = (h.attributes & TIMESTAMP_TYPE_MASK) !== 0;
  const timestampType = logAppendTime ? 'LogAppendTime' : 'CreateTime';
  const { topic, partition } = where;
  const baseOffset = h.baseOffset;
  const baseTimestamp = h.baseTimestamp;
  const records = new Array<KafkaRecord>(count);
  const r = new Reader(buf, start, end);
  for (let i = 0; i < count; i++) {
    const length = r.varint();
    if (length < MIN_RECORD_SIZE - 1 || length > r.remaining()) {
      throw r.fail(`record ${i} of batch ${baseOffset} has invalid length ${length}`);
    }
    // One reader for the whole area (no per-record reader): a record that reads past its own length is
    // caught by the check below, and nothing can read past `end`.
    const recordEnd = r.pos + length;
    r.pos++; // attributes: unused
    const timestampDelta = r.varlong();
    const offsetDelta = r.varint();
    const keyLength = r.varint();
    const keyAt = r.pos;
    if (keyLength > 0) r.skip(keyLength);
    const valueLength = r.varint();
    const valueAt = r.pos;
    if (valueLength > 0) r.skip(valueLength);
    const headerCount = r.varint();
    let headers = EMPTY_HEADERS;
    if (headerCount !== 0) {
      if (headerCount < 0 || headerCount * 2 > recordEnd - r.pos) {
        throw r.fail(`record ${i} of batch ${baseOffset} has invalid header count ${headerCount}`);
      }
      const hs = new Array<RecordHeader>(headerCount);
      for (let j = 0; j < headerCount; j++) {
        const kl = r.varint();
        if (kl < 0) throw r.fail('null header key');
        r.need(kl);
        const hk = buf.toString('utf8', r.pos, r.pos + kl);
        r.pos += kl;
        const vl = r.varint();
        hs[j] = { key: hk, value: vl < 0 ? null : r.view(vl) };
      }
      headers = hs;
    }
    if (r.pos !== recordEnd) {
      throw r.fail(`record ${i} of batch ${baseOffset} does not end at its declared length ${length}`);
    }
    records[i] = new FetchedRecord(
      topic,
      partition,
      baseOffset + offsetDelta,
      logAppendTime ? h.maxTimestamp : baseTimestamp + timestampDelta,
      timestampType,
      headers,
      buf,
      keyAt,
      keyLength,
      valueAt,
      valueLength,
    );
  }
  return records;
}

function toBatch(h: BatchHeader, records: KafkaRecord[]): RecordBatch {
  const a = h.attributes;
  return {
    baseOffset: h.baseOffset,
    lastOffset: h.lastOffset,
    partitionLeaderEpoch: h.partitionLeaderEpoch,
    attributes: a,
    compression: a & COMPRESSION_MASK,
    timestampType: a & TIMESTAMP_TYPE_MASK ? 1 : 0,
    isTransactional: (a & TRANSACTIONAL_MASK) !== 0,
    isControl: (a & CONTROL_MASK) !== 0,
    baseTimestamp: h.baseTimestamp,
    maxTimestamp: h.maxTimestamp,
    producerId: h.producerId,
    producerEpoch: h.producerEpoch,
    baseSequence: h.baseSequence,
    records,
  };
}

function corrupt(h: BatchHeader, err: unknown): CorruptRecordBatchError {
  const codec = compressionName(h.attributes & COMPRESSION_MASK);
  const reason = err instanceof Error ? err.message : String(err);
  return new CorruptRecordBatchError(
    `record batch ${h.baseOffset}..${h.lastOffset} (${codec}) could not be decompressed: ${reason}`,
    h.baseOffset,
    h.lastOffset,
    err,
  );
}

interface RecordSource {
  readonly topic: string;
  readonly partition: number;
}

function decodeUncompressed(h: BatchHeader, buf: Buffer, where: RecordSource): RecordBatch {
  return toBatch(h, readRecords(h, buf, h.start + HEADER_SIZE, h.end, where));
}

function decodeDecompressed(h: BatchHeader, plain: Buffer, where: RecordSource): RecordBatch {
  return toBatch(h, readRecords(h, plain, 0, plain.length, where));
}

/**
 * The decoding walk shared by the async and sync entry points: it yields each compressed batch's header
 * and resumes with the decompressed bytes, so only the decompression differs between the two.
 */
function* decodeSteps(
  buf: Buffer,
  options: DecodeRecordsOptions,
): Generator<BatchHeader, DecodedRecords, Buffer> {
  const verifyCrc = options.verifyCrc ?? true;
  const includeControl = options.includeControl ?? false;
  const where: RecordSource = { topic: options.topic ?? '', partition: options.partition ?? -1 };
  const batches: RecordBatch[] = [];
  let controlBatchesSkipped = 0;
  let pos = 0;
  for (;;) {
    const h = readBatchHeader(buf, pos, verifyCrc);
    if (h === undefined) break;
    pos = h.end;
    if ((h.attributes & CONTROL_MASK) !== 0 && !includeControl) {
      controlBatchesSkipped++;
      continue;
    }
    if ((h.attributes & COMPRESSION_MASK) === 0) batches.push(decodeUncompressed(h, buf, where));
    else batches.push(decodeDecompressed(h, yield h, where));
  }
  return { batches, bytesUsed: pos, truncated: pos < buf.length, controlBatchesSkipped };
}

/** A missing codec package is a setup problem, not a corrupt batch: let it through unchanged. */
function asDecompressError(h: BatchHeader, err: unknown): unknown {
  if (err instanceof MissingPackageError) return err;
  if (err instanceof KafkaProtocolError && err.code === 'SHARESINK_PROTOCOL_CODEC_UNAVAILABLE') return err;
  return corrupt(h, err);
}

const payload = (h: BatchHeader, buf: Buffer): Buffer => buf.subarray(h.start + HEADER_SIZE, h.end);

/**
 * Decodes every complete batch in `buf`. Compressed batches are decompressed off the main thread where the
 * codec allows (gzip, snappy, lz4); uncompressed batches are decoded without awaiting anything.
 */
export async function decodeRecordBatches(
  buf: Buffer,
  options: DecodeRecordsOptions = {},
): Promise<DecodedRecords> {
  const steps = decodeSteps(buf, options);
  for (let step = steps.next(); ;) {
    if (step.done) return step.value;
    const h = step.value;
    let plain: Buffer;
    try {
      plain = await decompress(h.attributes & COMPRESSION_MASK, payload(h, buf));
    } catch (err) {
      throw asDecompressError(h, err);
    }
    step = steps.next(plain);
  }
}

/** {@link decodeRecordBatches}, decompressing synchronously on the calling thread. */
export function decodeRecordBatchesSync(buf: Buffer, options: DecodeRecordsOptions = {}): DecodedRecords {
  const steps = decodeSteps(buf, options);
  for (let step = steps.next(); ;) {
    if (step.done) return step.value;
    const h = step.value;
    let plain: Buffer;
    try {
      plain = decompressSync(h.attributes & COMPRESSION_MASK, payload(h, buf));
    } catch (err) {
      throw asDecompressError(h, err);
    }
    step = steps.next(plain);
  }
}
