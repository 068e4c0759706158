/**
 * A stop during a long retry backoff ends at once: the fetch loop's backoff (which follows the put's,
 * up to errors.retry.delay.max.ms) must not hold the stop, and the batch waiting to retry is released
 * without waiting out the grace time, which is for running puts (as the classic runner does).
 * Seen from the CLI: a KafkaSink refused by its target took 49 s to stop after SIGTERM.
 */
import { describe, expect, it } from 'vitest';
import { BacklogConsumer, HeldPool, runnerOver } from './share-task-runner-fakes.js';

describe('ShareTaskRunner: stopping while a put waits to retry', () => {
  it('does not wait out a 60 s backoff: the stop is prompt and the batch is released', async () => {
    const consumer = new BacklogConsumer(1);
    const pool = new HeldPool();
    const runner = runnerOver(consumer, pool, {
      retryDelayMaxMs: 60_000,
      // a grace time far longer than the stop may take: a batch waiting to retry does not wait it out
      shutdownGraceMs: 30_000,
    });
    await runner.start();
    while (pool.puts.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // the task asks for a minute before the next try: fetching and the retry both back off that long
    pool.puts[0]!.end({ kind: 'retriable', message: 'target refused', backoffMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 50));

    const began = Date.now();
    await runner.stop();
    // without the fix the stop took until the backoff ended (60 s; the test's timeout is 10 s)
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(pool.puts).toHaveLength(1);
    expect(consumer.acks).toEqual(['release 0..9']);
  }, 10_000);
});
