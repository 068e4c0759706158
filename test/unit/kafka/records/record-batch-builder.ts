// Test-only RecordBatch v2 encoder (the layout of the Kafka protocol docs), used to feed the decoder in
// src/kafka/records/record-batches.ts with batches whose every field is known. zstd is not offered: we have no compressor
// for it (the integration test covers zstd with batches the broker compressed).
import { gzipSync } from 'node:zlib';
import { crc32c } from '../../../../src/kafka/records/crc32c.js';
import { lz4, snappy } from '../../../../src/kafka/records/compression.js';
import { Writer } from '../../../../src/kafka/protocol/writer.js';

export interface TestHeader {
  key: string;
  value: Buffer | null;
}

export interface TestRecord {
  timestampDelta: number;
  offsetDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: TestHeader[];
}

export type TestCompression = 'none' | 'gzip' | 'snappy' | 'snappy-xerial' | 'lz4';

export interface TestBatch {
  baseOffset: number;
  partitionLeaderEpoch: number;
  compression: TestCompression;
  logAppendTime: boolean;
  transactional: boolean;
  control: boolean;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  records: TestRecord[];
}

const CODEC_ID: Record<TestCompression, number> = { none: 0, gzip: 1, snappy: 2, 'snappy-xerial': 2, lz4: 3 };

export function encodeRecord(r: TestRecord): Buffer {
  const body = new Writer();
  body.int8(0);
  body.varlong(r.timestampDelta);
  body.varint(r.offsetDelta);
  if (r.key === null) body.varint(-1);
  else body.varint(r.key.length).raw(r.key);
  if (r.value === null) body.varint(-1);
  else body.varint(r.value.length).raw(r.value);
  body.varint(r.headers.length);
  for (const h of r.headers) {
    const k = Buffer.from(h.key, 'utf8');
    body.varint(k.length).raw(k);
    if (h.value === null) body.varint(-1);
    else body.varint(h.value.length).raw(h.value);
  }
  const b = body.finish();
  return Buffer.from(new Writer().varint(b.length).raw(b).finish());
}

function xerialFrame(raw: Buffer): Buffer {
  // magic, version 1, compatible version 1, then one block per 8 KiB of input
  const parts: Buffer[] = [
    Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]),
  ];
  for (let i = 0; i < raw.length || i === 0; i += 8192) {
    const block = snappy().compressSync(raw.subarray(i, i + 8192));
    const len = Buffer.alloc(4);
    len.writeInt32BE(block.length);
    parts.push(len, block);
    if (raw.length === 0) break;
  }
  return Buffer.concat(parts);
}

function compress(c: TestCompression, raw: Buffer): Buffer {
  switch (c) {
    case 'none':
      return raw;
    case 'gzip':
      return gzipSync(raw);
    case 'snappy':
      return snappy().compressSync(raw);
    case 'snappy-xerial':
      return xerialFrame(raw);
    case 'lz4':
      return lz4().compressFrameSync(raw);
  }
}

export function encodeBatch(b: TestBatch): Buffer {
  const area = compress(b.compression, Buffer.concat(b.records.map(encodeRecord)));
  const attributes =
    CODEC_ID[b.compression] |
    (b.logAppendTime ? 0x08 : 0) |
    (b.transactional ? 0x10 : 0) |
    (b.control ? 0x20 : 0);
  const w = new Writer(61 + area.length);
  w.int64(b.baseOffset);
  w.int32(49 + area.length);
  w.int32(b.partitionLeaderEpoch);
  w.int8(2);
  w.uint32(0); // CRC, patched below
  w.int16(attributes);
  w.int32(b.lastOffsetDelta);
  w.int64(b.baseTimestamp);
  w.int64(b.maxTimestamp);
  w.int64(b.producerId);
  w.int16(b.producerEpoch);
  w.int32(b.baseSequence);
  w.int32(b.records.length);
  w.raw(area);
  const out = Buffer.from(w.finish());
  out.writeUInt32BE(crc32c(out, 21, out.length), 17);
  return out;
}

/** A simple uncompressed batch: records at consecutive offsets from `baseOffset`. */
export function simpleBatch(
  baseOffset: number,
  values: (string | null)[],
  overrides: Partial<TestBatch> = {},
): TestBatch {
  return {
    baseOffset,
    partitionLeaderEpoch: 0,
    compression: 'none',
    logAppendTime: false,
    transactional: false,
    control: false,
    lastOffsetDelta: Math.max(0, values.length - 1),
    baseTimestamp: 1_700_000_000_000,
    maxTimestamp: 1_700_000_000_000 + values.length,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    records: values.map((v, i) => ({
      timestampDelta: i,
      offsetDelta: i,
      key: null,
      value: v === null ? null : Buffer.from(v),
      headers: [],
    })),
    ...overrides,
  };
}
