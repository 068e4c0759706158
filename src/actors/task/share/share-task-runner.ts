/**
 * One sink task in share mode: ShareConsumer → batch actors → puts on the pool → acknowledgements.
 *
 * The share mode of the task-runner core (ADR 0009): where batches come from (the fetch loop), when a
 * put starts, what settling a batch means (ACCEPT / RELEASE / REJECT) and the locks (RENEW). Each poll
 * result becomes one batch actor, watched by the lock supervisor from acquisition to acknowledgement.
 * A put carries every batch that waited for it, up to `max.poll.records` records (ADR 0007): while the
 * task's puts run, the batches fetched meanwhile gather for the next one, so under a backlog a put is as
 * big as Connect's, and with nothing running a batch is put at once. Everything here is per batch.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { InspectionEvent } from 'xstate';
import type { Logger } from 'pino';
import { BackoffWaits } from '../../../kafka/backoff-waits.js';
import type { ShareRecord } from '../../../kafka/share/share-consumer.js';
import { batchWork, type AckDisposition, type BatchOutput } from '../../../machines/batch.js';
import type { PoolTask } from '../../../pool/put-pool.js';
import type { PutRunner } from '../../../pool/put-runner.js';
import type { PutResult } from '../../../pool/protocol.js';
import { logFailedRecords, type ErrorLogOptions } from '../../errors/log-reporter.js';
import { ReleaseLines, type DeliveryLimit } from '../../errors/release-lines.js';
import { RetryBackoff } from '../../errors/retry-backoff.js';
import { TaskFailedError } from '../../errors/task-failed.js';
import { toRawRecords } from './put-records.js';
import type { ShareSource } from './share-source.js';
import type { LockSupervisor } from './supervisor.js';
import type { Clock } from '../core/clock.js';
import { TaskCounters } from '../core/task-counters.js';
import { TaskRunnerCore, type CoreBatch, type RunnerMode } from '../core/task-runner-core.js';

export interface ShareTaskRunnerOptions {
  readonly connector: string;
  readonly taskId: number;
  readonly topics: readonly string[];
  /** The task's member, or its lease on the member the connector shares on this worker. */
  readonly consumer: ShareSource;
  readonly pool: PutRunner;
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
  /** Where retry backoffs wait. Default: real time (tests pass a simulated clock). */
  readonly retryClock?: Clock;
  /** `errors.log.enable` / `errors.log.include.messages`. */
  readonly errorsLog?: ErrorLogOptions;
  /** Called once when the task fails (errors.tolerance=none and a fatal error). */
  readonly onFailure?: (error: Error) => void;
  /** The group's delivery limit, once known: records released on their last delivery are logged. */
  readonly deliveryLimit?: () => DeliveryLimit | undefined;
}

interface ShareBatch extends CoreBatch {
  records: readonly ShareRecord[];
}

export class ShareTaskRunner {
  readonly counters = new TaskCounters();
  private readonly o: ShareTaskRunnerOptions;
  private readonly log: Logger;
  private readonly core: TaskRunnerCore<ShareBatch>;
  /** Throttles fetching while puts fail retriably: new batches would fail alike. */
  private readonly backoff: RetryBackoff;
  private seq = 0;
  /** Acquired batches waiting for a put, oldest first, and their records. */
  private waiting: ShareBatch[] = [];
  private waitingRecords = 0;
  /** Puts started and not ended (their retries included). */
  private putsRunning = 0;
  private dispatchScheduled = false;
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeFetch: (() => void) | undefined;
  private readonly backoffWaits = new BackoffWaits();
  private failed: Error | undefined;
  /** Renewals that failed once the task was stopping: said once, in the stop line. */
  private renewalsFailedWhileStopping = 0;
  private readonly maxInFlight: number;
  private readonly maxPollRecords: number;
  private readonly releaseLines: ReleaseLines;

  constructor(options: ShareTaskRunnerOptions) {
    this.o = options;
    // the connector is bound by its runtime already: binding it again would write the key twice
    this.log = options.logger.child({ task: options.taskId });
    this.backoff = new RetryBackoff(100, options.retryDelayMaxMs ?? 60_000);
    this.maxInFlight = options.maxInFlightBatches ?? 4;
    this.maxPollRecords = options.maxPollRecords ?? 500;
    this.releaseLines = new ReleaseLines(this.log, options.deliveryLimit ?? (() => undefined));
    this.core = new TaskRunnerCore(
      {
        pool: options.pool,
        counters: this.counters,
        log: this.log,
        inspect: options.inspect,
        fail: (e) => this.fail(e),
        clock: options.retryClock,
      },
      this.mode(),
    );
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
    return this.core.batches.size;
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
    const batches = this.core.batches;
    // a batch waiting to retry is not a running put: released now, not after the grace time (as classic)
    this.core.stopRetries();
    const deadline = Date.now() + (this.o.shutdownGraceMs ?? 5000);
    while (batches.size > 0 && Date.now() < deadline)
      await sleep(Math.max(0, Math.min(50, deadline - Date.now())));
    for (const b of batches.values()) b.actor.send({ type: 'SHUTDOWN' });
    while (batches.size > 0) await sleep(20);
    await this.o.consumer.close();
    const failedRenewals = this.renewalsFailedWhileStopping;
    this.log.info(
      failedRenewals > 0
        ? { ...this.counters.snapshot(), renewalsFailedWhileStopping: failedRenewals }
        : this.counters.snapshot(),
      'share task stopped',
    );
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
        // woken by stop() and finished batches: a stop never waits out errors.retry.delay.max.ms
        const backoff = this.backoffWaits.sleep(wait);
        this.wakeFetch = () => this.backoffWaits.wakeAll();
        await backoff;
        this.wakeFetch = undefined;
        continue;
      }
      const polledAt = this.o.supervisor.now();
      const records = await this.o.consumer.poll({ maxWaitMs: 1000 });
      if (records.length === 0) continue;
      // the rest of an answer of several polls' worth becomes supervised batches now (ADR 0019)
      for (let r: ShareRecord[] | undefined = records; r; r = this.o.consumer.takeReady?.())
        this.adopt(r, polledAt);
    }
  }

  private adopt(records: ShareRecord[], polledAt: number): void {
    // locks run from the fetch (records may have waited), not from the poll: a poll can wait long before
    // it fetches (a paused gate), and records fetched at resume were taken for expired, written twice.
    // The fetch's send time is wall-clock; the supervisor's clock gets the age, not the time.
    const fetchedAt = this.o.consumer.acquiredAt?.(records);
    const now = this.o.supervisor.now();
    const acquiredAt = fetchedAt === undefined ? polledAt : now - (Date.now() - fetchedAt);
    const lock = this.o.consumer.acquisitionLockTimeoutMs;
    if (lock !== undefined && lock !== this.o.supervisor.lockDurationMs)
      this.o.supervisor.setLockDuration(lock);
    this.startBatch(records, acquiredAt);
  }

  private startBatch(records: ShareRecord[], acquiredAt: number): void {
    const id = `${this.o.connector}-${this.o.taskId}-${++this.seq}`;
    let deliveryCount = 1;
    for (const r of records) if (r.deliveryCount > deliveryCount) deliveryCount = r.deliveryCount;
    this.counters.onBatch(records.length, records);
    const actor = this.core.actorFor({ batchId: id, recordCount: records.length, acquiredAt, deliveryCount });
    const batch: ShareBatch = { id, records, actor, put: undefined, lastPut: undefined, reasons: new Map() };
    this.waiting.push(batch);
    this.waitingRecords += records.length;
    this.core.track(batch);
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
      const batches: ShareBatch[] = [];
      let records = 0;
      while (this.waiting.length > 0) {
        const next = this.waiting[0]!;
        if (batches.length > 0 && records + next.records.length > this.maxPollRecords) break;
        this.waiting.shift();
        batches.push(next);
        records += next.records.length;
      }
      this.waitingRecords -= records;
      this.putsRunning++;
      this.core.dispatch(batches);
    }
    this.wakeFetch?.();
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    this.running = false;
    this.wakeFetch?.();
    this.log.error({ err: err.message }, 'share task failed');
    this.o.onFailure?.(err);
  }

  /** The share mode of the core: acknowledgements, lock renewal, releases. */
  private mode(): RunnerMode<ShareBatch> {
    const o = this.o;
    return {
      mode: 'share',
      tolerance: o.errorsTolerance ?? 'none',
      retryTimeoutMs: o.retryTimeoutMs ?? 0,
      retryDelayMaxMs: o.retryDelayMaxMs ?? 60_000,
      poolTask: () => o.poolTask,
      toRaw: toRawRecords,
      settle: (batch, d) => this.acknowledge(batch, d),
      // a release spends one of the group's deliveries: only at once when asked (KIP-1302's action)
      retryDecision: () =>
        !this.running ? 'release' : o.retriableAction === 'release' ? 'give-up' : 'retry',
      renew: (batch) => this.renew(batch),
      onPutResult: (result) => {
        if (result.kind === 'retriable') this.backoff.failed(result.backoffMs);
        else if (result.kind === 'ok' || result.kind === 'perRecord') this.backoff.succeeded();
      },
      onRetry: () => {},
      onPutEnded: () => {
        this.putsRunning--;
        this.dispatch();
      },
      onBatchDone: (batch, output) => this.batchDone(batch, output),
      recordExpiry: (batch, recordCount, duringPut) => {
        this.counters.recordsLockExpired += recordCount;
        this.releaseLines.expired(batch.id, batch.records);
        this.log.warn(
          { batchId: batch.id, recordCount, duringPut },
          'acquisition lock expired; the broker redelivers',
        );
      },
      recordAckFailure: (batch, errorCode) =>
        this.log.warn({ batchId: batch.id, errorCode }, 'acknowledgement failed'),
    };
  }

  private batchDone(batch: ShareBatch, output: BatchOutput | undefined): void {
    const at = batch.put === undefined ? this.waiting.indexOf(batch) : -1;
    if (at >= 0) {
      // released or expired while it waited for a put
      this.waiting.splice(at, 1);
      this.waitingRecords -= batch.records.length;
      this.wakeFetch?.();
    }
    if (!output) return;
    const d = output.disposition;
    // how many were rejected, so a partial batch is readable without errors.log.enable
    const rejected =
      d.kind === 'partial'
        ? d.rejectedIndexes.length
        : d.kind === 'reject'
          ? batch.records.length
          : undefined;
    this.log[d.kind === 'accept' ? 'debug' : 'info'](
      {
        batchId: batch.id,
        records: batch.records.length,
        disposition: d.kind,
        ...(rejected === undefined ? {} : { rejected }),
        ackError: output.ackError,
      },
      'batch done',
    );
    if (d.kind === 'release') this.releaseLines.released(batch, !this.running);
    if (d.kind !== 'reject' && d.kind !== 'partial') return;
    const put = batch.lastPut;
    const whole = put && 'message' in put ? put.message : d.kind === 'reject' ? d.reason : 'rejected';
    const indexes = d.kind === 'partial' ? d.rejectedIndexes : batch.records.map((_, i) => i);
    logFailedRecords(
      this.log,
      this.o.errorsLog,
      batch.id,
      batch.records,
      indexes,
      (i) => batch.reasons.get(i)?.message ?? whole,
    );
    if (d.kind === 'reject' && d.reason === 'fatal' && (this.o.errorsTolerance ?? 'none') === 'none')
      this.fail(new TaskFailedError(`${putMessage(put)} (errors.tolerance=none; the batch was rejected)`));
  }

  private renew(batch: ShareBatch): void {
    const sentAt = this.o.supervisor.now();
    let results;
    try {
      results = this.o.consumer.acknowledge(batch.records, 'renew');
    } catch (err) {
      this.renewFailed(batch, (err as Error).message, 'renew refused');
      return;
    }
    // acknowledge() sends it with the session's next request, at the latest at the end of this turn
    void results.then((rs) => {
      const failed = rs.find((r) => r.error !== null);
      if (failed) {
        this.renewFailed(batch, failed.error?.message, 'renew failed; releasing early');
        return;
      }
      const lock = this.o.consumer.acquisitionLockTimeoutMs ?? this.o.supervisor.lockDurationMs;
      this.core.send(batch.id, { type: 'RENEWED', until: sentAt + lock });
    });
  }

  /**
   * The batch's lock could not be renewed: it is released early (a batch already settled ignores it).
   * That is news while the task runs and the batch still holds its lock: a WARN per batch. Once the task
   * stops, failed renewals are expected: the stop's releases go out before the renewals queued for the
   * same records, which the broker then refuses, and the member leaving the group fails those still
   * queued. Every batch in flight would warn about records the stop gives back anyway, so they are
   * counted and said once, in the stop line. A batch whose final acknowledgement went first is as moot.
   */
  private renewFailed(batch: ShareBatch, err: string | undefined, msg: string): void {
    const stopping = !this.running;
    const holding = this.core.batches.has(batch.id) && batchWork(batch.actor.getSnapshot()) !== undefined;
    if (stopping) this.renewalsFailedWhileStopping++;
    if (!stopping && holding) this.log.warn({ batchId: batch.id, err }, msg);
    else this.log.debug({ batchId: batch.id, err, stopping }, msg);
    this.core.send(batch.id, { type: 'RENEW_UNAVAILABLE' });
  }

  /** Sends the batch's acknowledgements; resolves with null or the first error code. */
  private async acknowledge(work: ShareBatch, d: AckDisposition): Promise<string | null> {
    const { consumer } = this.o;
    let pending: Promise<Array<{ error: { code: string } | null }>>[];
    if (d.kind === 'partial') {
      const rejected = new Set(d.rejectedIndexes);
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

function putMessage(put: PutResult | undefined): string {
  return put && 'message' in put ? put.message : 'put failed';
}
