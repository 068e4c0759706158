/**
 * A simulated share-group owner for supervisor tests: a fake broker that keeps one acquisition lock per
 * batch, fake puts with a latency and an outcome, and the real batch machine + real LockSupervisor, all
 * on one SimulatedClock. Everything the broker ends up with is recorded so tests can check that no
 * record is lost or acknowledged twice.
 */
import type { Logger } from 'pino';
import { createActor, type Actor } from 'xstate';
import {
  LockSupervisor,
  type LockSupervisorOptions,
} from '../../../../../src/actors/task/share/supervisor.js';
import { SimulatedClock } from '../../../../../src/actors/task/core/clock.js';
import {
  createBatchMachine,
  type AckDisposition,
  type BatchEvent,
  type BatchMachine,
} from '../../../../../src/machines/batch.js';
import { capturingLogger } from '../../../cli/capturing-logger.js';

export type PutOutcome =
  | { type: 'PUT_OK' }
  | { type: 'PUT_RETRIABLE' }
  | { type: 'PUT_FATAL' }
  | { type: 'PUT_PER_RECORD'; rejectedIndexes: number[] };

export interface BatchPlan {
  id: string;
  records: number;
  /** When the fetch that acquired it was sent. */
  acquiredAt: number;
  /** Delay from acquisition to DISPATCH (waiting for a worker). */
  queueMs: number;
  putMs: number;
  outcome: PutOutcome;
}

export interface BrokerLock {
  deadline: number;
  /** How the broker's records ended: acknowledged with a disposition, or released by lock expiry. */
  fate: AckDisposition | 'expired' | undefined;
  acks: number;
  /** The broker's lock ran out while our put for it was still running. */
  expiredUnderPut: boolean;
  renewals: number;
}

export interface SimOptions {
  lockMs: number;
  renewAvailable: boolean;
  /** Broker round trips. */
  renewLatencyMs: number;
  ackLatencyMs: number;
  /** Event-loop lag: the supervisor's timers fire this much late (a stalled loop, a GC pause). */
  timerLagMs?: number;
  supervisor?: Partial<Omit<LockSupervisorOptions, 'clock' | 'logger'>>;
}

export interface LogLine {
  level: number;
  msg: string;
  batchId?: string;
  [key: string]: unknown;
}

/** How long the simulated owner waits before it gives up on a retriable batch. */
const RETRY_BACKOFF_MS = 100;

export class ShareSim {
  readonly clock = new SimulatedClock();
  readonly lines: LogLine[];
  readonly logger: Logger;
  readonly supervisor: LockSupervisor;
  readonly broker = new Map<string, BrokerLock>();
  readonly actors = new Map<string, Actor<BatchMachine>>();
  readonly putting = new Set<string>();
  readonly errors: unknown[] = [];

  constructor(readonly options: SimOptions) {
    const captured = capturingLogger('debug');
    this.logger = captured.logger;
    this.lines = captured.lines as LogLine[];
    const lag = options.timerLagMs ?? 0;
    const clock = this.clock;
    this.supervisor = new LockSupervisor({
      clock: {
        now: () => clock.now(),
        setTimeout: (fn, ms) => clock.setTimeout(fn, ms + lag),
        clearTimeout: (handle) => clock.clearTimeout(handle),
      },
      logger: this.logger,
      lockDurationMs: options.lockMs,
      renewAvailable: options.renewAvailable,
      ...options.supervisor,
    });
  }

  /** Schedules the acquisition; the batch is created, watched and dispatched on the simulated clock. */
  plan(p: BatchPlan): void {
    this.clock.setTimeout(() => this.#acquire(p), Math.max(0, p.acquiredAt - this.clock.now()));
  }

  run(): void {
    this.clock.runAll(100_000);
  }

  #acquire(p: BatchPlan): void {
    const { clock, options } = this;
    const lock: BrokerLock = {
      deadline: clock.now() + options.lockMs,
      fate: undefined,
      acks: 0,
      expiredUnderPut: false,
      renewals: 0,
    };
    this.broker.set(p.id, lock);
    // The broker's own timer: when it fires with no ack, the records go back for redelivery.
    const armExpiry = () =>
      clock.setTimeout(() => {
        if (lock.fate !== undefined) return;
        if (clock.now() < lock.deadline) return armExpiry();
        lock.fate = 'expired';
        if (this.putting.has(p.id)) lock.expiredUnderPut = true;
      }, lock.deadline - clock.now());
    armExpiry();

    let put: unknown;
    // A real owner drops replies for a batch that has already finished, and so does the sim.
    const send = (e: BatchEvent) => {
      if (actor.getSnapshot().status === 'active') actor.send(e);
    };
    const machine = createBatchMachine({
      startPut: () => {
        this.putting.add(p.id);
        put = clock.setTimeout(() => {
          this.putting.delete(p.id);
          send(p.outcome);
        }, p.putMs);
      },
      abortPut: () => {
        this.putting.delete(p.id);
        clock.clearTimeout(put);
      },
      sendRenew: () => {
        const sentAt = clock.now();
        clock.setTimeout(() => {
          if (!options.renewAvailable || lock.fate !== undefined || clock.now() >= lock.deadline) {
            send({ type: 'RENEW_UNAVAILABLE' });
            return;
          }
          lock.deadline = clock.now() + options.lockMs;
          lock.renewals++;
          // Pessimistic on purpose: the lock restarted no earlier than the request was sent.
          send({ type: 'RENEWED', until: sentAt + options.lockMs });
        }, options.renewLatencyMs);
      },
      sendAcks: ({ disposition }) => {
        clock.setTimeout(() => {
          if (lock.fate !== undefined || clock.now() >= lock.deadline) {
            send({ type: 'ACK_FAILED', errorCode: 'INVALID_RECORD_STATE' });
            return;
          }
          lock.fate = disposition;
          lock.acks++;
          send({ type: 'ACKED' });
        }, options.ackLatencyMs);
      },
      // the owner's backoff (ADR 0009), then it gives up: the batch is released, its locks held till then
      scheduleRetry: () => {
        clock.setTimeout(() => send({ type: 'RETRIES_EXHAUSTED' }), RETRY_BACKOFF_MS);
      },
      recordExpiry: () => {},
      recordAckFailure: () => {},
    });
    const actor = createActor(machine, {
      input: { batchId: p.id, recordCount: p.records, mode: 'share', acquiredAt: p.acquiredAt },
    });
    actor.subscribe({ error: (e) => this.errors.push(e) });
    this.actors.set(p.id, actor);
    actor.start();
    this.supervisor.watch(actor);
    clock.setTimeout(() => send({ type: 'DISPATCH' }), p.queueMs);
  }
}
