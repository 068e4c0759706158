/** Fakes of a share consumer and a put pool for ShareTaskRunner unit tests. */
import { pino } from 'pino';
import {
  ShareTaskRunner,
  type ShareTaskRunnerOptions,
} from '../../../../../src/actors/task/share/share-task-runner.js';
import { LockSupervisor } from '../../../../../src/actors/task/share/supervisor.js';
import { SimulatedClock } from '../../../../../src/actors/task/core/clock.js';
import type {
  PartitionAckResult,
  ShareConsumer,
  ShareRecord,
} from '../../../../../src/kafka/share/share-consumer.js';
import { decodedRecord } from '../../../kafka/share/decoded-record.js';
import type { PutPool } from '../../../../../src/pool/put-pool.js';
import type { PutResult } from '../../../../../src/pool/protocol.js';

export const BATCH = 10;

/** Lets the runner's promise chains and setImmediate hops run (20 turns). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A first-delivery record of partition t-0 at `offset`, without key, value or headers. */
export function recordAt(offset: number): ShareRecord {
  return { ...decodedRecord(offset), deliveryCount: 1 };
}

/** Serves `batches` batches of BATCH records at once, then empty answers after 5 ms. */
export class BacklogConsumer {
  readonly acquisitionLockTimeoutMs = 30_000;
  readonly acks: string[] = [];
  polls = 0;
  constructor(private readonly batches: number) {}
  async subscribe(): Promise<void> {}
  async renewSupported(): Promise<boolean> {
    return false;
  }
  poll(): Promise<ShareRecord[]> {
    const n = this.polls++;
    if (n >= this.batches) return new Promise((resolve) => setTimeout(() => resolve([]), 5));
    return Promise.resolve(Array.from({ length: BATCH }, (_, i) => recordAt(n * BATCH + i)));
  }
  acknowledge(records: readonly ShareRecord[], type: string): Promise<PartitionAckResult[]> {
    const offsets = records.map((r) => r.offset);
    this.acks.push(`${type} ${offsets[0]}..${offsets.at(-1)}`);
    return Promise.resolve([{ topic: 't', partition: 0, type, offsets, error: null } as PartitionAckResult]);
  }
  async close(): Promise<void> {}
}

/** Puts that end when the test says, with the result it gives. */
export class HeldPool {
  readonly puts: Array<{ first: number; count: number; end: (r: Partial<PutResult>) => void }> = [];
  put(_task: unknown, records: readonly { offset: number }[]): Promise<PutResult> {
    return new Promise((resolve) => {
      const stats = { durationMs: 1, convertMs: 0, converterFailures: [], threadId: 1, taskStarted: false };
      this.puts.push({
        first: records[0]!.offset,
        count: records.length,
        end: (r) => resolve({ kind: 'ok', ...stats, ...r } as PutResult),
      });
    });
  }
}

/** A runner of task `c-0` over the fakes, its supervisor on `clock`; `options` adds or replaces settings. */
export function runnerOver(
  consumer: BacklogConsumer,
  pool: HeldPool,
  options: Partial<ShareTaskRunnerOptions> = {},
  clock: SimulatedClock = new SimulatedClock(),
): ShareTaskRunner {
  const logger = pino({ level: 'silent' });
  return new ShareTaskRunner({
    ...{ connector: 'c', taskId: 0, topics: ['t'], poolTask: { id: 'c-0', props: {} }, logger },
    consumer: consumer as unknown as ShareConsumer,
    pool: pool as unknown as PutPool,
    supervisor: new LockSupervisor({ logger, clock, lockDurationMs: 30_000 }),
    ...options,
  });
}
