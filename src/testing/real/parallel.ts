/**
 * Overlapping runs for `checkConnector({ parallel })`, without changing what fast-check generates or
 * shrinks. fast-check awaits one property call at a time, so the check runs in two passes:
 *
 * 1. `generatedSchedules` asks fast-check, with the check's seed, for the schedules it would try, in
 *    order (a property that runs nothing); `runInPool` runs them, up to `parallel` at once, starting
 *    them in that order and none after the first failure, a broken run or the time limit.
 * 2. The check's own `fc.check`, same seed, answers every schedule already run from its result: it
 *    reaches the first failure in generation order exactly as a sequential check would, and shrinks
 *    from it one run at a time. Seed and path replay what a sequential check would.
 */
import fc from 'fast-check';

/** The values `fc.check` would try for `arb` with these parameters, in order, until a failure. */
export async function generatedSchedules<T>(
  arb: fc.Arbitrary<T>,
  params: { numRuns: number; seed: number; examples: ReadonlyArray<[T]> },
): Promise<T[]> {
  const values: T[] = [];
  await fc.check(
    fc.asyncProperty(arb, async (v) => {
      values.push(v);
      return true;
    }),
    { numRuns: params.numRuns, seed: params.seed, examples: [...params.examples] },
  );
  return values;
}

/**
 * Runs `job` on each item in order, up to `parallel` at once. Starts no item once `canStart()` says
 * no (checked just before each start) or a job threw; waits for the jobs under way, then rethrows the
 * first error.
 */
export async function runInPool<T>(
  items: readonly T[],
  parallel: number,
  canStart: () => boolean,
  job: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let error: { err: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (next < items.length && error === undefined && canStart()) {
      const item = items[next++]!;
      try {
        await job(item);
      } catch (err) {
        error ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, items.length)) }, lane));
  if (error !== undefined) throw error.err;
}
