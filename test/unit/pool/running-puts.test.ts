import { describe, expect, it } from 'vitest';
import { BATCH_INDEX, SinkRecord } from '../../../src/connect/sink-record.js';
import { putOf, putsAtOnce, type RunningPut } from '../../../src/pool/running-puts.js';
import type { SinkTask } from '../../../src/connect/sink-task.js';
import { rec as transformsRec } from '../connect/transforms/helpers.js';

// the transforms' record helper: topic orders, partition 3 unless given
const rec = (offset: number, index: number): SinkRecord => transformsRec({ offset, value: offset }, index);

const running = (putId: number, current: SinkRecord[]): RunningPut => ({
  putId,
  abort: new AbortController(),
  current,
  rejections: new Map(),
  backoffMs: undefined,
});

describe('putOf: the running put a reported record belongs to', () => {
  // put 1 holds batch indexes 0..2; put 2 lost index 0 to a converter, so its array is shifted
  const one = running(1, [rec(100, 0), rec(101, 1), rec(102, 2)]);
  const two = running(2, [rec(201, 1), rec(202, 2)]);
  const puts = new Map([
    [1, one],
    [2, two],
  ]);

  it('with several puts, by the batch index the record carries, not its position in put()', () => {
    expect(putOf(puts, two.current[1]!, false)).toEqual([two, 2]);
    expect(putOf(puts, one.current[2]!, false)).toEqual([one, 2]);
  });

  it("a copy (a transform's newRecord) is matched by topic, partition and offset", () => {
    const copy = two.current[0]!.newRecord({ value: 'changed' });
    expect(putOf(puts, copy, false)).toEqual([two, 1]);
  });

  it('a record of a put that has ended is not pinned on the one still running', () => {
    const ended = rec(300, 1);
    expect(putOf(new Map([[2, two]]), ended, false)).toBeUndefined();
  });

  it('one put at a time: the running put, as before', () => {
    const alone = new Map([[1, one]]);
    expect(putOf(alone, rec(555, 1), true)).toEqual([one, 1]);
    expect(putOf(new Map(), rec(555, 1), true)).toBeUndefined();
  });

  it('a record without a batch index is found by its coordinates', () => {
    const bare = new SinkRecord({ ...one.current[1]!.toInit() });
    expect(bare[BATCH_INDEX]).toBeUndefined();
    expect(putOf(puts, bare, false)).toEqual([one, 1]);
  });
});

describe('putsAtOnce: what the instance asks for, bounded', () => {
  const task = (f: () => unknown) => ({ putsAtOnce: f }) as unknown as SinkTask;
  it('1 when absent, invalid or throwing; at most 8', () => {
    expect(putsAtOnce({} as SinkTask)).toBe(1);
    expect(putsAtOnce(task(() => 2))).toBe(2);
    expect(putsAtOnce(task(() => 0))).toBe(1);
    expect(putsAtOnce(task(() => 2.5))).toBe(1);
    expect(putsAtOnce(task(() => 'x'))).toBe(1);
    expect(putsAtOnce(task(() => 100))).toBe(8);
    expect(
      putsAtOnce(
        task(() => {
          throw new Error('no');
        }),
      ),
    ).toBe(1);
  });
});
