import { describe, expect, it } from 'vitest';
import { AckCode, buildAckBatches } from '../../../../src/kafka/share/ack-batches.js';

describe('buildAckBatches', () => {
  it('sends a fully accepted range as one compact batch', () => {
    const offsets = [10, 11, 12, 13];
    expect(
      buildAckBatches(
        offsets,
        offsets.map(() => AckCode.accept),
      ),
    ).toEqual([{ firstOffset: 10, lastOffset: 13, acknowledgeTypes: [1] }]);
  });

  it('uses per-offset types when a contiguous range mixes accept and reject', () => {
    expect(buildAckBatches([5, 6, 7], [1, 3, 1])).toEqual([
      { firstOffset: 5, lastOffset: 7, acknowledgeTypes: [1, 3, 1] },
    ]);
  });

  it('splits at holes and sorts unordered input', () => {
    expect(buildAckBatches([9, 3, 4], [2, 1, 1])).toEqual([
      { firstOffset: 3, lastOffset: 4, acknowledgeTypes: [1] },
      { firstOffset: 9, lastOffset: 9, acknowledgeTypes: [2] },
    ]);
  });

  it('returns nothing for nothing', () => {
    expect(buildAckBatches([], [])).toEqual([]);
  });
});
