// The dead-letter step of a classic task: a stop's give-up must reach every write under way, and a
// finished write must leave nothing behind (a race against one promise shared for the task's life kept a
// callback per write: 200,000 writes grew the heap by 62 MB until the stop, found in review).
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  ClassicDeadLetters,
  type DeadLetterWork,
} from '../../../../../src/actors/task/classic/dead-letters.js';
import { ClassicTaskCounters } from '../../../../../src/actors/task/classic/records.js';
import type { ClassicDeadLetterQueue } from '../../../../../src/actors/errors/dead-letter-reporter.js';
import type { RawRecord } from '../../../../../src/connect/raw-record.js';

function deadLetters(send: (indexes: readonly number[]) => Promise<number>) {
  const counters = new ClassicTaskCounters();
  const d = new ClassicDeadLetters({
    task: {
      connector: 'c',
      taskId: 0,
      errors: undefined,
      errorsLog: { enable: false, includeMessages: false },
      brokers: [],
      clientId: 'x',
    },
    counters,
    log: pino({ level: 'silent' }),
    fail: () => {},
  });
  const queue = { topic: 'dlq', send: (_r: unknown, i: readonly number[]) => send(i), close: async () => {} };
  (d as unknown as { queue: ClassicDeadLetterQueue }).queue = queue as unknown as ClassicDeadLetterQueue;
  return { d, counters, pending: () => (d as unknown as { cuts: Set<unknown> }).cuts.size };
}

const work: DeadLetterWork = {
  id: 'b',
  records: [{ topic: 't', partition: 0, offset: 0 } as unknown as RawRecord],
  lastPut: undefined,
  reasons: new Map(),
};

describe('ClassicDeadLetters', () => {
  it('keeps nothing per write once it is done', async () => {
    const { d, counters, pending } = deadLetters(async (i) => i.length);
    for (let n = 0; n < 100; n++) expect(await d.write(work, [0])).toBe(true);
    expect(counters.recordsDeadLettered).toBe(100);
    expect(pending()).toBe(0);
  });

  it('a stop gives up every write under way: each batch is left uncommitted', async () => {
    const { d, counters, pending } = deadLetters(() => new Promise<number>(() => {}));
    const writes = [d.write(work, [0]), d.write(work, [0])];
    await new Promise((r) => setImmediate(r));
    expect(pending()).toBe(2);
    d.giveUp();
    expect(await Promise.all(writes)).toEqual([false, false]);
    expect(pending()).toBe(0);
    expect(counters.recordsDeadLettered).toBe(0);
    // and a write after the give-up does not start
    expect(await d.write(work, [0])).toBe(false);
  });
});
