/**
 * While a task's put runs, the batches it fetches gather for its next put, up to max.poll.records
 * (ADR 0007); each batch of a put is still acknowledged on its own, with its own disposition.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../../../src/actors/task/core/clock.js';
import { BATCH, BacklogConsumer, HeldPool, runnerOver, settle } from './share-task-runner-fakes.js';

describe('ShareTaskRunner: batches gather for the next put', () => {
  it('a put carries the batches fetched while the previous one ran, up to max.poll.records', async () => {
    const consumer = new BacklogConsumer(6);
    const pool = new HeldPool();
    const runner = runnerOver(consumer, pool, {
      maxInFlightBatches: 1,
      maxPollRecords: 25,
      errorsTolerance: 'all',
      shutdownGraceMs: 0,
    });
    await runner.start();
    await settle();
    // the first batch went at once; then fetching stopped with 25+ records waiting
    expect(pool.puts.map((p) => [p.first, p.count])).toEqual([[0, 10]]);
    expect(consumer.polls).toBe(4);
    pool.puts[0]!.end({});
    await settle();
    // batches 2 and 3 in one put (a third would pass 25 records)
    expect(pool.puts.map((p) => [p.first, p.count])).toEqual([
      [0, 10],
      [10, 20],
    ]);
    // record 12 of the put is record 2 of batch 3 (offsets 20..29): only that batch is partial
    pool.puts[1]!.end({ kind: 'perRecord', rejected: [{ index: 12, message: 'errant' }] });
    await settle();
    expect(consumer.acks).toEqual(
      expect.arrayContaining(['accept 0..9', 'accept 10..19', 'accept 20..29', 'reject 22..22']),
    );
    expect(consumer.acks).not.toContain('reject 12..12');
    expect(pool.puts[2]).toMatchObject({ first: 30 });
    for (const p of pool.puts.slice(2)) p.end({});
    await settle();
    const stopping = runner.stop();
    for (const p of pool.puts.slice(3)) p.end({});
    await stopping;
    expect(runner.counters.snapshot()).toMatchObject({ batches: 6, recordsPut: 60 });
  });

  it("times a batch's locks from the fetch that acquired it when its records waited for the poll", async () => {
    // a shared member's answer handed out in pieces: this piece's fetch went out 31 s ago
    const clock = new SimulatedClock(100_000);
    // the consumer reports wall-clock send times (Date.now()), whatever clock the supervisor runs on
    const consumer = Object.assign(new BacklogConsumer(1), { acquiredAt: () => Date.now() - 31_000 });
    const pool = new HeldPool();
    const runner = runnerOver(consumer, pool, { errorsTolerance: 'all', shutdownGraceMs: 0 }, clock);
    await runner.start();
    await settle();
    clock.advance(1);
    await settle();
    // the lock ran out before the poll: counted as expired, not put as if acquired just now
    expect(runner.counters.snapshot().recordsLockExpired).toBe(BATCH);
    const stopping = runner.stop();
    for (const p of pool.puts) p.end({});
    await stopping;
  });
});
