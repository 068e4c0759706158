import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { selectAcquired } from '../../src/kafka/share/acquired-records.js';
import type { DecodedBatch } from '../../src/kafka/share/transport.js';
import { decodedRecord } from '../unit/kafka/share/decoded-record.js';

const rec = (offset: number) => decodedRecord(offset);

/** Data: a set of offsets split into batches (some control); acquired: disjoint ranges over [0, 60]. */
const scenario = fc
  .record({
    present: fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 60 }),
    controlEvery: fc.integer({ min: 0, max: 7 }),
    cuts: fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 10 }),
    counts: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 12, maxLength: 12 }),
  })
  .map(({ present, controlEvery, cuts, counts }) => {
    const offsets = [...present].sort((a, b) => a - b);
    const batches: DecodedBatch[] = [];
    let cur: number[] = [];
    const flush = (i: number) => {
      if (cur.length === 0) return;
      const isControl = controlEvery > 0 && i % controlEvery === 0;
      // batches alternate between the two timestamp types, so a record given another batch's type shows
      const timestampType = batches.length % 2 === 0 ? 0 : 1;
      batches.push({
        baseOffset: cur[0]!,
        lastOffset: cur.at(-1)!,
        isControl,
        timestampType,
        records: cur.map(rec),
      });
      cur = [];
    };
    offsets.forEach((o, i) => {
      cur.push(o);
      if (i % 4 === 3) flush(i);
    });
    flush(offsets.length);
    const bounds = [...cuts].sort((a, b) => a - b);
    const ranges = [];
    for (let i = 0; i + 1 < bounds.length; i += 2) {
      ranges.push({ firstOffset: bounds[i]!, lastOffset: bounds[i + 1]!, deliveryCount: counts[i]! });
    }
    return { batches, ranges };
  });

describe('selectAcquired', () => {
  test.prop([scenario])('every acquired offset is either a delivered record or a gap, exactly once', (s) => {
    const { records, gaps } = selectAcquired(s.batches, s.ranges);
    const acquired = new Set<number>();
    for (const r of s.ranges) for (let o = r.firstOffset; o <= r.lastOffset; o++) acquired.add(o);
    const dataOffsets = new Set(
      s.batches.filter((b) => !b.isControl).flatMap((b) => b.records.map((x) => x.offset)),
    );

    const delivered = records.map((x) => x.offset);
    expect(new Set(delivered).size).toBe(delivered.length);
    expect(new Set(gaps).size).toBe(gaps.length);
    for (const o of delivered) {
      expect(acquired.has(o)).toBe(true);
      expect(dataOffsets.has(o)).toBe(true);
    }
    for (const o of gaps) {
      expect(acquired.has(o)).toBe(true);
      expect(dataOffsets.has(o)).toBe(false);
    }
    expect(delivered.length + gaps.length).toBe(acquired.size);
    for (const x of records) {
      const range = s.ranges.find((r) => x.offset >= r.firstOffset && x.offset <= r.lastOffset)!;
      expect(x.deliveryCount).toBe(range.deliveryCount);
      // the decoded record itself, not a copy: one object per record from the bytes to the pool
      expect(s.batches.some((b) => b.records.includes(x))).toBe(true);
    }
  });

  it('drops records outside the acquired ranges', () => {
    const batches: DecodedBatch[] = [
      { baseOffset: 0, lastOffset: 4, isControl: false, timestampType: 0, records: [0, 1, 2, 3, 4].map(rec) },
    ];
    const { records, gaps } = selectAcquired(batches, [{ firstOffset: 2, lastOffset: 3, deliveryCount: 2 }]);
    expect(records.map((r) => [r.offset, r.deliveryCount])).toEqual([
      [2, 2],
      [3, 2],
    ]);
    expect(gaps).toEqual([]);
  });
});
