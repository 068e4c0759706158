import { describe, expect, it } from 'vitest';
import { CorruptRecordBatchError, KafkaProtocolError } from '../../../../src/kafka/errors/kafka-errors.js';
import {
  decodeRecordBatches,
  decodeRecordBatchesSync,
} from '../../../../src/kafka/records/record-batches.js';
import { crc32c } from '../../../../src/kafka/records/crc32c.js';
import { decompressSync } from '../../../../src/kafka/records/compression.js';
import { encodeBatch, simpleBatch } from './record-batch-builder.js';

describe('crc32c', () => {
  it('matches the standard check values', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32c(Buffer.alloc(32))).toBe(0x8a9136aa);
    expect(crc32c(Buffer.alloc(32, 0xff))).toBe(0x62a8ab43);
    expect(crc32c(Buffer.from('xx123456789yy'), 2, 11)).toBe(0xe3069283);
  });
});

describe('decodeRecordBatches', () => {
  it('decodes offsets, timestamps, keys, values and headers (duplicates and order kept)', async () => {
    const b = simpleBatch(100, ['a', null, ''], { partitionLeaderEpoch: 7 });
    b.records[0]!.key = Buffer.from('k');
    b.records[0]!.headers = [
      { key: 'h', value: Buffer.from('1') },
      { key: 'h', value: null },
      { key: 'é', value: Buffer.alloc(0) },
    ];
    const out = await decodeRecordBatches(encodeBatch(b));
    expect(out.truncated).toBe(false);
    const [batch] = out.batches;
    expect(batch).toMatchObject({
      baseOffset: 100,
      lastOffset: 102,
      partitionLeaderEpoch: 7,
      compression: 0,
    });
    expect(
      batch!.records.map((r) => [
        r.offset,
        r.timestamp,
        r.key?.toString() ?? null,
        r.value?.toString() ?? null,
      ]),
    ).toEqual([
      [100, 1_700_000_000_000, 'k', 'a'],
      [101, 1_700_000_000_001, null, null],
      [102, 1_700_000_000_002, null, ''],
    ]);
    expect(batch!.records[0]!.headers.map((h) => [h.key, h.value?.toString() ?? null])).toEqual([
      ['h', '1'],
      ['h', null],
      ['é', ''],
    ]);
    expect(batch!.records[1]!.headers).toEqual([]);
  });

  it('records name the topic and partition given and their timestamp type, ready to hand out', () => {
    const create = decodeRecordBatchesSync(encodeBatch(simpleBatch(5, ['a'])), {
      topic: 'orders',
      partition: 3,
    });
    expect(create.batches[0]!.records[0]).toMatchObject({
      topic: 'orders',
      partition: 3,
      offset: 5,
      timestampType: 'CreateTime',
      deliveryCount: 0,
    });
    // key and value are views made when read, not a view kept per record (docs/jdbc-sink.md, Performance)
    const record = create.batches[0]!.records[0]!;
    expect(Object.keys(record)).not.toContain('value');
    expect(record.value!.toString()).toBe('a');
    expect(record.value).not.toBe(record.value);
    // the batch's bytes stay private: a log line or JSON of a record names its own key and value only
    expect(Object.keys(record)).not.toContain('bytes');
    expect(JSON.parse(JSON.stringify(record))).toMatchObject({
      offset: 5,
      key: null,
      value: { type: 'Buffer', data: [97] },
    });
    expect(JSON.stringify(record).length).toBeLessThan(300);
    const append = decodeRecordBatchesSync(
      encodeBatch(simpleBatch(0, ['a'], { logAppendTime: true, maxTimestamp: 42 })),
    );
    expect(append.batches[0]!.records[0]).toMatchObject({
      topic: '',
      partition: -1,
      timestampType: 'LogAppendTime',
    });
  });

  it('LogAppendTime: every record takes the batch maxTimestamp', () => {
    const out = decodeRecordBatchesSync(
      encodeBatch(simpleBatch(0, ['a', 'b'], { logAppendTime: true, maxTimestamp: 42 })),
    );
    expect(out.batches[0]!.timestampType).toBe(1);
    expect(out.batches[0]!.records.map((r) => r.timestamp)).toEqual([42, 42]);
  });

  it('skips control batches and counts them; includeControl returns them', () => {
    const bytes = Buffer.concat([
      encodeBatch(simpleBatch(0, ['a'])),
      encodeBatch(simpleBatch(1, ['marker'], { control: true, transactional: true, producerId: 9 })),
      encodeBatch(simpleBatch(2, ['b'])),
    ]);
    const out = decodeRecordBatchesSync(bytes);
    expect(out.batches.map((b) => b.baseOffset)).toEqual([0, 2]);
    expect(out.controlBatchesSkipped).toBe(1);
    const all = decodeRecordBatchesSync(bytes, { includeControl: true });
    expect(all.batches[1]).toMatchObject({ isControl: true, isTransactional: true, producerId: 9 });
  });

  it('stops at the last complete batch when MaxBytes cut the response', () => {
    const one = encodeBatch(simpleBatch(0, ['a', 'b']));
    const two = encodeBatch(simpleBatch(2, ['c']));
    for (const cut of [one.length + 5, one.length + 11, one.length + two.length - 1]) {
      const out = decodeRecordBatchesSync(Buffer.concat([one, two]).subarray(0, cut));
      expect(out).toMatchObject({ bytesUsed: one.length, truncated: true });
      expect(out.batches).toHaveLength(1);
    }
    expect(decodeRecordBatchesSync(Buffer.alloc(0))).toEqual({
      batches: [],
      bytesUsed: 0,
      truncated: false,
      controlBatchesSkipped: 0,
    });
  });

  it('a CRC mismatch names the batch; verifyCrc: false skips the check', () => {
    const bytes = encodeBatch(simpleBatch(10, ['abc']));
    bytes[bytes.length - 2] = bytes[bytes.length - 2]! ^ 0xff;
    let error: unknown;
    try {
      decodeRecordBatchesSync(bytes);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CorruptRecordBatchError);
    expect(error).toMatchObject({ code: 'SHARESINK_PROTOCOL_CORRUPT_BATCH', baseOffset: 10, lastOffset: 10 });
    expect(() => decodeRecordBatchesSync(bytes, { verifyCrc: false })).not.toThrow();
  });

  it('refuses magic other than 2 and impossible lengths', () => {
    const bytes = encodeBatch(simpleBatch(0, ['a']));
    const old = Buffer.from(bytes);
    old[16] = 1;
    expect(() => decodeRecordBatchesSync(old)).toThrow(/magic 1/);
    const short = Buffer.from(bytes);
    short.writeInt32BE(10, 8);
    expect(() => decodeRecordBatchesSync(short)).toThrow(KafkaProtocolError);
  });

  it('refuses a record count the bytes cannot hold', () => {
    const b = encodeBatch(simpleBatch(0, ['a']));
    b.writeInt32BE(1_000_000, 57);
    expect(() => decodeRecordBatchesSync(b, { verifyCrc: false })).toThrow(/claims 1000000 records/);
  });

  it.each(['gzip', 'snappy', 'snappy-xerial', 'lz4'] as const)(
    'decompresses %s (sync and async alike)',
    async (c) => {
      const values = Array.from({ length: 300 }, (_, i) => `v${i}-${'z'.repeat(i % 50)}`);
      const bytes = encodeBatch(simpleBatch(5, values, { compression: c }));
      const a = await decodeRecordBatches(bytes);
      expect(a.batches[0]!.records.map((r) => r.value!.toString())).toEqual(values);
      // field by field: a deep comparison of the records would compare the decompressed bytes each holds
      const view = (d: typeof a) => d.batches[0]!.records.map((r) => [r.offset, r.key, r.value, r.headers]);
      expect(view(decodeRecordBatchesSync(bytes))).toEqual(view(a));
    },
  );

  it('garbage inside a compressed batch (CRC recomputed) is a CorruptRecordBatchError', () => {
    const bytes = encodeBatch(simpleBatch(5, ['a', 'b'], { compression: 'gzip' }));
    bytes.fill(0x41, 61);
    bytes.writeUInt32BE(crc32c(bytes, 21, bytes.length), 17);
    expect(() => decodeRecordBatchesSync(bytes)).toThrow(CorruptRecordBatchError);
  });

  it('zstd frames decode (fzstd)', () => {
    // a one-raw-block zstd frame for "hello", laid out by hand (magic, FHD 0x20, FCS 5, block header 0x000029)
    const frame = Buffer.from('28b52ffd2005290000' + '68656c6c6f', 'hex');
    expect(decompressSync(4, frame).toString()).toBe('hello');
  });
});
