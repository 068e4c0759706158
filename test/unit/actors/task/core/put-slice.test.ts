/** One put of several batches, cut back into each batch's own result (ADR 0007). */
import { describe, expect, it } from 'vitest';
import { sliceResult } from '../../../../../src/actors/task/core/put-slice.js';
import type { PutResult } from '../../../../../src/pool/protocol.js';

const stats = { durationMs: 5, convertMs: 1, threadId: 3, taskStarted: false };
const failure = (index: number) => ({
  index,
  code: 'SHARESINK_CONVERTER_FAILED' as const,
  message: `bad ${index}`,
  converter: 'JsonConverter',
  part: 'value' as const,
});

describe('sliceResult', () => {
  it('re-bases errant records and converter failures to the batch, and keeps only its own', () => {
    const result: PutResult = {
      kind: 'perRecord',
      rejected: [
        { index: 1, message: 'a' },
        { index: 12, message: 'b' },
      ],
      converterFailures: [failure(11)],
      ...stats,
    };
    expect(sliceResult(result, 0, 10)).toMatchObject({ kind: 'perRecord', rejected: [{ index: 1 }] });
    expect(sliceResult(result, 10, 5)).toMatchObject({
      kind: 'perRecord',
      rejected: [{ index: 2, message: 'b' }],
      converterFailures: [{ index: 1, message: 'bad 11' }],
    });
  });

  it('a batch with none of the errant records was simply put: ok', () => {
    const result: PutResult = {
      kind: 'perRecord',
      rejected: [{ index: 0, message: 'a' }],
      converterFailures: [],
      ...stats,
    };
    const own = sliceResult(result, 5, 5);
    expect(own).toEqual({ kind: 'ok', converterFailures: [], ...stats });
  });

  it('a whole-put outcome is every batch outcome', () => {
    const result: PutResult = {
      kind: 'retriable',
      message: 'busy',
      converterFailures: [failure(3)],
      ...stats,
    };
    expect(sliceResult(result, 0, 2)).toEqual({ ...result, converterFailures: [] });
    expect(sliceResult(result, 2, 2)).toMatchObject({ kind: 'retriable', converterFailures: [{ index: 1 }] });
  });
});
