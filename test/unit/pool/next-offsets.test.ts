import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nextOffsets } from '../../../src/pool/running-puts.js';

/** The plain definition: per partition, one past the highest offset seen. */
function reference(records: readonly { topic: string; partition: number; offset: number }[]) {
  const max = new Map<string, { topic: string; partition: number; offset: number }>();
  for (const r of records) {
    const key = `${r.topic}\u0000${r.partition}`;
    const seen = max.get(key);
    if (!seen || seen.offset <= r.offset)
      max.set(key, { topic: r.topic, partition: r.partition, offset: r.offset + 1 });
  }
  return [...max.values()];
}

const sorted = (tpos: readonly { topic: string; partition: number; offset: number }[]) =>
  [...tpos].sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);

describe('nextOffsets (what preCommit receives)', () => {
  it('gives one past the highest offset of each partition, runs interleaved and out of order', () => {
    const out = nextOffsets([
      { topic: 'a', partition: 0, offset: 5 },
      { topic: 'a', partition: 0, offset: 6 },
      { topic: 'a', partition: 1, offset: 9 },
      { topic: 'b', partition: 0, offset: 1 },
      { topic: 'a', partition: 0, offset: 3 },
      { topic: 'a', partition: 1, offset: 12 },
      { topic: 'a', partition: 1, offset: 10 },
    ]);
    expect(sorted(out)).toEqual([
      { topic: 'a', partition: 0, offset: 7 },
      { topic: 'a', partition: 1, offset: 13 },
      { topic: 'b', partition: 0, offset: 2 },
    ]);
  });

  it('is empty for no records', () => {
    expect(nextOffsets([])).toEqual([]);
  });

  it('agrees with the per-record definition for any records', () => {
    const record = fc.record({
      topic: fc.constantFrom('a', 'b', 'a\u00001'),
      partition: fc.integer({ min: 0, max: 3 }),
      offset: fc.integer({ min: 0, max: 1000 }),
    });
    fc.assert(
      fc.property(fc.array(record, { maxLength: 60 }), (records) => {
        expect(sorted(nextOffsets(records))).toEqual(sorted(reference(records)));
      }),
    );
  });
});
