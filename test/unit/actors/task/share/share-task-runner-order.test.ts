/**
 * The order in which the share runner polls and hands batches to the pool: with a slot free it polls
 * again before it sets up the put, so the next ShareFetch is at the broker while the batch is prepared,
 * and a batch that arrives meanwhile joins that put (ADR 0007); with no slot free it sets up the put
 * at once.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ShareTaskRunner } from '../../../../../src/actors/task/share/share-task-runner.js';
import { LockSupervisor } from '../../../../../src/actors/task/share/supervisor.js';
import { SimulatedClock } from '../../../../../src/actors/task/core/clock.js';
import type {
  PartitionAckResult,
  ShareConsumer,
  ShareRecord,
} from '../../../../../src/kafka/share/share-consumer.js';
import type { PutPool } from '../../../../../src/pool/put-pool.js';
import type { PutResult } from '../../../../../src/pool/protocol.js';

const logger = pino({ level: 'silent' });

/** Serves two 2-record batches, then answers later polls empty after 5 ms (as maxWaitMs would). */
class OrderedConsumer {
  readonly acquisitionLockTimeoutMs = 30_000;
  #served = 0;
  constructor(private readonly calls: string[]) {}
  async subscribe(): Promise<void> {}
  async renewSupported(): Promise<boolean> {
    return false;
  }
  poll(): Promise<ShareRecord[]> {
    this.calls.push(`poll ${++this.#served}`);
    if (this.#served > 2) return new Promise((resolve) => setTimeout(() => resolve([]), 5));
    const base = {
      topic: 't',
      partition: 0,
      timestamp: 0,
      timestampType: 'CreateTime' as const,
      key: null,
      value: null,
      headers: [],
    };
    const first = (this.#served - 1) * 2;
    return Promise.resolve([0, 1].map((i) => ({ ...base, offset: first + i, deliveryCount: 1 })));
  }
  acknowledge(records: readonly ShareRecord[]): Promise<PartitionAckResult[]> {
    const offsets = records.map((r) => r.offset);
    return Promise.resolve([{ topic: 't', partition: 0, type: 'accept', offsets, error: null }]);
  }
  async close(): Promise<void> {}
}

/** Puts that end at once, recorded with the first offset they carry. */
class RecordingPool {
  constructor(private readonly calls: string[]) {}
  put(_task: unknown, records: readonly { offset: number }[]): Promise<PutResult> {
    this.calls.push(`put @${records[0]!.offset} (${records.length})`);
    const stats = { durationMs: 0, convertMs: 0, converterFailures: [], threadId: 1, taskStarted: false };
    return Promise.resolve({ kind: 'ok', ...stats } as PutResult);
  }
}

async function callsWith(maxInFlightBatches: number): Promise<string[]> {
  const calls: string[] = [];
  const consumer = new OrderedConsumer(calls);
  const supervisor = new LockSupervisor({ logger, clock: new SimulatedClock(), lockDurationMs: 30_000 });
  const runner = new ShareTaskRunner({
    ...{ connector: 'c', taskId: 0, topics: ['t'], poolTask: { id: 'c-0', props: {} }, logger },
    consumer: consumer as unknown as ShareConsumer,
    pool: new RecordingPool(calls) as unknown as PutPool,
    supervisor,
    maxInFlightBatches,
    shutdownGraceMs: 0,
  });
  await runner.start();
  for (let i = 0; i < 50 && calls.filter((c) => c.startsWith('put')).length < 2; i++)
    await new Promise((resolve) => setImmediate(resolve));
  await runner.stop();
  return calls;
}

describe('ShareTaskRunner: poll before put setup', () => {
  it('with slots free, the next poll comes before the put of the batch just acquired', async () => {
    const calls = await callsWith(4);
    expect(calls.slice(0, 4)).toEqual(['poll 1', 'poll 2', 'poll 3', 'put @0 (4)']);
    // both batches went in that one put
    expect(calls.filter((c) => c.startsWith('put'))).toEqual(['put @0 (4)']);
  });

  it('with one slot, the put is set up at once and the next poll waits for it', async () => {
    const calls = await callsWith(1);
    expect(calls.slice(0, 3)).toEqual(['poll 1', 'put @0 (2)', 'poll 2']);
    expect(calls.indexOf('put @2 (2)')).toBeGreaterThan(calls.indexOf('poll 2'));
  });
});
