import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { BroadcastChannel, type ResourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { DEFAULT_CONVERTERS, type ConvertersConfig } from '../connect/converters/registry.js';
import type { RawRecord } from '../connect/raw-record.js';
import { NO_TRANSFORMS, type TransformsConfig } from '../connect/transforms/spec.js';
import { defaultLogger, type Logger } from '../logger.js';
import type {
  Assignment,
  ControlReply,
  ErrorInfo,
  PutRequest,
  PutResult,
  StopRequest,
  WorkerData,
} from './protocol.js';
import { encodeWireBatch, isWireBatch, transferables, type WireBatch } from './wire-batch.js';

// Sources run under tsx in tests and as .js once built; the worker entry has the same extension as this file.
const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const WORKER_ENTRY = new URL(`./worker-entry${EXT}`, import.meta.url);

export interface PutPoolOptions {
  /** Module specifier or URL of the connector module (see resolveConnectorModule). */
  connectorModule: string | URL;
  /** Worker threads, all started up front and kept: a thread's task instances live as long as it does. */
  threads?: number;
  logger?: Logger;
  /** How long stopTask() waits for each thread's instance to stop. Default 30 s. */
  stopTimeoutMs?: number;
  /** Node flags for the threads; defaults to `--import tsx` when sharesink itself runs from .ts sources. */
  execArgv?: string[];
  resourceLimits?: ResourceLimits;
}

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
   * Cancels the put. A put still queued is dropped. A put already running cannot be interrupted inside
   * its thread, so piscina terminates that whole thread: every task instance it hosted is gone without
   * `stop()` and is re-created (and `start()`ed) by the next put that lands on the replacement thread.
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

const NO_ASSIGNMENT: Assignment = Object.freeze({ version: 0, partitions: [] });

/**
 * Runs sink task puts on a piscina pool. Each thread keeps its own instance of every task it has
 * served, so one task's batches can be put in parallel on several threads; a batch is encoded once
 * into transferable buffers and converted to SinkRecords in the thread.
 *
 * Threads run with atomics disabled: piscina's default parks idle threads in Atomics.wait, which would
 * freeze connectors' background I/O (pool keep-alives, timers) between puts and the stop channel.
 */
export class PutPool {
  readonly #pool: Piscina<PutRequest, PutResult>;
  readonly #logger: Logger;
  readonly #stopTimeoutMs: number;
  readonly #requests: BroadcastChannel;
  readonly #replies: BroadcastChannel;
  readonly #ready = new Set<number>();
  readonly #waiting = new Map<number, (reply: Extract<ControlReply, { op: 'stopped' }>) => void>();
  readonly #tasks = new Set<string>();
  readonly #configKeys = new WeakMap<PoolTask, string>();
  #nextRequest = 0;
  #closing: Promise<void> | undefined;

  constructor(options: PutPoolOptions) {
    const threads = options.threads ?? availableParallelism();
    this.#logger = (options.logger ?? defaultLogger()).child({ component: 'put-pool' });
    this.#stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
    const controlChannel = `sharesink-pool-${randomUUID()}`;
    this.#requests = new BroadcastChannel(`${controlChannel}:request`);
    this.#replies = new BroadcastChannel(`${controlChannel}:reply`);
    this.#requests.unref();
    this.#replies.unref();
    this.#replies.onmessage = (event: unknown) => this.#onReply((event as { data: ControlReply }).data);
    const workerData: WorkerData = { connectorModule: String(options.connectorModule), controlChannel };
    this.#pool = new Piscina<PutRequest, PutResult>({
      filename: WORKER_ENTRY.href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      concurrentTasksPerWorker: 1,
      atomics: 'disabled',
      workerData,
      execArgv: options.execArgv ?? (EXT === '.ts' ? ['--import', 'tsx'] : undefined),
      resourceLimits: options.resourceLimits,
    });
    this.#pool.on('error', (error: unknown) =>
      this.#logger.error({ err: error }, 'worker thread failed outside a put'),
    );
    this.#pool.on('workerDestroy', (worker: { id: number }) => this.#onThreadGone(worker.id));
  }

  get threads(): number {
    return this.#pool.maxThreads;
  }

  /**
   * Puts one batch through the task. Never rejects: failures, aborts and crashed threads are results.
   * A WireBatch is transferred and unusable afterwards; pass the raw records to keep them for a retry.
   */
  async put(
    task: PoolTask,
    batch: WireBatch | readonly RawRecord[],
    options: PutOptions = {},
  ): Promise<PutResult> {
    const began = performance.now();
    const wire = isWireBatch(batch) ? batch : encodeWireBatch(batch);
    const request: PutRequest = {
      taskId: task.id,
      configKey: this.#configKey(task),
      props: task.props,
      converters: task.converters ?? DEFAULT_CONVERTERS,
      transforms: task.transforms ?? NO_TRANSFORMS,
      assignment: task.assignment ?? NO_ASSIGNMENT,
      batch: wire,
    };
    this.#tasks.add(task.id);
    const stats = { convertMs: 0, converterFailures: [], threadId: -1, taskStarted: false };
    try {
      return await this.#pool.run(request, {
        transferList: transferables(wire),
        signal: options.signal ?? null,
      });
    } catch (error) {
      const durationMs = performance.now() - began;
      if (options.signal?.aborted === true) {
        const reason = String(options.signal.reason ?? 'aborted');
        this.#logger.warn(
          { taskId: task.id, durationMs },
          'put aborted; a running put costs its worker thread',
        );
        return { kind: 'aborted', reason, durationMs, ...stats };
      }
      const info =
        error instanceof Error ? { message: error.message, stack: error.stack } : { message: String(error) };
      this.#logger.error({ taskId: task.id, err: error }, 'worker thread died during a put');
      return { kind: 'fatal', code: 'SHARESINK_WORKER_CRASHED', ...info, durationMs, ...stats };
    }
  }

  /** Stops the task's instance on every thread (close(partitions), then stop()) once its put finished. */
  stopTask(taskId: string): Promise<StopTaskResult> {
    this.#tasks.delete(taskId);
    const requestId = ++this.#nextRequest;
    const pending = new Set(this.#ready);
    const failed: (ErrorInfo & { threadId: number })[] = [];
    let stopped = 0;
    if (pending.size === 0) return Promise.resolve({ stopped, failed, timedOut: [] });
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.#waiting.delete(requestId);
        const timedOut = [...pending];
        if (timedOut.length > 0 || failed.length > 0) {
          this.#logger.warn({ taskId, failed, timedOut }, 'task did not stop cleanly on every thread');
        }
        resolve({ stopped, failed, timedOut });
      };
      const timer = setTimeout(finish, this.#stopTimeoutMs);
      this.#waiting.set(requestId, (reply) => {
        if (!pending.delete(reply.threadId)) return;
        if (reply.error !== undefined) failed.push({ ...reply.error, threadId: reply.threadId });
        else if (reply.hadInstance) stopped++;
        if (pending.size === 0) finish();
      });
      const message: StopRequest = { op: 'stop', requestId, taskId };
      this.#requests.postMessage(message);
    });
  }

  /** Stops every task that was put through the pool, then terminates the threads. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all([...this.#tasks].map((taskId) => this.stopTask(taskId)));
      await this.#pool.destroy();
      this.#requests.close();
      this.#replies.close();
    })();
    return this.#closing;
  }

  #configKey(task: PoolTask): string {
    let key = this.#configKeys.get(task);
    if (key === undefined) {
      key = JSON.stringify([
        task.props,
        task.converters ?? DEFAULT_CONVERTERS,
        task.transforms ?? NO_TRANSFORMS,
      ]);
      this.#configKeys.set(task, key);
    }
    return key;
  }

  #onReply(reply: ControlReply): void {
    if (reply.op === 'ready') {
      this.#ready.add(reply.threadId);
      return;
    }
    this.#waiting.get(reply.requestId)?.(reply);
  }

  #onThreadGone(threadId: number): void {
    this.#ready.delete(threadId);
    // a stop waiting on this thread has nothing left to wait for there: its instances died with it
    for (const waiter of this.#waiting.values()) {
      waiter({ op: 'stopped', requestId: -1, threadId, hadInstance: false });
    }
  }
}
