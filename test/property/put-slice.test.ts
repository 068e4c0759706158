/** Cutting one put of several batches back into each batch's result loses and duplicates nothing. */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { sliceResult } from '../../src/actors/task/core/put-slice.js';
import type { PutResult } from '../../src/pool/protocol.js';

const stats = { durationMs: 5, convertMs: 1, threadId: 3, taskStarted: false };

describe('sliceResult over any batch sizes', () => {
  test.prop([
    fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 6 }),
    fc.array(fc.nat(), { maxLength: 30 }),
  ])('every errant record lands in exactly one batch, at its own index', (sizes, picks) => {
    const total = sizes.reduce((a, b) => a + b, 0);
    const bad = [...new Set(picks.map((p) => p % total))];
    const result: PutResult = {
      kind: 'perRecord',
      rejected: bad.map((index) => ({ index, message: String(index) })),
      converterFailures: [],
      ...stats,
    };
    const seen: number[] = [];
    let from = 0;
    for (const size of sizes) {
      const own = sliceResult(result, from, size);
      if (own.kind === 'perRecord')
        for (const r of own.rejected) {
          expect(r.index).toBeLessThan(size);
          seen.push(from + r.index);
          expect(r.message).toBe(String(from + r.index));
        }
      from += size;
    }
    expect(seen.sort((a, b) => a - b)).toEqual([...bad].sort((a, b) => a - b));
  });
});
