/**
 * An answer of several polls' worth (fetch-window.ts): the rest of it, waiting in the consumer for
 * later polls, becomes batches at once, which the supervisor watches like any batch (ADR 0019).
 */
import { describe, expect, it } from 'vitest';
import type { ShareRecord } from '../../../../../src/kafka/share/share-consumer.js';
import { BATCH, BacklogConsumer, HeldPool, recordAt, runnerOver, settle } from './share-task-runner-fakes.js';

/** Its first poll returns one piece and leaves `more` pieces waiting, as a 4-poll answer would. */
class WindowedConsumer extends BacklogConsumer {
  readonly ready: ShareRecord[][] = [];
  readyTaken = 0;
  constructor(more: number) {
    super(1);
    for (let p = 1; p <= more; p++)
      this.ready.push(Array.from({ length: BATCH }, (_, i) => recordAt(p * BATCH + i)));
  }
  takeReady(): ShareRecord[] | undefined {
    const piece = this.ready.shift();
    if (piece) this.readyTaken++;
    return piece;
  }
}

describe('ShareTaskRunner: the rest of a several-poll answer', () => {
  it('becomes batches right after the poll, although only one put may run', async () => {
    const consumer = new WindowedConsumer(3);
    const pool = new HeldPool();
    const runner = runnerOver(consumer, pool, {
      maxInFlightBatches: 1,
      maxPollRecords: BATCH,
      errorsTolerance: 'all',
      shutdownGraceMs: 0,
    });
    await runner.start();
    await settle();
    expect(consumer.readyTaken).toBe(3);
    expect(consumer.ready).toHaveLength(0);
    expect(runner.counters.snapshot().batches).toBe(4);
    // one put at a time, and no fetch while three batches wait for it
    expect(pool.puts.map((p) => p.first)).toEqual([0]);
    expect(consumer.polls).toBe(1);
    for (let i = 0; i < 4; i++) {
      pool.puts[i]!.end({});
      await settle();
    }
    expect(pool.puts.map((p) => p.first)).toEqual([0, 10, 20, 30]);
    expect(consumer.acks).toEqual(['accept 0..9', 'accept 10..19', 'accept 20..29', 'accept 30..39']);
    await runner.stop();
  });
});
