/**
 * A stop during a long retry backoff ends at once: the fetch loop's backoff (which follows the put's,
 * up to errors.retry.delay.max.ms) must not hold the stop, and the batch waiting to retry is released
 * without waiting out the grace time, which is for running puts (as the classic runner does).
 * Seen from the CLI: a KafkaSink refused by its target took 49 s to stop after SIGTERM.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ShareTaskRunner } from '../../src/actors/share-task-runner.js';
import { LockSupervisor } from '../../src/actors/supervisor.js';
import { SimulatedClock } from '../../src/actors/supervisor-clock.js';
import type { ShareConsumer } from '../../src/kafka/share/share-consumer.js';
import type { PutPool } from '../../src/pool/put-pool.js';
import { BacklogConsumer, HeldPool } from './share-task-runner-fakes.js';

const logger = pino({ level: 'silent' });

describe('ShareTaskRunner: stopping while a put waits to retry', () => {
  it('does not wait out a 60 s backoff: the stop is prompt and the batch is released', async () => {
    const consumer = new BacklogConsumer(1);
    const pool = new HeldPool();
    const runner = new ShareTaskRunner({
      ...{ connector: 'c', taskId: 0, topics: ['t'], poolTask: { id: 'c-0', props: {} }, logger },
      consumer: consumer as unknown as ShareConsumer,
      pool: pool as unknown as PutPool,
      supervisor: new LockSupervisor({ logger, clock: new SimulatedClock(), lockDurationMs: 30_000 }),
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
