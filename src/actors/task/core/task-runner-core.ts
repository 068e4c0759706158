/**
 * What a sink task does in both modes (ADR 0009): batch actors from acquisition to their one
 * disposition, puts on the pool (a put may carry several batches, ADR 0007), the put result → batch
 * event mapping under `errors.tolerance`, retries in the machine's `retrying` state after a backoff the
 * core schedules, aborts, and the task's failure. Where batches come from, what settling one means
 * (acknowledge or commit) and locks are the mode's: a {@link RunnerMode}.
 */
import { createActor, type Actor, type InspectionEvent, type Snapshot } from 'xstate';
import type { Logger } from 'pino';
import type { RawRecord } from '../../../connect/raw-record.js';
import {
  batchContext,
  batchWork,
  createBatchMachine,
  type AckDisposition,
  type BatchEvent,
  type BatchInput,
  type BatchMachine,
  type BatchMode,
  type BatchOutput,
  type Disposition,
} from '../../../machines/batch.js';
import {
  batchInspection,
  type BatchSnapshotObserver,
  type RuntimeInspector,
} from '../../../observability/runtime-inspector.js';
import type { PoolTask } from '../../../pool/put-pool.js';
import type { PutRunner } from '../../../pool/put-runner.js';
import type { PutResult } from '../../../pool/protocol.js';
import type { DeadLetterReason } from '../../errors/reasons.js';
import { systemClock, type Clock, type TimerHandle } from './clock.js';
import { RetryBackoff } from '../../errors/retry-backoff.js';
import { putVerdict } from '../../errors/tolerance.js';
import { sliceResult } from './put-slice.js';
import type { TaskCounters } from './task-counters.js';

/** What an ended batch points at instead of its records. */
const NO_RECORDS: readonly never[] = Object.freeze([]);

/** One batch as the core tracks it; modes add their own fields. */
export interface CoreBatch {
  readonly id: string;
  /** Emptied once the batch has ended (see `finish`). */
  records: readonly unknown[];
  readonly actor: Actor<BatchMachine>;
  /** The put carrying this batch, once it is dispatched. */
  put: CorePut | undefined;
  lastPut: PutResult | undefined;
  /** Why records of the last put were bad, by batch index (reporters read it). */
  readonly reasons: Map<number, DeadLetterReason>;
}

/** One put of one or more batches, across its attempts. */
export interface CorePut {
  /** The batches of the current attempt (a batch released meanwhile drops out of the next one). */
  members: CoreBatch[];
  readonly abort: AbortController;
  attempt: number;
  running: boolean;
  retryTimer: TimerHandle | undefined;
  backoff: RetryBackoff | undefined;
  retryingSince: number | undefined;
  ended: boolean;
}

/** What happens to a put that failed retriably, when the mode has its say. */
export type RetryDecision = 'retry' | 'release' | 'give-up';

/** The mode: share (acknowledgements, locks) or classic (commits, the consumer group). */
export interface RunnerMode<B extends CoreBatch> {
  readonly mode: BatchMode;
  readonly tolerance: 'none' | 'all';
  /** `errors.retry.timeout`: > 0 bounds how long a put is retried; otherwise until it succeeds. */
  readonly retryTimeoutMs: number;
  readonly retryDelayMaxMs: number;
  /** The task as the pool gets it now (classic: with its current assignment). */
  poolTask(): PoolTask;
  toRaw(batches: readonly B[]): readonly RawRecord[];
  /** Carries out the disposition; resolves null once it landed, else the error code. */
  settle(batch: B, disposition: AckDisposition): Promise<string | null>;
  /** `release` gives the batches back (SHUTDOWN), `give-up` ends the retries (RETRIES_EXHAUSTED). */
  retryDecision(batches: readonly B[]): RetryDecision;
  renew(batch: B): void;
  onPutResult(result: PutResult): void;
  onRetry(): void;
  onPutEnded(): void;
  onBatchDone(batch: B, output: BatchOutput | undefined): void;
  recordExpiry(batch: B, recordCount: number, duringPut: boolean): void;
  recordAckFailure(batch: B, errorCode: string, disposition: Disposition | undefined): void;
}

export interface CoreOptions {
  readonly pool: PutRunner;
  readonly counters: TaskCounters;
  readonly log: Logger;
  /** The runtime's hook (a RuntimeInspector feeds batch actors' counts from their snapshots instead). */
  readonly inspect?: RuntimeInspector | ((event: InspectionEvent) => void) | undefined;
  /** The task fails (errors.tolerance=none); the owner stops it. */
  readonly fail: (error: Error) => void;
  /** Where retry backoffs wait. Default: real time. */
  readonly clock?: Clock | undefined;
}

const retrying = (b: CoreBatch): boolean => batchWork(b.actor.getSnapshot()) === 'retrying';

export class TaskRunnerCore<B extends CoreBatch> {
  readonly batches = new Map<string, B>();
  private readonly machine: BatchMachine;
  private readonly clock: Clock;

  constructor(
    private readonly o: CoreOptions,
    private readonly mode: RunnerMode<B>,
  ) {
    this.machine = createBatchMachine(this.effects());
    this.clock = o.clock ?? systemClock;
  }

  /**
   * A batch actor in this mode, not started. Every batch starts in the same state (`acquired`, lock
   * `held`; no entry actions), so the actor starts from that state as computed once, with this batch's
   * context, instead of working the initial state out of the machine again for every batch (ADR 0011).
   */
  actorFor(input: Omit<BatchInput, 'mode'>): Actor<BatchMachine> {
    const full: BatchInput = { ...input, mode: this.mode.mode };
    const { inspect, observe } = batchInspection(this.o.inspect);
    const actor = createActor(this.machine, {
      // the input is not read when a snapshot is given; it is there for the type
      input: full,
      snapshot: { ...this.acquired(), context: batchContext(full) } as unknown as Snapshot<unknown>,
      inspect,
    });
    if (observe !== undefined) this.#observed.set(actor, observe);
    return actor;
  }

  /** Batch actors whose snapshots feed the transition counts and the census (no `inspect`). */
  readonly #observed = new WeakMap<object, BatchSnapshotObserver>();

  #acquired: object | undefined;

  /** The machine's initial snapshot, persisted: the state every batch starts in. */
  private acquired(): object {
    this.#acquired ??= createActor(this.machine, {
      input: { batchId: '', recordCount: 0, mode: this.mode.mode, acquiredAt: 0 },
    }).getPersistedSnapshot();
    return this.#acquired;
  }

  /** Tracks the batch until its actor ends; the mode hears of it in onBatchDone. */
  track(batch: B): void {
    this.batches.set(batch.id, batch);
    const observe = this.#observed.get(batch.actor);
    let first = true;
    batch.actor.subscribe({
      next:
        observe === undefined
          ? undefined
          : (snapshot) => {
              observe(batch.actor, snapshot, first);
              first = false;
            },
      complete: () => this.finish(batch, batch.actor.getSnapshot().output),
      error: (err) => {
        this.o.log.error({ batchId: batch.id, err }, 'batch actor failed');
        this.finish(batch, undefined);
      },
    });
  }

  /** Starts one put carrying these batches (all `acquired`), in order. */
  dispatch(batches: readonly B[]): void {
    const put: CorePut = {
      members: [...batches],
      abort: new AbortController(),
      attempt: 0,
      running: false,
      retryTimer: undefined,
      backoff: undefined,
      retryingSince: undefined,
      ended: false,
    };
    for (const b of batches) {
      b.put = put;
      b.actor.send({ type: 'DISPATCH' });
    }
    // every batch left `acquired` before DISPATCH (released, expired): nothing to put
    if (put.attempt === 0) this.end(put);
  }

  send(batchId: string, event: BatchEvent): void {
    this.batches.get(batchId)?.actor.send(event);
  }

  /** Ends the retry waits: their batches are given back (SHUTDOWN) rather than put again. */
  stopRetries(batch?: B): void {
    const puts = new Set<CorePut>();
    for (const b of batch === undefined ? this.batches.values() : [batch])
      if (b.put?.retryTimer !== undefined) puts.add(b.put);
    for (const put of puts) {
      this.clock.clearTimeout(put.retryTimer);
      put.retryTimer = undefined;
      for (const m of put.members) if (retrying(m)) this.send(m.id, { type: 'SHUTDOWN' });
      this.end(put);
    }
  }

  private finish(batch: B, output: BatchOutput | undefined): void {
    if (!this.batches.delete(batch.id)) return;
    if (output) this.o.counters.onOutcome(output, batch.records.length);
    const put = batch.put;
    // the last batch of a put waiting to retry is gone: nothing is left to retry
    if (put && !put.running && !put.ended && !put.members.some((m) => this.batches.has(m.id))) this.end(put);
    this.mode.onBatchDone(batch, output);
    // An ended batch's object may sit in the old generation (batches wait for puts and acks); while it
    // still pointed at its records, every young collection kept them alive until the next full one,
    // and promoted them (docs/jdbc-sink.md, Performance)
    batch.records = NO_RECORDS;
  }

  private end(put: CorePut): void {
    if (put.ended) return;
    put.ended = true;
    if (put.retryTimer !== undefined) this.clock.clearTimeout(put.retryTimer);
    put.retryTimer = undefined;
    this.mode.onPutEnded();
  }

  /** One attempt of the put: the pool call, then each batch's own part of the result. */
  private async attempt(put: CorePut): Promise<void> {
    const members = put.members as B[];
    const raw = this.mode.toRaw(members);
    const result = await this.o.pool.put(this.mode.poolTask(), raw, { signal: put.abort.signal });
    put.running = false;
    this.o.counters.onPut(result, raw.length);
    this.mode.onPutResult(result);
    if (result.kind === 'fatal')
      this.o.log.error({ batchId: members[0]?.id, code: result.code, err: result.message }, 'put failed');
    let from = 0;
    for (const m of members) {
      const own = members.length === 1 ? result : sliceResult(result, from, m.records.length);
      from += m.records.length;
      m.lastPut = own;
      const verdict = putVerdict(own, this.mode.mode, this.mode.tolerance, m.reasons);
      this.send(m.id, verdict.event);
      if (verdict.failure) this.o.fail(verdict.failure);
    }
    const again = members.filter((m) => this.batches.has(m.id) && retrying(m));
    if (again.length === 0 || put.abort.signal.aborted) {
      for (const m of again) this.send(m.id, { type: 'SHUTDOWN' });
      this.end(put);
      return;
    }
    this.planRetry(put, again, result);
  }

  /**
   * The batches that failed retriably wait in `retrying` (their locks renewed in share mode) and are
   * put again after a backoff that doubles from 100 ms up to `errors.retry.delay.max.ms` (or the task's
   * `context.timeout()`, when longer), until `errors.retry.timeout` (when > 0) runs out. When the backoff
   * ends the mode has its say again: a stopping task gives the batches back instead.
   */
  private planRetry(put: CorePut, again: readonly B[], result: PutResult): void {
    put.backoff ??= new RetryBackoff(100, this.mode.retryDelayMaxMs);
    put.retryingSince ??= this.clock.now();
    if (this.mode.retryDecision(again) !== 'retry') {
      this.endRetries(put, again);
      return;
    }
    const hint = result.kind === 'retriable' ? result.backoffMs : undefined;
    let delayMs = put.backoff.failed(hint);
    if (this.mode.retryTimeoutMs > 0)
      delayMs = Math.max(
        0,
        Math.min(delayMs, put.retryingSince + this.mode.retryTimeoutMs - this.clock.now()),
      );
    this.mode.onRetry();
    // warn on the first attempt: a sink whose endpoint is down otherwise shows nothing on a terminal
    this.o.log[put.attempt === 1 ? 'warn' : 'debug'](
      {
        batchId: again[0]!.id,
        batches: again.length,
        delayMs,
        attempt: put.attempt,
        err: result.kind === 'retriable' ? result.message : undefined,
      },
      'put failed retriably; retrying in place',
    );
    put.retryTimer = this.clock.setTimeout(() => {
      put.retryTimer = undefined;
      const live = again.filter((m) => this.batches.has(m.id) && retrying(m));
      const timedOut =
        this.mode.retryTimeoutMs > 0 && this.clock.now() - put.retryingSince! >= this.mode.retryTimeoutMs;
      if (live.length === 0 || timedOut || this.mode.retryDecision(live) !== 'retry') {
        if (timedOut) this.o.log.warn({ batchId: again[0]!.id }, 'retries exhausted (errors.retry.timeout)');
        this.endRetries(put, live, timedOut);
        return;
      }
      put.members = live;
      for (const m of live) this.send(m.id, { type: 'RETRY' });
    }, delayMs);
  }

  /** No more attempts: a stopping task gives the batches back (SHUTDOWN), else they are given up on. */
  private endRetries(put: CorePut, batches: readonly B[], timedOut = false): void {
    const decision = this.mode.retryDecision(batches);
    const event: BatchEvent = {
      type: decision === 'release' && !timedOut ? 'SHUTDOWN' : 'RETRIES_EXHAUSTED',
    };
    for (const m of batches) this.send(m.id, event);
    this.end(put);
  }

  private effects() {
    const batch = (id: string): B | undefined => this.batches.get(id);
    return {
      startPut: ({ batchId, attempt }: { batchId: string; attempt: number }) => {
        const put = batch(batchId)?.put;
        // the first batch of the put to enter `putting` starts the attempt for all of them
        if (!put || put.running || put.attempt >= attempt) return;
        put.attempt = attempt;
        put.running = true;
        void this.attempt(put);
      },
      abortPut: ({ batchId, reason }: { batchId: string; reason: string }) => {
        const put = batch(batchId)?.put;
        if (put && put.running && !put.abort.signal.aborted) {
          // the put carries other batches too: they come back ABORTED and are released with this one
          put.abort.abort(reason);
          this.o.counters.putsAborted++;
        }
      },
      // planned by the core once every batch of the attempt heard its result (planRetry)
      scheduleRetry: () => {},
      sendAcks: ({ batchId, disposition }: { batchId: string; disposition: AckDisposition }) => {
        const b = batch(batchId);
        if (!b) return;
        void this.mode.settle(b, disposition).then(
          (code) =>
            this.send(batchId, code === null ? { type: 'ACKED' } : { type: 'ACK_FAILED', errorCode: code }),
          (err: unknown) =>
            this.send(batchId, {
              type: 'ACK_FAILED',
              errorCode: err instanceof Error ? err.message : String(err),
            }),
        );
      },
      sendRenew: ({ batchId }: { batchId: string }) => {
        const b = batch(batchId);
        if (b) this.mode.renew(b);
      },
      recordExpiry: (p: { batchId: string; recordCount: number; duringPut: boolean }) => {
        const b = batch(p.batchId);
        if (b) this.mode.recordExpiry(b, p.recordCount, p.duringPut);
      },
      recordAckFailure: (p: { batchId: string; errorCode: string; disposition: Disposition | undefined }) => {
        const b = batch(p.batchId);
        if (b) this.mode.recordAckFailure(b, p.errorCode, p.disposition);
      },
    };
  }
}
