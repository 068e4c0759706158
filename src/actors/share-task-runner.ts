/**
 * One sink task in share mode: ShareConsumer → batch actors → puts on the pool → acknowledgements.
 *
 * Each poll result becomes one batch actor (the pure batch machine with this runner's effects), watched
 * by the lock supervisor, which renews or releases its locks from acquisition to acknowledgement. A put
 * carries every batch that waited for it, up to `max.poll.records` records (ADR 0007): while the task's
 * puts run, the batches fetched meanwhile gather for the next one, so under a backlog a put is as big
 * as Connect's, and with nothing running a batch is put at once. Each batch is still acknowledged on its
 * own. Everything here is per batch: records are touched only by plain loops when they are converted to
 * the wire format or split for a per-record acknowledgement.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createActor, type Actor, type InspectionEvent } from 'xstate';
import type { Logger } from 'pino';
import type { ShareConsumer, ShareRecord } from '../kafka/share/share-consumer.js';
import {
  createBatchMachine,
  type AckDisposition,
  type BatchEffects,
  type BatchEvent,
  type BatchMachine,
  type BatchOutput,
} from '../machines/batch.js';
import type { PoolTask, PutPool } from '../pool/put-pool.js';
import type { PutResult } from '../pool/protocol.js';
import type { LockSupervisor } from './supervisor.js';
import { sliceResult } from './put-slice.js';
import { putRetryingInPlace, type SharePutHost } from './share-put.js';
import { TaskCounters } from './task-counters.js';
import { logFailedRecords, type ErrorLogOptions } from './errors/log-reporter.js';
import type { DeadLetterReason } from './errors/reasons.js';
import { RetryBackoff } from './errors/retry-backoff.js';
import { TaskFailedError } from './errors/task-failed.js';
import { putVerdict } from './errors/tolerance.js';

export interface ShareTaskRunnerOptions {
  readonly connector: string;
  readonly taskId: number;
  readonly topics: readonly string[];
  readonly consumer: ShareConsumer;
  readonly pool: PutPool;
  readonly poolTask: PoolTask;
  readonly supervisor: LockSupervisor;
  readonly logger: Logger;
  /**
   * Puts the task runs at once, at most (`max.inflight.batches`). Default 4. A put whose call has ended
   * no longer counts: its acknowledgements ride on the ShareFetch of the next poll (ADR 0005).
   */
  readonly maxInFlightBatches?: number;
  /**
   * Records one put carries at most, and records fetched ahead while the puts run (`max.poll.records`,
   * ADR 0007). Default 500.
   */
  readonly maxPollRecords?: number;
  /** `errors.tolerance`: `none` fails the task after a fatal put (the batch is REJECTed first). */
  readonly errorsTolerance?: 'none' | 'all';
  /** Backoff before fetching again after a retriable failure: doubles from 100 ms up to this. */
  readonly retryDelayMaxMs?: number;
  /** How long stop() lets running puts finish before it aborts and releases them. Default 5000. */
  readonly shutdownGraceMs?: number;
  /** `release` RELEASEs a batch at its first RetriableError (KIP-1302); `retry` (default) retries in place. */
  readonly retriableAction?: 'retry' | 'release';
  /** `errors.retry.timeout`: with `retry`, the longest time one batch is retried in place (≤ 0: no bound). */
  readonly retryTimeoutMs?: number;
  /** `off` never renews locks (puts longer than the lock are aborted and released early). Default `auto`. */
  readonly lockRenewal?: 'auto' | 'off';
  /** XState inspection hook for the batch actors (e.g. a TransitionCounter's `inspect`). */
  readonly inspect?: (event: InspectionEvent) => void;
  /** `errors.log.enable` / `errors.log.include.messages`. */
  readonly errorsLog?: ErrorLogOptions;
  /** Called once when the task fails (errors.tolerance=none and a fatal error). */
  readonly onFailure?: (error: Error) => void;
}

interface BatchWork {
  readonly id: string;
  readonly records: readonly ShareRecord[];
  readonly actor: Actor<BatchMachine>;
  /** The put carrying this batch, once it is dispatched. */
  put: GroupPut | undefined;
  lastPut: PutResult | undefined;
  /** Why records of the last put were bad, by batch index (for errors.log.enable). */
  readonly reasons: Map<number, DeadLetterReason>;
}

/** One put of one or more batches: the first batch's `startPut` runs it, for all of them. */
interface GroupPut {
  readonly batches: readonly BatchWork[];
  readonly abort: AbortController;
  started: boolean;
}

export class ShareTaskRunner {
  readonly counters = new TaskCounters();
  private readonly o: ShareTaskRunnerOptions;
  private readonly log: Logger;
  private readonly machine: BatchMachine;
  private readonly batches = new Map<string, BatchWork>();
  private readonly backoff: RetryBackoff;
  private seq = 0;
  /** Acquired batches waiting for a put, oldest first, and their records. */
  private waiting: BatchWork[] = [];
  private waitingRecords = 0;
  /** Puts whose pool call has not ended. */
  private putsRunning = 0;
  private dispatchScheduled = false;
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeFetch: (() => void) | undefined;
  private failed: Error | undefined;
  private readonly maxInFlight: number;
  private readonly maxPollRecords: number;
  private readonly retryHost: SharePutHost;

  constructor(options: ShareTaskRunnerOptions) {
    this.o = options;
    this.log = options.logger.child({ connector: options.connector, task: options.taskId });
    this.backoff = new RetryBackoff(100, options.retryDelayMaxMs ?? 60_000);
    this.machine = createBatchMachine(this.effects());
    this.maxInFlight = options.maxInFlightBatches ?? 4;
    this.maxPollRecords = options.maxPollRecords ?? 500;
    this.retryHost = {
      ...options,
      counters: this.counters,
      log: this.log,
      fetchBackoff: this.backoff,
      now: () => options.supervisor.now(),
      isRunning: () => this.running,
    };
  }

  /** Fetch while the next put has room: records waiting for it stay under `max.poll.records`. */
  private get mayFetch(): boolean {
    return this.waitingRecords < this.maxPollRecords;
  }

  /**
   * Start a put now? With none running, at once (latency). With some running, only once a whole put's
   * worth is waiting: the batches that arrive meanwhile gather into the next put rather than each
   * taking a put of its own, which is what makes puts big under a backlog.
   */
  private get mayDispatch(): boolean {
    if (this.waiting.length === 0 || this.putsRunning >= this.maxInFlight) return false;
    return this.putsRunning === 0 || this.waitingRecords >= this.maxPollRecords;
  }

  get inFlight(): number {
    return this.batches.size;
  }

  async start(): Promise<void> {
    const { consumer, supervisor, topics } = this.o;
    await consumer.subscribe(topics);
    supervisor.setRenewAvailable(this.o.lockRenewal !== 'off' && (await consumer.renewSupported()));
    this.running = true;
    this.loop = this.fetchLoop().catch((err: Error) => this.fail(err));
    this.log.info({ topics }, 'share task started');
  }

  /**
   * Stops fetching, lets running puts finish within the grace time, acknowledges what finished,
   * releases the rest, and closes the consumer (which leaves the group).
   */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeFetch?.();
    await this.loop;
    const grace = this.o.shutdownGraceMs ?? 5000;
    const deadline = Date.now() + grace;
    while (this.batches.size > 0 && Date.now() < deadline)
      await sleep(Math.max(0, Math.min(50, deadline - Date.now())));
    for (const b of this.batches.values()) b.actor.send({ type: 'SHUTDOWN' });
    while (this.batches.size > 0) await sleep(20);
    await this.o.consumer.close();
    this.log.info(this.counters.snapshot(), 'share task stopped');
  }

  private async fetchLoop(): Promise<void> {
    while (this.running) {
      if (!this.mayFetch) {
        await new Promise<void>((r) => (this.wakeFetch = r));
        this.wakeFetch = undefined;
        continue;
      }
      const wait = this.backoff.remainingMs();
      if (wait > 0) {
        await sleep(wait);
        continue;
      }
      const acquiredAt = this.o.supervisor.now();
      const records = await this.o.consumer.poll({ maxWaitMs: 1000 });
      if (records.length === 0) continue;
      const lock = this.o.consumer.acquisitionLockTimeoutMs;
      if (lock !== undefined && lock !== this.o.supervisor.lockDurationMs)
        this.o.supervisor.setLockDuration(lock);
      this.startBatch(records, acquiredAt);
    }
  }

  private startBatch(records: ShareRecord[], acquiredAt: number): void {
    const id = `${this.o.connector}-${this.o.taskId}-${++this.seq}`;
    let deliveryCount = 1;
    for (const r of records) if (r.deliveryCount > deliveryCount) deliveryCount = r.deliveryCount;
    this.counters.onBatch(records.length, records);
    const actor = createActor(this.machine, {
      input: { batchId: id, recordCount: records.length, mode: 'share', acquiredAt, deliveryCount },
      inspect: this.o.inspect,
    });
    const work: BatchWork = { id, records, actor, put: undefined, lastPut: undefined, reasons: new Map() };
    this.batches.set(id, work);
    this.waiting.push(work);
    this.waitingRecords += records.length;
    actor.subscribe({
      complete: () => this.finish(work, actor.getSnapshot().output),
      error: (err) => {
        this.log.error({ batchId: id, err }, 'batch actor failed');
        this.forget(work);
      },
    });
    this.o.supervisor.watch(actor);
    actor.start();
    // With more puts allowed after this one, the fetch loop polls again at once: the put's setup (the
    // actors' transitions, the wire batch, the hand-off to a pool thread) then waits for the next
    // macrotask, so that ShareFetch goes out first, on this turn's microtasks, and the broker works on
    // the next batch while this one is set up. With the last put slot, nothing is gained by waiting.
    if (!this.mayDispatch) return;
    if (this.putsRunning + 1 < this.maxInFlight) this.scheduleDispatch();
    else this.dispatch();
  }

  private scheduleDispatch(): void {
    if (this.dispatchScheduled) return;
    this.dispatchScheduled = true;
    setImmediate(() => {
      this.dispatchScheduled = false;
      this.dispatch();
    });
  }

  /** Starts puts while allowed, each with the waiting batches, oldest first, up to `max.poll.records`. */
  private dispatch(): void {
    while (this.mayDispatch) {
      const batches: BatchWork[] = [];
      let records = 0;
      while (this.waiting.length > 0) {
        const next = this.waiting[0]!;
        if (batches.length > 0 && records + next.records.length > this.maxPollRecords) break;
        this.waiting.shift();
        batches.push(next);
        records += next.records.length;
      }
      this.waitingRecords -= records;
      const put: GroupPut = { batches, abort: new AbortController(), started: false };
      this.putsRunning++;
      for (const b of batches) {
        b.put = put;
        b.actor.send({ type: 'DISPATCH' });
      }
      // every batch of the put left `acquired` before DISPATCH (released, expired): nothing to put
      if (!put.started) this.putEnded();
    }
    this.wakeFetch?.();
  }

  private putEnded(): void {
    this.putsRunning--;
    this.dispatch();
  }

  private finish(work: BatchWork, output: BatchOutput | undefined): void {
    this.forget(work);
    if (!output) return;
    this.counters.onOutcome(output, work.records.length);
    const d = output.disposition;
    const level = d.kind === 'accept' ? 'debug' : 'info';
    this.log[level](
      { batchId: work.id, records: work.records.length, disposition: d.kind, ackError: output.ackError },
      'batch done',
    );
    if (d.kind === 'reject' || d.kind === 'partial') this.logRejected(work, d);
    if (d.kind === 'reject' && d.reason === 'fatal' && (this.o.errorsTolerance ?? 'none') === 'none') {
      const message = work.lastPut && 'message' in work.lastPut ? work.lastPut.message : 'put failed';
      this.fail(new TaskFailedError(`${message} (errors.tolerance=none; the batch was rejected)`));
    }
  }

  private forget(work: BatchWork): void {
    if (!this.batches.delete(work.id)) return;
    const at = work.put === undefined ? this.waiting.indexOf(work) : -1;
    if (at >= 0) {
      // released or expired while it waited for a put
      this.waiting.splice(at, 1);
      this.waitingRecords -= work.records.length;
      this.wakeFetch?.();
    }
  }

  private logRejected(
    work: BatchWork,
    d: Extract<BatchOutput['disposition'], { kind: 'reject' | 'partial' }>,
  ): void {
    const put = work.lastPut;
    const whole = put && 'message' in put ? put.message : d.kind === 'reject' ? d.reason : 'rejected';
    const indexes = d.kind === 'partial' ? d.rejectedOffsets : work.records.map((_, i) => i);
    logFailedRecords(
      this.log,
      this.o.errorsLog,
      work.id,
      work.records,
      indexes,
      (i) => work.reasons.get(i)?.message ?? whole,
    );
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    this.running = false;
    this.wakeFetch?.();
    this.log.error({ err: err.message }, 'share task failed');
    this.o.onFailure?.(err);
  }

  // ------------------------------------------------------------------ effects of the batch machine

  private effects(): BatchEffects {
    const send = (id: string, event: BatchEvent) => this.batches.get(id)?.actor.send(event);
    return {
      startPut: ({ batchId }) => {
        const put = this.batches.get(batchId)?.put;
        if (!put || put.started) return;
        put.started = true;
        void putRetryingInPlace(this.retryHost, put.batches, put.abort.signal).then((result) => {
          this.putEnded();
          let from = 0;
          for (const work of put.batches) {
            const own = put.batches.length === 1 ? result : sliceResult(result, from, work.records.length);
            from += work.records.length;
            work.lastPut = own;
            send(work.id, this.eventFor(work, own));
          }
        });
      },
      abortPut: ({ batchId, reason }) => {
        // the put carries other batches too: they come back ABORTED and are released with this one
        const put = this.batches.get(batchId)?.put;
        if (put && !put.abort.signal.aborted) {
          put.abort.abort(reason);
          this.counters.putsAborted++;
        }
      },
      sendAcks: ({ batchId, disposition }) => {
        const work = this.batches.get(batchId);
        if (!work) return;
        // no commit(): the next poll's ShareFetch carries these acks (ADR 0005)
        void this.acknowledge(work, disposition).then(
          (errorCode) =>
            send(batchId, errorCode === null ? { type: 'ACKED' } : { type: 'ACK_FAILED', errorCode }),
          (err: Error) => send(batchId, { type: 'ACK_FAILED', errorCode: err.message }),
        );
      },
      sendRenew: ({ batchId }) => {
        const work = this.batches.get(batchId);
        if (!work) return;
        const sentAt = this.o.supervisor.now();
        let results;
        try {
          results = this.o.consumer.acknowledge(work.records, 'renew');
        } catch (err) {
          this.log.warn({ batchId, err: (err as Error).message }, 'renew refused');
          send(batchId, { type: 'RENEW_UNAVAILABLE' });
          return;
        }
        // acknowledge() sends it with the session's next request, at the latest at the end of this turn
        void results.then((rs) => {
          const failed = rs.find((r) => r.error !== null);
          if (failed) {
            this.log.warn({ batchId, err: failed.error?.message }, 'renew failed; releasing early');
            send(batchId, { type: 'RENEW_UNAVAILABLE' });
            return;
          }
          const lock = this.o.consumer.acquisitionLockTimeoutMs ?? this.o.supervisor.lockDurationMs;
          send(batchId, { type: 'RENEWED', until: sentAt + lock });
        });
      },
      scheduleRetry: ({ batchId }) => {
        // classic mode only; a share batch is released instead
        send(batchId, { type: 'RETRIES_EXHAUSTED' });
      },
      recordExpiry: ({ batchId, recordCount, duringPut }) => {
        this.counters.recordsLockExpired += recordCount;
        this.log.warn({ batchId, recordCount, duringPut }, 'acquisition lock expired; the broker redelivers');
      },
      recordAckFailure: ({ batchId, errorCode }) => {
        this.log.warn({ batchId, errorCode }, 'acknowledgement failed');
      },
    };
  }

  /** Maps a put result to the batch event (errors/tolerance.ts); converter failures are errant records. */
  private eventFor(work: BatchWork, result: PutResult): BatchEvent {
    const verdict = putVerdict(result, 'share', this.o.errorsTolerance ?? 'none', work.reasons);
    if (result.kind === 'retriable') this.backoff.failed(result.backoffMs);
    else if (result.kind === 'ok' || result.kind === 'perRecord') this.backoff.succeeded();
    if (result.kind === 'fatal') this.log.error({ code: result.code, err: result.message }, 'put failed');
    if (verdict.failure) this.fail(verdict.failure);
    return verdict.event;
  }

  /** Sends the batch's acknowledgements; resolves with null or the first error code. */
  private async acknowledge(work: BatchWork, d: AckDisposition): Promise<string | null> {
    const { consumer } = this.o;
    let pending: Promise<Array<{ error: { code: string } | null }>>[];
    if (d.kind === 'partial') {
      // rejectedOffsets carries record indexes within the batch (see eventFor)
      const rejected = new Set(d.rejectedOffsets);
      const bad: ShareRecord[] = [];
      const good: ShareRecord[] = [];
      work.records.forEach((r, i) => (rejected.has(i) ? bad : good).push(r));
      pending = [];
      if (good.length > 0) pending.push(consumer.acknowledge(good, 'accept'));
      if (bad.length > 0) pending.push(consumer.acknowledge(bad, 'reject'));
    } else {
      pending = [consumer.acknowledge(work.records, d.kind)];
    }
    // no commit(): the consumer sends them at the end of this turn, on the next poll's ShareFetch if any
    const results = (await Promise.all(pending)).flat();
    const failed = results.find((r) => r.error !== null)?.error;
    // the Kafka error name (e.g. INVALID_RECORD_STATE) says more than our generic code
    return failed ? ((failed as { kafkaName?: string }).kafkaName ?? failed.code) : null;
  }
}
