import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OffsetSet } from '../../src/kafka/share/offset-set.js';

type Op = { kind: 'add' | 'delete' | 'has'; offset: number } | { kind: 'clear' };

// Offsets from a small window so that adds, deletes and merges collide often; runs imitate fetches.
const offset = fc.integer({ min: 0, max: 40 });
const op: fc.Arbitrary<Op[]> = fc.oneof(
  fc
    .record({ kind: fc.constantFrom('add' as const, 'delete' as const, 'has' as const), offset })
    .map((o) => [o]),
  fc
    .record({
      from: offset,
      length: fc.integer({ min: 1, max: 12 }),
      kind: fc.constantFrom('add' as const, 'delete' as const),
    })
    .map(({ from, length, kind }) => Array.from({ length }, (_, i) => ({ kind, offset: from + i }))),
  fc.constant<Op[]>([{ kind: 'clear' }]),
);

describe('OffsetSet (a Set<number> is the oracle)', () => {
  it('answers like a Set after any sequence of adds, deletes and clears', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (chunks) => {
        const set = new OffsetSet();
        const oracle = new Set<number>();
        for (const o of chunks.flat()) {
          if (o.kind === 'clear') {
            set.clear();
            oracle.clear();
          } else if (o.kind === 'add') {
            set.add(o.offset);
            oracle.add(o.offset);
          } else if (o.kind === 'delete') {
            expect(set.delete(o.offset)).toBe(oracle.delete(o.offset));
          } else {
            expect(set.has(o.offset)).toBe(oracle.has(o.offset));
          }
          expect(set.size).toBe(oracle.size);
        }
        expect([...set]).toEqual([...oracle].sort((a, b) => a - b));
        const probe = Array.from({ length: 45 }, (_, i) => i);
        for (const p of probe) expect(set.has(p)).toBe(oracle.has(p));
        const held = [...oracle];
        expect(set.missing(held)).toEqual([]);
        expect(set.missing(probe)).toEqual(probe.filter((p) => !oracle.has(p)));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a fetch acknowledged in order as one range to the end', () => {
    const set = new OffsetSet();
    for (let o = 100; o < 700; o++) set.add(o);
    expect(set.size).toBe(600);
    for (let o = 100; o < 400; o++) expect(set.delete(o)).toBe(true);
    expect(set.has(399)).toBe(false);
    expect(set.has(400)).toBe(true);
    expect([...set].length).toBe(300);
  });
});
