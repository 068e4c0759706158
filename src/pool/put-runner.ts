/**
 * What the task runners need of whatever runs their puts: the piscina pool (`put.placement=pool`, the
 * default) or the event loop itself (`put.placement=event-loop`, {@link EventLoopPuts}).
 */
import type { RawRecord } from '../connect/raw-record.js';
import type { PutResult } from './protocol.js';
import type { PoolTask, PutOptions, StopTaskResult } from './put-pool.js';
import type { WireBatch } from './wire-batch.js';

export interface PutRunner {
  /** Worker threads that run puts; 0 when they run on the event loop. */
  readonly threads: number;
  /** Puts one thread runs at once. */
  readonly putsPerThread: number;
  /** Resolves once puts can run; rejects with SHARESINK_POOL_START_FAILED when they cannot. */
  started(timeoutMs?: number): Promise<void>;
  /** Puts one batch through the task. Never rejects: failures and aborts are results. */
  put(task: PoolTask, batch: WireBatch | readonly RawRecord[], options?: PutOptions): Promise<PutResult>;
  /** Stops the task's instances (close(partitions), then stop()) once their puts finished. */
  stopTask(taskId: string): Promise<StopTaskResult>;
  /** Stops every task that was put through it, then lets go of its threads. Idempotent. */
  close(): Promise<void>;
}
