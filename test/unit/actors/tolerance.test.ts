/** errors.tolerance for the put stage of both modes (errors/tolerance.ts), Connect's vocabulary. */
import { describe, expect, it } from 'vitest';
import type { DeadLetterReason } from '../../../src/actors/errors/reasons.js';
import { TaskFailedError } from '../../../src/actors/errors/task-failed.js';
import { putVerdict } from '../../../src/actors/errors/tolerance.js';
import type { PutResult } from '../../../src/pool/protocol.js';

const stats = { durationMs: 1, convertMs: 0, threadId: 1, taskStarted: false };
const ok: PutResult = { kind: 'ok', converterFailures: [], ...stats };
const badValue: PutResult = {
  kind: 'ok',
  converterFailures: [
    {
      index: 2,
      code: 'SHARESINK_CONVERTER_FAILED',
      message: 'not JSON',
      converter: 'JsonConverter',
      part: 'value',
    },
  ],
  ...stats,
};
const errant: PutResult = {
  kind: 'perRecord',
  rejected: [{ index: 1, message: 'refused', errorClass: 'PoisonError' }],
  converterFailures: [],
  ...stats,
};

describe('putVerdict', () => {
  it('ok, retriable, fatal and aborted map to their events in both modes', () => {
    for (const mode of ['share', 'classic'] as const) {
      const reasons = new Map<number, DeadLetterReason>();
      expect(putVerdict(ok, mode, 'none', reasons).event).toEqual({ type: 'PUT_OK' });
      expect(
        putVerdict(
          { kind: 'retriable', message: 'busy', converterFailures: [], ...stats },
          mode,
          'none',
          reasons,
        ).event,
      ).toEqual({ type: 'PUT_RETRIABLE', error: 'busy' });
      expect(
        putVerdict({ kind: 'fatal', message: 'no', converterFailures: [], ...stats }, mode, 'all', reasons)
          .event,
      ).toEqual({ type: 'PUT_FATAL', error: 'no' });
      expect(
        putVerdict({ kind: 'aborted', reason: 'stop', converterFailures: [], ...stats }, mode, 'all', reasons)
          .event,
      ).toEqual({ type: 'ABORTED' });
    }
  });

  it('errant records under all: PUT_PER_RECORD with Connect reasons by batch index, no failure', () => {
    const reasons = new Map<number, DeadLetterReason>();
    const v = putVerdict(errant, 'classic', 'all', reasons);
    expect(v).toEqual({ event: { type: 'PUT_PER_RECORD', rejectedIndexes: [1] } });
    expect(reasons.get(1)).toMatchObject({
      stage: 'TASK_PUT',
      exceptionClass: 'PoisonError',
      message: 'refused',
    });
    const conv = putVerdict(badValue, 'share', 'all', reasons);
    expect(conv.event).toEqual({ type: 'PUT_PER_RECORD', rejectedIndexes: [2] });
    expect(reasons.get(2)).toMatchObject({ stage: 'VALUE_CONVERTER', executingClass: 'JsonConverter' });
    expect(reasons.has(1)).toBe(false);
  });

  it('classic under none: an errant record fails the put, as Connect reporter throws', () => {
    expect(putVerdict(errant, 'classic', 'none', new Map()).event).toEqual({
      type: 'PUT_FATAL',
      error: 'errant record',
    });
  });

  it('share under none: a converter failure rejects its record and fails the task with a coded error', () => {
    const v = putVerdict(badValue, 'share', 'none', new Map());
    expect(v.event).toEqual({ type: 'PUT_PER_RECORD', rejectedIndexes: [2] });
    expect(v.failure).toBeInstanceOf(TaskFailedError);
    expect(v.failure).toMatchObject({
      code: 'SHARESINK_TASK_FAILED',
      message: 'task failed: not JSON (errors.tolerance=none)',
    });
    // a record the task reported itself does not fail the task: the task chose to go on
    expect(putVerdict(errant, 'share', 'none', new Map()).failure).toBeUndefined();
  });
});
