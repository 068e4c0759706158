import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { buildAckBatches, expandAckBatches } from '../../src/kafka/share/ack-batches.js';
import { newAckEntry, planAcks } from '../../src/kafka/share/ack-entries.js';

const entries = fc.uniqueArray(
  fc.record({ offset: fc.integer({ min: 0, max: 400 }), code: fc.integer({ min: 1, max: 4 }) }),
  { selector: (e) => e.offset, maxLength: 120 },
);

describe('buildAckBatches', () => {
  test.prop([entries])('expands back to exactly the acknowledged offsets and types', (es) => {
    const batches = buildAckBatches(
      es.map((e) => e.offset),
      es.map((e) => e.code),
    );
    const expected = [...es].sort((a, b) => a.offset - b.offset);
    expect(expandAckBatches(batches)).toEqual(expected);
  });

  test.prop([entries])('batches are disjoint, ascending, and well-formed', (es) => {
    const batches = buildAckBatches(
      es.map((e) => e.offset),
      es.map((e) => e.code),
    );
    for (let i = 0; i < batches.length; i++) {
      const b = batches[i]!;
      expect(b.lastOffset).toBeGreaterThanOrEqual(b.firstOffset);
      const len = b.lastOffset - b.firstOffset + 1;
      expect([1, len]).toContain(b.acknowledgeTypes.length);
      // a range whose types are all equal uses the one-type form
      if (len > 1 && b.acknowledgeTypes.length === len) {
        expect(new Set(b.acknowledgeTypes).size).toBeGreaterThan(1);
      }
      if (i > 0) expect(b.firstOffset).toBeGreaterThan(batches[i - 1]!.lastOffset + 1);
    }
  });

  test.prop([entries, fc.integer({ min: 0, max: 4 })])(
    'one code for every offset gives what that code repeated per offset gives',
    (es, code) => {
      const offsets = es.map((e) => e.offset);
      expect(buildAckBatches(offsets, code)).toEqual(
        buildAckBatches(
          offsets,
          offsets.map(() => code),
        ),
      );
    },
  );
});

describe('planAcks', () => {
  const tp = { topicId: 'AAAAAAAAAAAAAAAAAAAAAA', topic: 't', partition: 0 };
  // entries of one partition, each with its own offsets (disjoint across entries) and one type
  const partitionEntries = fc
    .uniqueArray(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 120 })
    .chain((offsets) =>
      fc.tuple(
        fc.constant(offsets),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { minLength: offsets.length, maxLength: offsets.length }),
      ),
    );

  test.prop([partitionEntries, fc.boolean()])(
    'the entries of one partition become the batches of their offsets with each entry’s type',
    ([offsets, codes, picks], sameType) => {
      const lists = codes.map(() => [] as number[]);
      offsets.forEach((o, i) => lists[picks[i]! % lists.length]!.push(o));
      const entries = lists.map((own, i) => newAckEntry(tp, 'accept', sameType ? codes[0]! : codes[i]!, own));
      const expected = entries
        .flatMap((e) => e.offsets.map((offset) => ({ offset, code: e.code })))
        .sort((a, b) => a.offset - b.offset);
      const batches = planAcks(entries).get(tp.topicId)?.get(tp.partition) ?? [];
      expect(expandAckBatches(batches)).toEqual(expected);
    },
  );
});
