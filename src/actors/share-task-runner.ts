/**
 * One sink task in share mode: ShareConsumer → batch actors → puts on the pool → acknowledgements.
 *
 * Each poll result becomes one batch actor (the pure batch machine with this runner's effects), watched
 * by the lock supervisor, which renews or releases the lock while the put runs. A bounded number of
 * batches is in flight so the broker's per-partition lock limit is respected. Everything here is per
 * batch: records are touched only by plain loops when they are converted to the wire format or split
 * for a per-record acknowledgement.
 */
import { performance } from 'node:perf_hooks';
import { createActor, type Actor, type InspectionEvent } from 'xstate';
import type { Logger } from 'pino';
import type { RawRecord } from '../connect/raw-record.js';
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
import { TaskCounters } from './task-counters.js';
import { RetryBackoff } from './retry-backoff.js';
import { logFailedRecords, type ErrorLogOptions } from './error-log.js';

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
   * Batches acquired and not yet put, at most. Default 4. A batch whose put has ended no longer counts:
   * its acknowledgement rides on the ShareFetch of the next poll (ADR 0005).
   */
  readonly maxInFlightBatches?: number;
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
  abort: AbortController | undefined;
  lastPut: PutResult | undefined;
  /** The put ended and the acknowledgement was handed to the consumer: the batch no longer takes a slot. */
  acking: boolean;
}

export class ShareTaskRunner {
  readonly counters = new TaskCounters();
  private readonly o: ShareTaskRunnerOptions;
  private readonly log: Logger;
  private readonly machine: BatchMachine;
  private readonly batches = new Map<string, BatchWork>();
  private readonly backoff: RetryBackoff;
  private seq = 0;
  /** Batches in `batches` whose put has ended (acknowledging); they do not count against the limit. */
  private acking = 0;
  private running = false;
  private loop: Promise<void> | undefined;
  private slotFreed: (() => void) | undefined;
  private failed: Error | undefined;
  private readonly maxInFlight: number;

  constructor(options: ShareTaskRunnerOptions) {
    this.o = options;
    this.log = options.logger.child({ connector: options.connector, task: options.taskId });
    this.backoff = new RetryBackoff(100, options.retryDelayMaxMs ?? 60_000);
    this.machine = createBatchMachine(this.effects());
    this.maxInFlight = options.maxInFlightBatches ?? 4;
  }

  /** Batches still to be put take a slot; a batch whose put ended (acknowledging) does not. */
  private get slotFree(): boolean {
    return this.batches.size - this.acking < this.maxInFlight;
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
    this.slotFreed?.();
    await this.loop;
    const grace = this.o.shutdownGraceMs ?? 5000;
    const deadline = Date.now() + grace;
    while (this.batches.size > 0 && Date.now() < deadline) await sleep(Math.min(50, deadline - Date.now()));
    for (const b of this.batches.values()) b.actor.send({ type: 'SHUTDOWN' });
    while (this.batches.size > 0) await sleep(20);
    await this.o.consumer.close();
    this.log.info(this.counters.snapshot(), 'share task stopped');
  }

  private async fetchLoop(): Promise<void> {
    while (this.running) {
      if (!this.slotFree) {
        await new Promise<void>((r) => (this.slotFreed = r));
        this.slotFreed = undefined;
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
    const work: BatchWork = { id, records, actor, abort: undefined, lastPut: undefined, acking: false };
    this.batches.set(id, work);
    actor.subscribe({
      complete: () => this.finish(work, actor.getSnapshot().output),
      error: (err) => {
        this.log.error({ batchId: id, err }, 'batch actor failed');
        this.forget(work);
      },
    });
    const dispatch = () => {
      this.o.supervisor.watch(actor);
      actor.start();
      actor.send({ type: 'DISPATCH' });
    };
    // With a slot still free the fetch loop polls again at once: the put's setup (the actor's first
    // transitions, the wire batch, the hand-off to a pool thread) then waits for the next macrotask, so
    // that ShareFetch goes out first, on this turn's microtasks, and the broker works on the next batch
    // while this one is set up. Without a free slot nothing is gained by waiting.
    if (this.slotFree) setImmediate(dispatch);
    else dispatch();
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
      this.fail(new Error(`task failed: ${message} (errors.tolerance=none; the batch was rejected)`));
    }
  }

  private forget(work: BatchWork): void {
    if (!this.batches.delete(work.id)) return;
    if (work.acking) this.acking--;
    this.slotFreed?.();
  }

  private logRejected(
    work: BatchWork,
    d: Extract<BatchOutput['disposition'], { kind: 'reject' | 'partial' }>,
  ): void {
    const put = work.lastPut;
    const perRecord = new Map<number, string>();
    for (const f of put?.converterFailures ?? []) perRecord.set(f.index, f.message);
    if (put?.kind === 'perRecord') for (const r of put.rejected) perRecord.set(r.index, r.message);
    const whole = put && 'message' in put ? put.message : d.kind === 'reject' ? d.reason : 'rejected';
    const indexes = d.kind === 'partial' ? d.rejectedOffsets : work.records.map((_, i) => i);
    logFailedRecords(
      this.log,
      this.o.errorsLog,
      work.id,
      work.records,
      indexes,
      (i) => perRecord.get(i) ?? whole,
    );
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    this.running = false;
    this.slotFreed?.();
    this.log.error({ err: err.message }, 'share task failed');
    this.o.onFailure?.(err);
  }

  // ------------------------------------------------------------------ effects of the batch machine

  private effects(): BatchEffects {
    const send = (id: string, event: BatchEvent) => this.batches.get(id)?.actor.send(event);
    return {
      startPut: ({ batchId }) => {
        const work = this.batches.get(batchId);
        if (!work) return;
        const abort = new AbortController();
        work.abort = abort;
        void this.putRetryingInPlace(work, abort.signal).then((result) => {
          work.lastPut = result;
          send(batchId, this.eventFor(work, result));
        });
      },
      abortPut: ({ batchId, reason }) => {
        const work = this.batches.get(batchId);
        work?.abort?.abort(reason);
        this.counters.putsAborted++;
      },
      sendAcks: ({ batchId, disposition }) => {
        const work = this.batches.get(batchId);
        if (!work) return;
        const ack = this.acknowledge(work, disposition);
        if (!work.acking) {
          // the slot frees before the next poll, so that poll's ShareFetch carries these acks
          work.acking = true;
          this.acking++;
          this.slotFreed?.();
        }
        void ack.then(
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
        this.counters.locksExpired += recordCount;
        this.log.warn({ batchId, recordCount, duringPut }, 'acquisition lock expired; the broker redelivers');
      },
      recordAckFailure: ({ batchId, errorCode }) => {
        this.log.warn({ batchId, errorCode }, 'acknowledgement failed');
      },
    };
  }

  /**
   * Puts the batch; a RetriableError is retried in place, after a backoff that doubles from 100 ms up
   * to `retryDelayMaxMs` (or the task's `context.timeout()`, when longer), while the batch keeps its
   * locks (the supervisor renews them as for any long put). Releasing instead would spend one of the
   * group's `share.delivery.count.limit` deliveries per attempt, so a sink outage of a few seconds
   * would archive or dead-letter healthy records. The batch still goes back to the broker when its
   * locks cannot be held: renewal unavailable, `put.timeout.ms` reached, or the task stopping; the
   * supervisor or stop() then aborts the signal, which ends a backoff at once.
   */
  private async putRetryingInPlace(work: BatchWork, signal: AbortSignal): Promise<PutResult> {
    const backoff = new RetryBackoff(100, this.o.retryDelayMaxMs ?? 60_000);
    const retryUntil =
      (this.o.retryTimeoutMs ?? 0) > 0
        ? this.o.supervisor.now() + this.o.retryTimeoutMs!
        : Number.POSITIVE_INFINITY;
    const raw = toRawRecords(work.records); // once per batch, however many attempts
    for (let failures = 0; ; failures++) {
      const result = await this.o.pool.put(this.o.poolTask, raw, { signal });
      this.counters.onPut(result);
      if (result.kind !== 'retriable' || !this.running || signal.aborted) return result;
      // RELEASE instead: the batch goes back to the broker and is redelivered with delivery count + 1
      if (this.o.retriableAction === 'release' || this.o.supervisor.now() >= retryUntil) return result;
      const delayMs = backoff.failed(result.backoffMs);
      this.backoff.failed(result.backoffMs); // new batches would fail alike: fetch less often too
      this.log[failures === 0 ? 'info' : 'debug'](
        { batchId: work.id, delayMs, attempt: failures + 1, err: result.message },
        'put failed retriably; retrying in place, locks held',
      );
      const waitStart = performance.now();
      if (!(await sleepUnlessAborted(delayMs, signal))) {
        return {
          kind: 'aborted',
          reason: String(signal.reason ?? 'aborted'),
          durationMs: performance.now() - waitStart,
          convertMs: 0,
          converterFailures: [],
          threadId: -1,
          taskStarted: false,
        };
      }
    }
  }

  /** Maps a put result to the batch event; converter failures count as errant records. */
  private eventFor(work: BatchWork, result: PutResult): BatchEvent {
    const badIndexes = new Set<number>();
    for (const f of result.converterFailures) badIndexes.add(f.index);
    switch (result.kind) {
      case 'ok':
        if (badIndexes.size === 0) return { type: 'PUT_OK' };
        break;
      case 'perRecord':
        for (const r of result.rejected) badIndexes.add(r.index);
        break;
      case 'retriable':
        this.backoff.failed(result.backoffMs);
        return { type: 'PUT_RETRIABLE', error: result.message };
      case 'fatal':
        this.log.error({ code: result.code, err: result.message }, 'put failed');
        return { type: 'PUT_FATAL', error: result.message };
      case 'aborted':
        return { type: 'ABORTED' };
    }
    this.backoff.succeeded();
    if (badIndexes.size > 0 && (this.o.errorsTolerance ?? 'none') === 'none') {
      const f = result.converterFailures[0];
      if (f) this.fail(new Error(`task failed: ${f.message} (errors.tolerance=none)`));
    }
    const rejectedOffsets: number[] = [];
    for (const i of badIndexes) rejectedOffsets.push(i);
    return { type: 'PUT_PER_RECORD', rejectedOffsets };
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

function toRawRecords(records: readonly ShareRecord[]): RawRecord[] {
  const out = new Array<RawRecord>(records.length);
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    out[i] = {
      topic: r.topic,
      partition: r.partition,
      offset: r.offset,
      timestamp: r.timestamp,
      timestampType: 'CreateTime',
      key: r.key,
      value: r.value,
      headers: r.headers,
      deliveryCount: r.deliveryCount,
    };
  }
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)));
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      },
      Math.max(0, ms),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
