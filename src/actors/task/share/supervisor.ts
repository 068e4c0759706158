/**
 * Lock-lease supervision for every in-flight batch.
 *
 * The supervisor owns time; the batch machine owns the protocol. For each watched batch actor it keeps
 * ONE timer, armed for the earliest of: the renew point (a fraction of the lock), the early-release
 * point (renewal unavailable, or a renew reply overdue), the put timeout, and the lock deadline. When
 * the timer fires it sends the batch the matching event (LOCK_RENEW_DUE, RENEW_UNAVAILABLE,
 * PUT_TIMEOUT, LOCK_EXPIRED); the machine then calls the owner's effects (`sendRenew` → ack type 4,
 * `abortPut` + `sendAcks` RELEASE). What actually happened is read back from the batch's snapshots,
 * so renewals, early releases and expiries are counted, logged and published whoever caused them.
 */
import type { Logger } from 'pino';
import { ConfigError } from '../../../errors.js';
import {
  batchLease,
  batchStateName,
  batchWork,
  type BatchEvent,
  type BatchSnapshot,
  type Disposition,
} from '../../../machines/batch.js';
import { BurstLines } from '../../../observability/burst-lines.js';
import {
  publishLockExpired,
  publishLockReleased,
  publishLockRenewed,
} from '../../../observability/channels.js';
import { zeroLockCounters, type LockCounters } from './lock-counters.js';
import { systemClock, type Clock, type TimerHandle } from '../core/clock.js';

export type { LockCounters } from './lock-counters.js';

/** The part of an XState batch actor the supervisor uses; `createActor(batchMachine…)` satisfies it. */
export interface SupervisedBatch {
  send(event: BatchEvent): void;
  getSnapshot(): BatchSnapshot;
  subscribe(observer: {
    next?: (snapshot: BatchSnapshot) => void;
    error?: (error: unknown) => void;
    complete?: () => void;
  }): { unsubscribe(): void };
}

export interface LockSupervisorOptions {
  logger: Logger;
  clock?: Clock;
  /** Lock duration until the broker reports one (AcquisitionLockTimeoutMs); Kafka's default is 30 s. */
  lockDurationMs?: number;
  /** Renew when this fraction of the current lock has elapsed. */
  renewFraction?: number;
  /** Without renewal (or with a renew reply overdue) abort and RELEASE at this fraction of the lock. */
  releaseFraction?: number;
  /** `put.timeout.ms`: a put running longer is aborted (share: RELEASE; classic: retried). */
  putTimeoutMs?: number;
  /** Whether the broker accepts RENEW acknowledgements (Kafka ≥ 4.2 and the group allows it). */
  renewAvailable?: boolean;
}

interface Watch {
  readonly batch: SupervisedBatch;
  readonly batchId: string;
  readonly share: boolean;
  subscription: { unsubscribe(): void } | undefined;
  timer: TimerHandle | undefined;
  timerAt: number | undefined;
  deadline: number | undefined;
  /** The lock deadline last seen in the machine's context; a change means a renewal landed. */
  seenDeadline: number | undefined;
  leaseStart: number;
  putStartedAt: number | undefined;
  attempt: number;
  state: string;
  log: Logger | undefined;
}

const DEFAULTS = {
  lockDurationMs: 30_000,
  renewFraction: 0.5,
  releaseFraction: 0.8,
  putTimeoutMs: Number.POSITIVE_INFINITY,
};

function validate(o: Required<Omit<LockSupervisorOptions, 'logger' | 'clock' | 'renewAvailable'>>): void {
  const problems: string[] = [];
  if (!(o.lockDurationMs > 0)) problems.push(`lockDurationMs: ${o.lockDurationMs} must be > 0`);
  if (!(o.renewFraction > 0 && o.renewFraction < 1))
    problems.push(`renewFraction: ${o.renewFraction} must be strictly between 0 and 1`);
  if (!(o.releaseFraction > o.renewFraction && o.releaseFraction < 1))
    problems.push(`releaseFraction: ${o.releaseFraction} must be between renewFraction and 1`);
  if (!(o.putTimeoutMs > 0)) problems.push(`putTimeoutMs: ${o.putTimeoutMs} must be > 0 (Infinity disables)`);
  if (problems.length > 0) throw new ConfigError(problems);
}

export class LockSupervisor {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #renewFraction: number;
  readonly #releaseFraction: number;
  readonly #putTimeoutMs: number;
  #lockDurationMs: number;
  #renewAvailable: boolean;
  readonly #watches = new Map<string, Watch>();
  readonly #counters: LockCounters = zeroLockCounters();
  /**
   * Put timeouts and early releases come in bursts (a slow sink times out every put, a gathered put
   * times out all its batches at once): one line per cause and window, the counters count each batch.
   */
  readonly #bursts: BurstLines;

  constructor(options: LockSupervisorOptions) {
    const o = {
      lockDurationMs: options.lockDurationMs ?? DEFAULTS.lockDurationMs,
      renewFraction: options.renewFraction ?? DEFAULTS.renewFraction,
      releaseFraction: options.releaseFraction ?? DEFAULTS.releaseFraction,
      putTimeoutMs: options.putTimeoutMs ?? DEFAULTS.putTimeoutMs,
    };
    validate(o);
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger;
    this.#lockDurationMs = o.lockDurationMs;
    this.#renewFraction = o.renewFraction;
    this.#releaseFraction = o.releaseFraction;
    this.#putTimeoutMs = o.putTimeoutMs;
    this.#renewAvailable = options.renewAvailable ?? false;
    this.#bursts = new BurstLines(() => this.#clock.now());
  }

  get counters(): Readonly<LockCounters> {
    return { ...this.#counters };
  }

  get inFlight(): number {
    return this.#watches.size;
  }

  /**
   * When the oldest lock still held was acquired (the supervisor's clock), or undefined when no share
   * batch is watched. For `/metrics` at scrape time: a walk over the batches in flight, a few per task.
   */
  oldestAcquiredAt(): number | undefined {
    let oldest: number | undefined;
    for (const w of this.#watches.values()) {
      if (!w.share) continue;
      const at = w.batch.getSnapshot().context.acquiredAt;
      if (oldest === undefined || at < oldest) oldest = at;
    }
    return oldest;
  }

  /** The supervisor's clock: stamp `acquiredAt` and renew send times with it. */
  now(): number {
    return this.#clock.now();
  }

  get lockDurationMs(): number {
    return this.#lockDurationMs;
  }

  /** The broker's AcquisitionLockTimeoutMs; applies to batches watched from now on. */
  setLockDuration(ms: number): void {
    if (!(ms > 0)) throw new ConfigError([`lockDurationMs: ${ms} must be > 0`]);
    this.#lockDurationMs = ms;
  }

  /** Learned from ApiVersions / a refused renew; in-flight batches are re-planned at once. */
  setRenewAvailable(available: boolean): void {
    if (available === this.#renewAvailable) return;
    this.#renewAvailable = available;
    for (const w of this.#watches.values()) this.#plan(w, w.batch.getSnapshot());
  }

  /** Deadline of a lock acquired at `acquiredAt` (a ShareFetch send time) under the current duration. */
  lockDeadlineFor(acquiredAt: number): number {
    return acquiredAt + this.#lockDurationMs;
  }

  /** Supervise a batch actor until it reaches a final state. Returns a function that stops watching. */
  watch(batch: SupervisedBatch): () => void {
    const snapshot = batch.getSnapshot();
    const ctx = snapshot.context;
    if (this.#watches.has(ctx.batchId)) throw new Error(`batch ${ctx.batchId} is already supervised`);
    const share = ctx.mode === 'share';
    const w: Watch = {
      batch,
      batchId: ctx.batchId,
      share,
      subscription: undefined,
      timer: undefined,
      timerAt: undefined,
      deadline: share ? (ctx.lockDeadline ?? this.lockDeadlineFor(ctx.acquiredAt)) : undefined,
      seenDeadline: ctx.lockDeadline,
      leaseStart: ctx.acquiredAt,
      putStartedAt: undefined,
      attempt: 0,
      state: batchStateName(snapshot),
      log: undefined,
    };
    this.#watches.set(w.batchId, w);
    this.#counters.batchesWatched++;
    w.subscription = batch.subscribe({
      next: (s) => this.#observe(w, s),
      error: (error) => {
        this.#log(w).error({ err: error }, 'batch actor failed; lock supervision stopped');
        this.#unwatch(w);
      },
      complete: () => this.#unwatch(w),
    });
    this.#observe(w, snapshot);
    return () => this.#unwatch(w);
  }

  close(): void {
    for (const w of [...this.#watches.values()]) this.#unwatch(w);
  }

  #observe(w: Watch, s: BatchSnapshot): void {
    if (!this.#watches.has(w.batchId)) return;
    const now = this.#clock.now();
    const ctx = s.context;
    const previous = w.state;
    w.state = batchStateName(s);

    if (w.share && ctx.lockDeadline !== undefined && ctx.lockDeadline !== w.seenDeadline) {
      w.seenDeadline = ctx.lockDeadline;
      w.deadline = ctx.lockDeadline;
      w.leaseStart = now;
      this.#counters.batchRenewalsGranted++;
      this.#counters.recordsRenewed += ctx.recordCount;
      this.#log(w).debug({ until: ctx.lockDeadline, renewCount: ctx.renewCount }, 'lock renewed');
      publishLockRenewed({
        batchId: w.batchId,
        until: ctx.lockDeadline,
        renewCount: ctx.renewCount,
        at: now,
      });
    }

    const putting = batchWork(s) === 'putting';
    if (putting && (w.putStartedAt === undefined || ctx.attempt !== w.attempt)) {
      w.putStartedAt = now;
      w.attempt = ctx.attempt;
    } else if (!putting) {
      w.putStartedAt = undefined;
    }

    if (w.state !== previous) this.#noteOutcome(w, s, previous, now);
    if (s.status !== 'active') {
      this.#unwatch(w);
      return;
    }
    this.#plan(w, s);
  }

  #noteOutcome(w: Watch, s: BatchSnapshot, previous: string, now: number): void {
    const outcome: Disposition | undefined = s.context.outcome;
    if (w.state === 'acknowledging' && outcome?.kind === 'release') {
      if (outcome.reason === 'put-timeout' || outcome.reason === 'renew-unavailable') {
        this.#counters.batchesReleasedEarly++;
        this.#bursts.say(
          this.#log(w),
          'info',
          `released:${outcome.reason}`,
          { reason: outcome.reason, deadline: w.deadline },
          'batch released before its lock ran out',
        );
        publishLockReleased({ batchId: w.batchId, reason: outcome.reason, deadline: w.deadline, at: now });
      }
    } else if (w.state === 'expired') {
      const duringPut = previous.startsWith('putting');
      this.#counters.batchesLockExpired++;
      this.#log(w).warn(
        { deadline: w.deadline, duringPut, recordCount: s.context.recordCount },
        'acquisition lock expired: the broker redelivers these records',
      );
      publishLockExpired({
        batchId: w.batchId,
        deadline: w.deadline,
        duringPut,
        recordCount: s.context.recordCount,
        at: now,
      });
    } else if (w.state === 'ackFailed') {
      this.#counters.batchesAckFailed++;
      this.#log(w).warn({ errorCode: s.context.ackError, disposition: outcome }, 'acknowledgement failed');
    }
  }

  /** Arm the batch's single timer for the earliest point that needs action, or disarm it. */
  #plan(w: Watch, s: BatchSnapshot): void {
    const due = s.status === 'active' && batchWork(s) !== undefined ? this.#nextDue(w, s) : undefined;
    if (due === w.timerAt && (due === undefined || w.timer !== undefined)) return;
    if (w.timer !== undefined) this.#clock.clearTimeout(w.timer);
    w.timer = undefined;
    w.timerAt = due;
    if (due === undefined) return;
    w.timer = this.#clock.setTimeout(() => this.#fire(w), Math.max(0, due - this.#clock.now()));
  }

  #nextDue(w: Watch, s: BatchSnapshot): number | undefined {
    let due = Number.POSITIVE_INFINITY;
    if (w.putStartedAt !== undefined) due = Math.min(due, w.putStartedAt + this.#putTimeoutMs);
    if (w.share && w.deadline !== undefined) {
      due = Math.min(due, w.deadline, this.#leasePoint(w, s));
    }
    return Number.isFinite(due) ? due : undefined;
  }

  /** Renew point while renewal is possible and none is pending, else the early-release point. */
  #leasePoint(w: Watch, s: BatchSnapshot): number {
    const span = (w.deadline ?? w.leaseStart) - w.leaseStart;
    const renewing = batchLease(s) === 'renewing';
    const fraction = this.#renewAvailable && !renewing ? this.#renewFraction : this.#releaseFraction;
    return w.leaseStart + fraction * span;
  }

  #fire(w: Watch): void {
    w.timer = undefined;
    w.timerAt = undefined;
    if (!this.#watches.has(w.batchId)) return;
    const s = w.batch.getSnapshot();
    if (s.status !== 'active' || batchWork(s) === undefined) return;
    const event = this.#decide(w, s, this.#clock.now());
    if (event !== undefined) w.batch.send(event);
    if (this.#watches.has(w.batchId) && w.timer === undefined) this.#plan(w, w.batch.getSnapshot());
  }

  #decide(w: Watch, s: BatchSnapshot, now: number): BatchEvent | undefined {
    if (w.share && w.deadline !== undefined && now >= w.deadline) return { type: 'LOCK_EXPIRED' };
    if (w.putStartedAt !== undefined && now >= w.putStartedAt + this.#putTimeoutMs) {
      this.#counters.putTimeouts++;
      this.#bursts.say(
        this.#log(w),
        'warn',
        'put-timeout',
        { putTimeoutMs: this.#putTimeoutMs, attempt: w.attempt },
        'put timed out; aborting it',
      );
      return { type: 'PUT_TIMEOUT' };
    }
    if (!w.share || now < this.#leasePoint(w, s)) return undefined;
    if (this.#renewAvailable && batchLease(s) !== 'renewing') {
      this.#counters.batchRenewalsRequested++;
      return { type: 'LOCK_RENEW_DUE' };
    }
    return { type: 'RENEW_UNAVAILABLE' };
  }

  #unwatch(w: Watch): void {
    if (this.#watches.get(w.batchId) !== w) return;
    this.#watches.delete(w.batchId);
    if (w.timer !== undefined) this.#clock.clearTimeout(w.timer);
    w.timer = undefined;
    w.timerAt = undefined;
    // May run inside subscribe() itself when the batch is already final; the subscription is set after.
    const subscription = w.subscription;
    w.subscription = undefined;
    subscription?.unsubscribe();
  }

  #log(w: Watch): Logger {
    w.log ??= this.#logger.child({ batchId: w.batchId });
    return w.log;
  }
}
