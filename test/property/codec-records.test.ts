// RecordBatch v2 decoding: round trips over random batches (every codec we can compress in a test),
// truncation at any byte, corruption detected by the CRC, and random input failing only with typed errors.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { CorruptRecordBatchError, KafkaProtocolError } from '../../src/kafka/errors/kafka-errors.js';
import {
  decodeRecordBatches,
  decodeRecordBatchesSync,
  type RecordBatch,
} from '../../src/kafka/records/record-batches.js';
import { encodeBatch, type TestBatch, type TestRecord } from '../unit/kafka/records/record-batch-builder.js';

const bytesOrNull: fc.Arbitrary<Buffer | null> = fc.option(
  fc.uint8Array({ maxLength: 40 }).map((b): Buffer => Buffer.from(b)),
  { nil: null, freq: 5 },
);

const recordArb: fc.Arbitrary<Omit<TestRecord, 'offsetDelta'>> = fc.record({
  timestampDelta: fc.integer({ min: -1_000_000, max: 1_000_000_000 }),
  key: bytesOrNull,
  value: bytesOrNull,
  headers: fc.array(fc.record({ key: fc.string({ unit: 'grapheme', maxLength: 8 }), value: bytesOrNull }), {
    maxLength: 3,
  }),
});

const batchArb: fc.Arbitrary<Omit<TestBatch, 'baseOffset'>> = fc
  .record({
    partitionLeaderEpoch: fc.integer({ min: -1, max: 1000 }),
    compression: fc.constantFrom('none', 'none', 'gzip', 'snappy', 'snappy-xerial', 'lz4') as fc.Arbitrary<
      TestBatch['compression']
    >,
    logAppendTime: fc.boolean(),
    transactional: fc.boolean(),
    control: fc.oneof(
      { arbitrary: fc.constant(false), weight: 4 },
      { arbitrary: fc.constant(true), weight: 1 },
    ),
    baseTimestamp: fc.integer({ min: 0, max: 2 ** 42 }),
    maxTimestamp: fc.integer({ min: 0, max: 2 ** 42 }),
    producerId: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 2 ** 40 })),
    producerEpoch: fc.integer({ min: -1, max: 32767 }),
    baseSequence: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
    records: fc.array(recordArb, { maxLength: 6 }),
    gap: fc.integer({ min: 0, max: 3 }),
  })
  .map(({ gap, records, ...b }) => ({
    ...b,
    // offsets with holes (as after compaction): delta i * (gap + 1)
    records: records.map((r, i) => ({ ...r, offsetDelta: i * (gap + 1) })),
    lastOffsetDelta: Math.max(0, (records.length - 1) * (gap + 1)),
  }));

/** 1–4 batches at increasing offsets, encoded, with the byte offset where each one ends. */
const streamArb = fc.array(batchArb, { minLength: 1, maxLength: 4 }).chain((bs) =>
  fc.integer({ min: 0, max: 2 ** 45 }).map((start) => {
    let offset = start;
    const batches: TestBatch[] = [];
    for (const b of bs) {
      batches.push({ ...b, baseOffset: offset });
      offset += b.lastOffsetDelta + 1;
    }
    const encoded = batches.map(encodeBatch);
    const ends: number[] = [];
    let end = 0;
    for (const e of encoded) ends.push((end += e.length));
    return { batches, bytes: Buffer.concat(encoded), ends };
  }),
);

function expected(b: TestBatch): Partial<RecordBatch> {
  return {
    baseOffset: b.baseOffset,
    lastOffset: b.baseOffset + b.lastOffsetDelta,
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    isControl: b.control,
    isTransactional: b.transactional,
    timestampType: b.logAppendTime ? 1 : 0,
    baseTimestamp: b.baseTimestamp,
    maxTimestamp: b.maxTimestamp,
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    records: b.records.map((r) => ({
      topic: '',
      partition: -1,
      offset: b.baseOffset + r.offsetDelta,
      timestamp: b.logAppendTime ? b.maxTimestamp : b.baseTimestamp + r.timestampDelta,
      timestampType: b.logAppendTime ? ('LogAppendTime' as const) : ('CreateTime' as const),
      key: r.key,
      value: r.value,
      headers: r.headers,
      deliveryCount: 0,
    })),
  };
}

describe('decodeRecordBatches', () => {
  test.prop([streamArb])('round trip (control batches skipped and counted)', async ({ batches, bytes }) => {
    const out = await decodeRecordBatches(bytes);
    const data = batches.filter((b) => !b.control);
    expect(out.batches).toMatchObject(data.map(expected));
    expect(out.controlBatchesSkipped).toBe(batches.length - data.length);
    expect(out.truncated).toBe(false);
    expect(out.bytesUsed).toBe(bytes.length);
    expect(decodeRecordBatchesSync(bytes)).toEqual(out);
  });

  test.prop([streamArb])('includeControl returns every batch', async ({ batches, bytes }) => {
    const out = await decodeRecordBatches(bytes, { includeControl: true });
    expect(out.batches).toMatchObject(batches.map(expected));
  });

  test.prop([streamArb, fc.nat()])(
    'a cut anywhere: the complete batches before it, never an error',
    async (s, n) => {
      const cut = n % (s.bytes.length + 1);
      const out = decodeRecordBatchesSync(s.bytes.subarray(0, cut), { includeControl: true });
      const complete = s.ends.filter((e) => e <= cut).length;
      expect(out.batches.map((b) => b.baseOffset)).toEqual(
        s.batches.slice(0, complete).map((b) => b.baseOffset),
      );
      expect(out.bytesUsed).toBe(complete === 0 ? 0 : s.ends[complete - 1]);
      expect(out.truncated).toBe(cut !== out.bytesUsed);
    },
  );

  test.prop([streamArb, fc.nat(), fc.integer({ min: 1, max: 255 })])(
    'a changed byte inside the CRC-covered part of a batch: CorruptRecordBatchError naming that batch',
    async (s, n, delta) => {
      const i = n % s.batches.length;
      const start = i === 0 ? 0 : s.ends[i - 1]!;
      const end = s.ends[i]!;
      const at = start + 17 + (n % (end - start - 17)); // CRC field or attributes..end
      const bytes = Buffer.from(s.bytes);
      bytes[at] = (bytes[at]! + delta) & 0xff;
      let error: unknown;
      try {
        decodeRecordBatchesSync(bytes, { includeControl: true });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(CorruptRecordBatchError);
      expect((error as CorruptRecordBatchError).baseOffset).toBe(s.batches[i]!.baseOffset);
    },
  );

  test.prop([
    streamArb,
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 5 }),
  ])(
    'mutated bytes without CRC checks: a result or KafkaProtocolError, nothing else',
    async (s, mutations) => {
      const bytes = Buffer.from(s.bytes);
      for (const [at, v] of mutations) bytes[at % bytes.length] = v;
      for (const opts of [{ verifyCrc: false }, {}]) {
        try {
          await decodeRecordBatches(bytes, opts);
        } catch (err) {
          expect(err).toBeInstanceOf(KafkaProtocolError);
        }
      }
    },
  );

  test.prop([fc.uint8Array({ maxLength: 300 })])('random bytes: a result or KafkaProtocolError', (raw) => {
    try {
      decodeRecordBatchesSync(Buffer.from(raw), { verifyCrc: false, includeControl: true });
    } catch (err) {
      expect(err).toBeInstanceOf(KafkaProtocolError);
    }
  });
});
