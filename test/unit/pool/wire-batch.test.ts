import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { RawRecord } from '../../../src/connect/raw-record.js';
import { decodeWireBatch, encodeWireBatch, transferables } from '../../../src/pool/wire-batch.js';

const bytes = fc.option(fc.uint8Array({ maxLength: 40 }), { nil: null });
const rawRecord: fc.Arbitrary<RawRecord> = fc.record(
  {
    topic: fc.constantFrom('orders', 'payments', 'ünïcödé-topic', ''),
    partition: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    offset: fc.maxSafeNat(),
    timestamp: fc.option(fc.integer({ min: -1, max: 2 ** 45 }), { nil: null }),
    timestampType: fc.constantFrom('CreateTime', 'LogAppendTime', 'NoTimestampType'),
    key: bytes,
    value: bytes,
    headers: fc.array(fc.record({ key: fc.string({ unit: 'grapheme' }), value: bytes }), { maxLength: 4 }),
    deliveryCount: fc.option(fc.integer({ min: 1, max: 32767 }), { nil: undefined }),
  },
  { requiredKeys: ['topic', 'partition', 'offset', 'timestamp', 'timestampType', 'key', 'value', 'headers'] },
);

/** Buffers and plain Uint8Arrays compare by content. */
function normalise(records: readonly RawRecord[]): unknown {
  const b = (v: Uint8Array | null): number[] | null => (v === null ? null : [...v]);
  return records.map((r) => ({
    ...r,
    key: b(r.key),
    value: b(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: b(h.value) })),
    deliveryCount: r.deliveryCount,
  }));
}

describe('WireBatch', () => {
  test.prop([fc.array(rawRecord, { maxLength: 30 })])('round-trips any batch', (records) => {
    expect(normalise(decodeWireBatch(encodeWireBatch(records)))).toEqual(normalise(records));
  });

  test.prop([fc.array(rawRecord, { maxLength: 10 })])('round-trips through a real transfer', (records) => {
    const wire = encodeWireBatch(records);
    const moved = structuredClone(wire, { transfer: transferables(wire) });
    expect(wire.data.byteLength).toBe(0);
    expect(normalise(decodeWireBatch(moved))).toEqual(normalise(records));
  });

  it('uses one data buffer for all bytes and shares the topic table', () => {
    const rec = (topic: string, offset: number): RawRecord => ({
      topic,
      partition: 0,
      offset,
      timestamp: 1,
      timestampType: 'CreateTime',
      key: Buffer.from('k'),
      value: Buffer.from('vv'),
      headers: [{ key: 'h', value: Buffer.from('x') }],
    });
    const wire = encodeWireBatch([rec('a', 1), rec('b', 2), rec('a', 3)]);
    expect(wire.topics).toEqual(['a', 'b']);
    expect(wire.data.byteLength).toBe(3 * (1 + 2 + 1 + 1));
    const decoded = decodeWireBatch(wire);
    expect(decoded[2]!.value!.buffer).toBe(wire.data);
  });

  it('leaves the input records intact so a batch can be encoded again for a retry', () => {
    const value = Buffer.from('payload');
    const records: RawRecord[] = [
      {
        topic: 't',
        partition: 0,
        offset: 0,
        timestamp: null,
        timestampType: 'NoTimestampType',
        key: null,
        value,
        headers: [],
      },
    ];
    const wire = encodeWireBatch(records);
    structuredClone(wire, { transfer: transferables(wire) });
    expect(value.toString()).toBe('payload');
    expect(decodeWireBatch(encodeWireBatch(records))[0]!.value!.toString()).toBe('payload');
  });

  it('rejects offsets that a number cannot hold exactly', () => {
    const bad: RawRecord = {
      topic: 't',
      partition: 0,
      offset: 2 ** 53,
      timestamp: null,
      timestampType: 'NoTimestampType',
      key: null,
      value: null,
      headers: [],
    };
    expect(() => encodeWireBatch([bad])).toThrow(
      expect.objectContaining({ code: 'SHARESINK_BATCH_INVALID' }),
    );
  });
});
