/**
 * `put.placement=event-loop`: puts run on the main thread's event loop, with no worker thread between
 * the fetched records and the sink (ADR 0013). For a sink whose `put()` awaits I/O (a database, an
 * endpoint) the pool's thread hop is pure cost: ~3 µs per record at a steady rate (ADR 0011).
 *
 * What the pool gives and this does not: a put that computes blocks the event loop (fetches,
 * heartbeats and lock renewals wait for it); a put that ignores its abort signal cannot be stopped,
 * so its batch is given up as aborted after `pool.abort.grace.ms` while the put runs on, and its
 * instance is abandoned (never stopped) for a new one, as a terminated pool thread's would be; an
 * exception a task throws outside a put (a timer, an unhandled rejection) reaches the process.
 */
import { performance } from 'node:perf_hooks';
import type { ConnectorModule } from '../connect/connector-module.js';
import type { RawRecord } from '../connect/raw-record.js';
import { defaultLogger, type Logger } from '../logger.js';
import type { PutResult } from './protocol.js';
import { DEFAULT_ABORT_GRACE_MS } from './put-pool.js';
import { abortedResult, PutRequests } from './put-request.js';
import type { PoolTask, PutOptions, PutRunner, StopTaskResult } from './put-runner.js';
import { connectorLoader, errorInfo, TaskHost } from './task-host.js';
import type { WireBatch } from './wire-batch.js';

export interface EventLoopPutsOptions {
  /** Module specifier or URL of the connector module. */
  readonly connectorModule: string | URL;
  /** How long an aborted put gets to honour its abort signal before its batch is given up. */
  readonly abortGraceMs?: number;
  /** How long stopTask() waits for the task's instance to stop. Default 30 s. */
  readonly stopTimeoutMs?: number;
  readonly logger?: Logger;
}

/** The `threadId` results carry here: the main thread's. */
const MAIN_THREAD = 0;

/**
 * Task instances live in hosts, as in the pool's threads: a put goes to the first host where its task
 * is not putting, and a new host is made when there is none. So a task runs as many puts at once as
 * the pool would give it (one per instance, up to `max.inflight.batches`), each instance one put at a
 * time, and a put that never ends holds only its own instance.
 */
export class EventLoopPuts implements PutRunner {
  readonly threads = 0;
  /** Every task's puts run side by side; `tasks.max` × `max.inflight.batches` bounds them. */
  readonly putsPerThread = Number.POSITIVE_INFINITY;
  /** One load for started() and every host: the module is the main thread's, loaded once. */
  readonly #load: () => Promise<ConnectorModule>;
  readonly #hosts: TaskHost[] = [];
  /** host → task id → puts of that task running on it (at most one, the host's lane). */
  readonly #running = new Map<TaskHost, Map<string, number>>();
  readonly #requests = new PutRequests();
  readonly #abortGraceMs: number;
  readonly #stopTimeoutMs: number;
  readonly #logger: Logger;
  readonly #tasks = new Set<string>();
  #nextPut = 0;
  #closing: Promise<void> | undefined;

  constructor(options: EventLoopPutsOptions) {
    this.#load = connectorLoader(String(options.connectorModule));
    this.#abortGraceMs = options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS;
    this.#stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
    this.#logger = (options.logger ?? defaultLogger()).child({ component: 'put-pool' });
  }

  /**
   * Loads the connector module, as a pool thread does while it boots, so a module that cannot be
   * loaded fails the start with SHARESINK_CONNECTOR_MODULE_INVALID in either placement. The main
   * thread has usually loaded it already: this import is answered from its module cache.
   */
  async started(): Promise<void> {
    await this.#load();
  }

  /**
   * Runs the put here, on the records as they are (no copy; they are left as they were, for a retry).
   * Once `signal` fires the result is `aborted` whatever the put does: the caller has decided the
   * batch's fate. A put that honours its signal ends it; one that does not is given up after the grace.
   */
  put(task: PoolTask, batch: WireBatch | readonly RawRecord[], options: PutOptions = {}): Promise<PutResult> {
    const { signal } = options;
    if (signal?.aborted === true)
      return Promise.resolve(abortedResult(String(signal.reason), 0, MAIN_THREAD));
    const putId = ++this.#nextPut;
    this.#tasks.add(task.id);
    const host = this.#hostFor(task.id);
    this.#mark(host, task.id, +1);
    const running = host.put(this.#requests.build(task, putId, batch));
    void running.then(() => this.#mark(host, task.id, -1));
    if (signal === undefined) return running;
    const began = performance.now();
    return new Promise((resolve) => {
      let grace: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        host.abort(putId, String(signal.reason));
        grace = setTimeout(() => {
          // the next put of the task gets a new instance rather than waiting behind this one forever
          const abandoned = host.abandon(task.id, putId);
          this.#logger.warn(
            { taskId: task.id, graceMs: this.#abortGraceMs, abandoned },
            'put ignored its abort signal; put.placement=event-loop cannot stop it, so it runs on while its records are released or retried' +
              (abandoned ? ', and the task gets a new instance' : ''),
          );
          resolve(abortedResult(String(signal.reason), performance.now() - began, MAIN_THREAD));
        }, this.#abortGraceMs);
        grace.unref();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      void running.then((result) => {
        signal.removeEventListener('abort', onAbort);
        clearTimeout(grace);
        resolve(
          signal.aborted
            ? {
                ...abortedResult(String(signal.reason), result.durationMs, MAIN_THREAD),
                taskStarted: result.taskStarted,
              }
            : result,
        );
      });
    });
  }

  /** Stops the task's instances once their running puts finished (at most `stopTimeoutMs`). */
  async stopTask(taskId: string): Promise<StopTaskResult> {
    this.#tasks.delete(taskId);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.#stopTimeoutMs);
      timer.unref();
    });
    const outcomes = await Promise.all(
      this.#hosts.map((host) =>
        Promise.race([
          host.stop(taskId).then(
            (hadInstance) => ({ hadInstance }),
            (error: unknown) => ({ error: errorInfo(error) }),
          ),
          timeout,
        ]),
      ),
    );
    clearTimeout(timer);
    const result: StopTaskResult = {
      stopped: outcomes.filter((o) => o !== 'timeout' && 'hadInstance' in o && o.hadInstance).length,
      failed: outcomes.flatMap((o) =>
        o !== 'timeout' && 'error' in o ? [{ ...o.error, threadId: MAIN_THREAD }] : [],
      ),
      timedOut: outcomes.some((o) => o === 'timeout') ? [MAIN_THREAD] : [],
    };
    if (result.failed.length > 0 || result.timedOut.length > 0)
      this.#logger.warn(
        { taskId, failed: result.failed, timedOut: result.timedOut },
        'task did not stop cleanly',
      );
    return result;
  }

  #hostFor(taskId: string): TaskHost {
    for (const host of this.#hosts) if ((this.#running.get(host)?.get(taskId) ?? 0) === 0) return host;
    const host = new TaskHost(this.#load);
    this.#hosts.push(host);
    return host;
  }

  #mark(host: TaskHost, taskId: string, delta: number): void {
    let tasks = this.#running.get(host);
    if (tasks === undefined) this.#running.set(host, (tasks = new Map()));
    const n = (tasks.get(taskId) ?? 0) + delta;
    if (n > 0) tasks.set(taskId, n);
    else tasks.delete(taskId);
  }

  /** Stops every task that was put through it. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= Promise.all([...this.#tasks].map((taskId) => this.stopTask(taskId))).then(
      () => undefined,
    );
    return this.#closing;
  }
}
