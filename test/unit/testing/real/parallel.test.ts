// The two passes behind checkConnector({ parallel }): the schedules generated up front are the ones a
// sequential fc.check tries, in order; the pool starts them in order, never more than `parallel` at
// once, and none after it is told to stop.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generatedSchedules, runInPool } from '../../../../src/testing/real/parallel.js';
import { runScheduleArb, type RunSchedule } from '../../../../src/testing/real/schedule.js';

const arb = runScheduleArb({ faults: ['kill-after-put', 'connection-cut'] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('generatedSchedules', () => {
  it('are what a sequential fc.check with the same seed tries, examples first', async () => {
    const example: RunSchedule = {
      partitions: 1,
      lockRenewal: 'off',
      steps: [{ records: 3, fault: { kind: 'none' } }],
    };
    const params = { numRuns: 15, seed: 4242, examples: [[example]] as Array<[RunSchedule]> };
    const generated = await generatedSchedules(arb, params);
    const tried: RunSchedule[] = [];
    await fc.check(
      fc.asyncProperty(arb, async (s) => {
        tried.push(s);
        return true;
      }),
      { ...params, examples: [...params.examples] },
    );
    expect(generated).toEqual(tried);
    expect(generated[0]).toEqual(example);
    expect(generated.length).toBeGreaterThanOrEqual(15);
  });

  it('a failure found side by side shrinks as the sequential check shrinks it (same seed and path)', async () => {
    const fails = (s: RunSchedule) => s.steps.some((st) => st.fault.kind === 'kill-after-put');
    const seed = 99;
    const sequential = await fc.check(
      fc.asyncProperty(arb, async (s) => !fails(s)),
      { numRuns: 30, seed },
    );
    // pass 1: every generated schedule's verdict known up front; pass 2 answers from them
    const verdicts = new Map<string, boolean>();
    for (const s of await generatedSchedules(arb, { numRuns: 30, seed, examples: [] }))
      verdicts.set(JSON.stringify(s), !fails(s));
    const replayed = await fc.check(
      fc.asyncProperty(arb, async (s) => verdicts.get(JSON.stringify(s)) ?? !fails(s)),
      { numRuns: 30, seed },
    );
    expect(sequential.failed).toBe(true);
    expect(replayed.counterexample).toEqual(sequential.counterexample);
    expect(replayed.counterexamplePath).toBe(sequential.counterexamplePath);
  });
});

describe('runInPool', () => {
  it('runs up to `parallel` jobs at once, starting them in order', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    await runInPool(
      [1, 2, 3, 4, 5, 6, 7],
      3,
      () => true,
      async (n) => {
        started.push(n);
        most = Math.max(most, ++running);
        await sleep(10 + (n % 3) * 5);
        running--;
      },
    );
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('starts nothing once canStart says no, and finishes the jobs under way', async () => {
    const done: number[] = [];
    let stop = false;
    await runInPool(
      [1, 2, 3, 4, 5, 6],
      2,
      () => !stop,
      async (n) => {
        await sleep(n === 1 ? 5 : 30);
        if (n === 1) stop = true; // a failure: run 2 is under way, 3… never start
        done.push(n);
      },
    );
    expect(done.sort()).toEqual([1, 2]);
  });

  it('rethrows the first error after the jobs under way end, and starts no more', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const pool = runInPool(
      [1, 2, 3, 4],
      2,
      () => true,
      async (n) => {
        started.push(n);
        if (n === 1) throw new Error('broker gone');
        await sleep(20);
        finished.push(n);
      },
    );
    await expect(pool).rejects.toThrow('broker gone');
    expect(started).toEqual([1, 2]);
    expect(finished).toEqual([2]);
  });
});
