import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { BroadcastChannel, type ResourceLimits } from 'node:worker_threads';
import { Piscina, queueOptionsSymbol } from 'piscina';
import type { RawRecord } from '../connect/raw-record.js';
import { SharesinkError } from '../errors.js';
import { defaultLogger, type Logger } from '../logger.js';
import { threadImportFailure } from './thread-import-failure.js';
import type {
  AbortRequest,
  ControlReply,
  ErrorInfo,
  PutRequest,
  PutResult,
  StopRequest,
  WorkerData,
} from './protocol.js';
import { ThreadBalancer, type PutTicket } from './thread-balancer.js';
import { abortedResult, noStats, PutRequests } from './put-request.js';
import type { PoolTask, PutOptions, PutRunner, StopTaskResult } from './put-runner.js';

// where callers have always found them
export type { PoolTask, PutOptions, StopTaskResult } from './put-runner.js';
import { encodeWireBatch, isWireBatch, transferables, type WireBatch } from './wire-batch.js';

// Sources run under tsx in tests and as .js once built; the worker entry has the same extension as this file.
const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const WORKER_ENTRY = new URL(`./worker-entry${EXT}`, import.meta.url);

export interface PutPoolOptions {
  /** Module specifier or URL of the connector module (see resolveConnectorModule). */
  connectorModule: string | URL;
  /** Worker threads, all started up front and kept: a thread's task instances live as long as it does. */
  threads?: number;
  /**
   * Puts one thread runs at once (`pool.puts.per.thread`), each for a different task instance: while
   * one put awaits I/O the thread runs another. Default {@link DEFAULT_PUTS_PER_THREAD}.
   */
  putsPerThread?: number;
  /**
   * Every put of a task runs on one thread (its instance there, one put at a time), as long as that
   * thread lives and has room: the connector's `oneThreadPerTask()`. Default false: a task's puts spread.
   */
  oneThreadPerTask?: boolean;
  /**
   * How long an aborted put that is running gets to honour its `context.abortSignal()` before its
   * thread is terminated. Default {@link DEFAULT_ABORT_GRACE_MS}.
   */
  abortGraceMs?: number;
  logger?: Logger;
  /** How long stopTask() waits for each thread's instance to stop. Default 30 s. */
  stopTimeoutMs?: number;
  /** Node flags for the threads; defaults to `--import tsx` when sharesink itself runs from .ts sources. */
  execArgv?: string[];
  resourceLimits?: ResourceLimits;
}

/** Enough for 8 tasks × the default 4 puts in flight on 2 threads; I/O-bound puts mostly wait. */
export const DEFAULT_PUTS_PER_THREAD = 16;
export const DEFAULT_ABORT_GRACE_MS = 1000;

/**
 * Runs sink task puts on a piscina pool. Each thread keeps its own instance of every task it has
 * served, so one task's batches can be put in parallel on several threads; a batch is encoded once
 * into transferable buffers and converted to SinkRecords in the thread.
 *
 * Threads run with atomics disabled: piscina's default parks idle threads in Atomics.wait, which would
 * freeze connectors' background I/O (pool keep-alives, timers) between puts and the stop channel.
 */
export class PutPool implements PutRunner {
  readonly #pool: Piscina<PutRequest, PutResult>;
  readonly #logger: Logger;
  readonly #stopTimeoutMs: number;
  readonly #requests: BroadcastChannel;
  readonly #replies: BroadcastChannel;
  readonly #ready = new Set<number>();
  readonly #startWaiters = new Set<{ done: () => void; fail: (error: SharesinkError) => void }>();
  /**
   * Why the threads cannot run puts, once one said so (it could not boot, or cannot load the connector
   * module): kept, because the start usually asks after the thread has answered.
   */
  #startFailure: SharesinkError | undefined;
  /** Every thread was ready once: puts go straight to piscina from then on. */
  #threadsReady = false;
  /** The first put's wait for {@link started}: undefined once the threads are ready, else why not. */
  #startOutcome: Promise<SharesinkError | undefined> | undefined;
  readonly #waiting = new Map<number, (reply: Extract<ControlReply, { op: 'stopped' }>) => void>();
  readonly #tasks = new Set<string>();
  readonly #requestsFor = new PutRequests();
  readonly #placement: ThreadBalancer;
  readonly #abortGraceMs: number;
  /** Threads this pool terminated, or that crashed, → puts running on them at that moment. */
  readonly #lostThreads = new Map<number, { readonly puts: number; readonly terminated: boolean }>();
  #nextRequest = 0;
  #nextPut = 0;
  #closing: Promise<void> | undefined;

  constructor(options: PutPoolOptions) {
    const threads = options.threads ?? availableParallelism();
    const putsPerThread = options.putsPerThread ?? DEFAULT_PUTS_PER_THREAD;
    this.#placement = new ThreadBalancer(putsPerThread, options.oneThreadPerTask === true);
    this.#abortGraceMs = options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS;
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
      concurrentTasksPerWorker: putsPerThread,
      loadBalancer: this.#placement.balancer,
      atomics: 'disabled',
      workerData,
      // resolved from here, not from the process's working directory, so a CLI run from anywhere works
      execArgv: options.execArgv ?? (EXT === '.ts' ? ['--import', import.meta.resolve('tsx')] : undefined),
      resourceLimits: options.resourceLimits,
    });
    this.#pool.on('error', (error: unknown) => {
      if (this.#ready.size === 0) this.#failStart(poolStartFailed(error));
      this.#logger.error({ err: error }, 'worker thread failed outside a put');
    });
    this.#pool.on('workerDestroy', (worker: { id: number }) => this.#onThreadGone(worker.id));
  }

  get threads(): number {
    return this.#pool.maxThreads;
  }

  /**
   * Resolves once every thread has booted and imported the connector module; rejects with
   * SHARESINK_POOL_START_FAILED when a thread cannot boot (a bad `--import`, a resource limit), and
   * with SHARESINK_CONNECTOR_MODULE_INVALID when a thread cannot load the connector module (a `.ts`
   * module in threads without tsx, an import that fails only in a worker), naming the module and the
   * thread's reason: a connector then fails at start, instead of queueing puts forever or failing
   * each task at its first put. Until it settles it keeps the process alive, as the threads and
   * their channels do not.
   */
  started(timeoutMs = 60_000): Promise<void> {
    if (this.#startFailure !== undefined) return Promise.reject(this.#startFailure);
    if (this.#closing !== undefined) return Promise.reject(poolStartFailed(new Error('the pool was closed')));
    if (this.#ready.size >= this.threads) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        done: () => {
          clearTimeout(timer);
          this.#startWaiters.delete(waiter);
          resolve();
        },
        fail: (error: SharesinkError) => {
          clearTimeout(timer);
          this.#startWaiters.delete(waiter);
          reject(error);
        },
      };
      // not unref'd: a service whose only pending work is `await pool.started()` would otherwise end
      // mid-start, since nothing else holds the event loop once piscina has booted the threads
      const timer = setTimeout(
        () => waiter.fail(poolStartFailed(new Error(`no thread was ready within ${timeoutMs} ms`))),
        timeoutMs,
      );
      this.#startWaiters.add(waiter);
    });
  }

  #failStart(error: SharesinkError): void {
    this.#startFailure ??= error;
    this.#startWaiters.forEach((w) => w.fail(error));
  }

  /** Puts one thread runs at once. */
  get putsPerThread(): number {
    return this.#pool.options.concurrentTasksPerWorker;
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
    const { signal } = options;
    if (signal?.aborted === true) return abortedResult(String(signal.reason ?? 'aborted'), 0);
    if (!this.#threadsReady) {
      // the first puts wait for the threads' start (the connector start does not): a pool that could
      // not start gives the batch back, to be released, rather than fail it at a thread
      const failure = await (this.#startOutcome ??= this.started().then(
        () => void (this.#threadsReady = true),
        (error: SharesinkError) => error,
      ));
      if (failure !== undefined) return abortedResult(failure.message, performance.now() - began);
    }
    const wire = isWireBatch(batch) ? batch : encodeWireBatch(batch);
    const putId = ++this.#nextPut;
    const ticket: PutTicket = { putId, taskId: task.id };
    const request: PutRequest & { [queueOptionsSymbol]: PutTicket } = {
      ...this.#requestsFor.build(task, putId, wire),
      // read by the placement balancer on the main thread; structured clone leaves symbol keys behind
      [queueOptionsSymbol]: ticket,
    };
    this.#tasks.add(task.id);
    // piscina's own abort is the last resort: it drops a queued put, or terminates a running put's thread
    const terminate = new AbortController();
    let abortReason: string | undefined;
    const onAbort = (): void => {
      abortReason = String(signal?.reason ?? 'aborted');
      this.#abortPut(putId, task.id, abortReason, terminate);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await this.#pool.run(request, {
        transferList: transferables(wire),
        signal: terminate.signal,
      });
      // the caller already decided the batch's fate; whatever the put did, it is released or retried
      if (abortReason !== undefined)
        return {
          ...abortedResult(abortReason, result.durationMs),
          threadId: result.threadId,
          taskStarted: result.taskStarted,
        };
      return result;
    } catch (error) {
      return this.#failed(putId, task.id, error, abortReason, performance.now() - began);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#settled(putId);
    }
  }

  /** A put whose thread went away: its own abort, a neighbour's, or a crash. */
  #failed(
    putId: number,
    taskId: string,
    error: unknown,
    abortReason: string | undefined,
    durationMs: number,
  ): PutResult {
    if (abortReason !== undefined) return abortedResult(abortReason, durationMs);
    const threadId = this.#placement.threadOf(putId);
    let lost = threadId === undefined ? undefined : this.#lostThreads.get(threadId);
    if (threadId !== undefined && lost === undefined) {
      // the first put to hear of a crash counts who was on the thread, before any of them settles
      lost = { puts: this.#placement.countOn(threadId), terminated: false };
      this.#lostThreads.set(threadId, lost);
    }
    if (lost !== undefined && (lost.terminated || lost.puts > 1)) {
      const why = lost.terminated
        ? 'its worker thread was terminated because another put on it ignored its abort'
        : `its worker thread crashed while ${lost.puts} puts ran on it`;
      this.#logger.warn({ taskId, threadId }, `put lost: ${why}; its records are released or retried`);
      return { kind: 'aborted', reason: why, threadLost: true, ...noStats(durationMs) };
    }
    const info =
      error instanceof Error ? { message: error.message, stack: error.stack } : { message: String(error) };
    this.#logger.error({ taskId, err: error }, 'worker thread died during a put');
    return { kind: 'fatal', code: 'SHARESINK_WORKER_CRASHED', ...info, ...noStats(durationMs) };
  }

  /**
   * Asks the put's thread to abort it (the task's `context.abortSignal()` fires), then terminates the
   * thread if the put is still running after the grace. A put not yet on a thread is simply dropped.
   */
  #abortPut(putId: number, taskId: string, reason: string, terminate: AbortController): void {
    const threadId = this.#placement.threadOf(putId);
    if (threadId === undefined) {
      terminate.abort(reason);
      return;
    }
    const message: AbortRequest = { op: 'abort', putId, reason };
    this.#requests.postMessage(message);
    const timer = setTimeout(() => {
      if (this.#placement.threadOf(putId) === undefined) return;
      const others = this.#placement.countOn(threadId) - 1;
      this.#lostThreads.set(threadId, { puts: others + 1, terminated: true });
      this.#logger.warn(
        { taskId, threadId, graceMs: this.#abortGraceMs, otherPuts: others },
        'put ignored its abort signal; terminating its worker thread (its other puts are released or retried)',
      );
      terminate.abort(reason);
    }, this.#abortGraceMs);
    timer.unref();
  }

  #settled(putId: number): void {
    const threadId = this.#placement.threadOf(putId);
    this.#placement.settled(putId);
    if (threadId !== undefined && this.#placement.countOn(threadId) === 0) this.#lostThreads.delete(threadId);
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
    // a start still waiting is answered now rather than at its timeout: its threads are about to go
    if (this.#startWaiters.size > 0) {
      const closed = poolStartFailed(new Error('the pool was closed before its threads were ready'));
      this.#startWaiters.forEach((w) => w.fail(closed));
    }
    this.#closing ??= (async () => {
      await Promise.all([...this.#tasks].map((taskId) => this.stopTask(taskId)));
      await this.#pool.destroy();
      this.#requests.close();
      this.#replies.close();
    })();
    return this.#closing;
  }

  #onReply(reply: ControlReply): void {
    if (reply.op === 'ready') {
      this.#ready.add(reply.threadId);
      if (reply.error !== undefined) this.#failStart(moduleUnloadable(reply.error));
      else if (this.#ready.size >= this.threads) this.#startWaiters.forEach((w) => w.done());
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

function poolStartFailed(error: unknown): SharesinkError {
  const why = error instanceof Error ? error.message : String(error);
  return new SharesinkError(
    'SHARESINK_POOL_START_FAILED',
    `the put pool's worker threads could not start: ${why}`,
    { cause: error },
  );
}

/** A thread booted and could not load the connector module; its message names the module and why. */
function moduleUnloadable(error: ErrorInfo): SharesinkError {
  const cause = Object.assign(new Error(error.message), { stack: error.stack });
  return new SharesinkError(
    error.code === 'SHARESINK_CONNECTOR_MODULE_INVALID' ? error.code : 'SHARESINK_POOL_START_FAILED',
    threadImportFailure(error.message),
    { cause },
  );
}
