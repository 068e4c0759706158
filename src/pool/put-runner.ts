/**
 * What the task runners need of whatever runs their puts: the piscina pool (`put.placement=pool`, the
 * default) or the event loop itself (`put.placement=event-loop`, {@link EventLoopPuts}).
 */
import type { ConvertersConfig } from '../connect/converters/registry.js';
import type { RawRecord } from '../connect/raw-record.js';
import type { TransformsConfig } from '../connect/transforms/spec.js';
import type { Assignment, ErrorInfo, PutResult } from './protocol.js';
import type { WireBatch } from './wire-batch.js';

/** One sink task as the pool needs it: the same object may be passed to every put. */
export interface PoolTask {
  readonly id: string;
  readonly props: Readonly<Record<string, string>>;
  readonly converters?: ConvertersConfig;
  readonly transforms?: TransformsConfig;
  readonly assignment?: Assignment;
}

export interface PutOptions {
  /**
   * Cancels the put; it then resolves `aborted`. A put still queued is dropped. A running put's
   * `context.abortSignal()` fires in its thread; if the put has not returned within the abort grace,
   * its thread is terminated: every task instance it hosted is gone without `stop()` (re-created by
   * the next put that lands on the replacement thread), and the other puts running on that thread
   * resolve `aborted` with `threadLost`, so their records are released or retried, never lost.
   */
  signal?: AbortSignal;
}

export interface StopTaskResult {
  /** Threads that had an instance of the task and stopped it. */
  readonly stopped: number;
  readonly failed: readonly (ErrorInfo & { readonly threadId: number })[];
  /** Threads that did not answer within stopTimeoutMs (typically stuck in a put). */
  readonly timedOut: readonly number[];
}

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
