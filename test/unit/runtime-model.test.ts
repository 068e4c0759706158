/**
 * Model-based tests of the REAL share-mode runtime: every path `createTestModel` finds through the batch
 * machine drives a real ShareTaskRunner and LockSupervisor (SimulatedClock) with a fake ShareConsumer
 * backed by a SharePartitionModel (the oracle of what the broker does per record) and a fake PutPool
 * answering as the path says. Supervisor events come from moving the clock, never sent by hand. Each
 * step must land where the model does; the consumer must receive the path's disposition; after shutdown
 * every record is ACCEPTed, archived or redeliverable, none lost or stuck. The runner stamps times with
 * Date.now(), not `supervisor.now()` as docs/machines.md asks, so Date.now reads the simulated clock.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { initialTransition, type InspectionEvent } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { ShareTaskRunner } from '../../src/actors/share-task-runner.js';
import { LockSupervisor } from '../../src/actors/supervisor.js';
import type { ShareConsumer } from '../../src/kafka/share/share-consumer.js';
import {
  batchMachine,
  dispositionOf,
  type BatchEvent,
  type BatchSnapshot,
  type Disposition,
} from '../../src/machines/batch.js';
import type { PutPool } from '../../src/pool/put-pool.js';
import type { PutOutcome, PutResult } from '../../src/pool/protocol.js';
import { SimulatedClock } from '../../src/actors/supervisor-clock.js';
import { KafkaError, KafkaErrorCode } from '../../src/kafka/errors/kafka-errors.js';
import type { AcknowledgeType } from '../../src/kafka/share/ack-batches.js';
import type { PartitionAckResult, ShareRecord } from '../../src/kafka/share/share-consumer.js';
import { SharePartitionModel } from '../../src/testing/index.js';
import type { TASK_COUNTERS } from '../../src/actors/task-counters.js';
import { LOCK_COUNTERS } from '../../src/actors/lock-counters.js';

const LOCK_MS = 10_000;
const RECORDS = 3;
const MEMBER = 'runner';

type ReceivedAck = { type: AcknowledgeType; offsets: number[] };

/**
 * The part of ShareConsumer the runner uses, backed by a SharePartitionModel. The first poll acquires
 * the batch; later polls wait until endPolls(). Acknowledgements are recorded and held until the
 * test answers them, which is when the model applies them at the simulated time.
 */
class ModelShareConsumer {
  readonly model: SharePartitionModel;
  readonly received: ReceivedAck[] = [];
  readonly acquisitionLockTimeoutMs: number;
  closed = false;
  readonly #renew: boolean;
  readonly #now: () => number;
  #served = false;
  #ended = false;
  readonly #parked: ((records: ShareRecord[]) => void)[] = [];
  #inFlight: { ack: ReceivedAck; resolve: (r: PartitionAckResult[]) => void }[] = [];

  constructor(renew: boolean, now: () => number) {
    this.model = new SharePartitionModel({ records: RECORDS, lockDurationMs: LOCK_MS });
    this.acquisitionLockTimeoutMs = LOCK_MS;
    this.#renew = renew;
    this.#now = now;
  }

  async subscribe(): Promise<void> {}

  async renewSupported(): Promise<boolean> {
    return this.#renew;
  }

  poll(): Promise<ShareRecord[]> {
    if (this.#ended) return Promise.resolve([]);
    if (this.#served) return new Promise((resolve) => this.#parked.push(resolve));
    this.#served = true;
    const acquired = this.model.acquire(MEMBER, RECORDS, this.#now());
    const base = {
      topic: 't',
      partition: 0,
      timestamp: 0,
      timestampType: 'CreateTime' as const,
      key: null,
      value: null,
      headers: [],
    };
    return Promise.resolve(acquired.map(({ offset, deliveryCount }) => ({ ...base, offset, deliveryCount })));
  }

  endPolls(): void {
    this.#ended = true;
    for (const resolve of this.#parked.splice(0)) resolve([]);
  }

  acknowledge(records: readonly ShareRecord[], type: AcknowledgeType): Promise<PartitionAckResult[]> {
    const ack = { type, offsets: records.map((r) => r.offset) };
    this.received.push(ack);
    return new Promise((resolve) => this.#inFlight.push({ ack, resolve }));
  }

  answerAcks(): void {
    for (const { ack, resolve } of this.#take(false)) resolve([this.#apply(ack)]);
  }

  answerRenew(ok: boolean): void {
    for (const { ack, resolve } of this.#take(true))
      resolve([ok ? this.#apply(ack) : { topic: 't', partition: 0, ...ack, error: invalidRecordState() }]);
  }

  #take(renew: boolean) {
    const taken = this.#inFlight.filter((p) => (p.ack.type === 'renew') === renew);
    this.#inFlight = this.#inFlight.filter((p) => !taken.includes(p));
    return taken;
  }

  async commit(): Promise<PartitionAckResult[]> {
    return [];
  }

  /** Like the real consumer: releases whatever it still holds. */
  async close(): Promise<void> {
    this.endPolls();
    const held = this.model
      .snapshot()
      .records.filter((r) => r.state === 'acquired' && r.member === MEMBER)
      .map((r) => r.offset);
    if (held.length > 0) this.model.acknowledge(MEMBER, held, 'release', this.#now());
    this.closed = true;
  }

  #apply(ack: ReceivedAck): PartitionAckResult {
    const r = this.model.acknowledge(MEMBER, ack.offsets, ack.type, this.#now());
    return { topic: 't', partition: 0, ...ack, error: r.error === null ? null : invalidRecordState() };
  }
}

const invalidRecordState = () =>
  new KafkaError(KafkaErrorCode.INVALID_RECORD_STATE, { api: 'ShareAcknowledge', subject: 't-0' });

/** A PutPool whose puts end when the test says, or when their signal aborts them (as the real pool). */
class ScriptedPool {
  readonly pending: ((outcome: PutOutcome) => void)[] = [];

  put(_task: unknown, _records: unknown, options: { signal?: AbortSignal } = {}): Promise<PutResult> {
    return new Promise((resolve) => {
      const stats = { durationMs: 0, convertMs: 0, converterFailures: [], threadId: 1, taskStarted: false };
      const end = (o: PutOutcome) => resolve({ ...o, ...stats });
      this.pending.push(end);
      const { signal } = options;
      signal?.addEventListener('abort', () => end({ kind: 'aborted', reason: String(signal.reason) }), {
        once: true,
      });
    });
  }

  answer(outcome: PutOutcome): void {
    this.pending.shift()?.(outcome);
  }
}

/** SimulatedClock with event-loop stalls: timers due during a stall fire late, at its end. */
class StallClock extends SimulatedClock {
  #stallUntil = Number.NEGATIVE_INFINITY;

  override setTimeout(fn: () => void, ms: number): number {
    const late = () =>
      this.now() < this.#stallUntil ? this.setTimeout(fn, this.#stallUntil - this.now()) : fn();
    return super.setTimeout(late, ms);
  }

  stallTo(time: number): void {
    this.#stallUntil = time;
    this.advanceTo(time);
  }
}

/** Batch indexes that exist in a 3-record batch, so the runner passes them through as the model does. */
const EVENTS: BatchEvent[] = [
  { type: 'PUT_PER_RECORD', rejectedOffsets: [] },
  { type: 'PUT_PER_RECORD', rejectedOffsets: [2] },
  { type: 'PUT_PER_RECORD', rejectedOffsets: [0, 1, 2] },
  { type: 'RENEWED', until: 0 },
  { type: 'ACK_FAILED', errorCode: 'INVALID_RECORD_STATE' },
];
const serializeState = (s: BatchSnapshot) =>
  JSON.stringify({ value: s.value, outcome: s.context.outcome, ackError: s.context.ackError });
const INPUT = { batchId: 'b', recordCount: RECORDS, mode: 'share', acquiredAt: 0 } as const;
const model = createTestModel(batchMachine, { events: EVENTS, input: INPUT, serializeState });
/** getPathsFromEvents ignores `input` (xstate 5.33), so the path starts from the initial snapshot. */
const [fromState] = initialTransition(batchMachine, INPUT);
const pathFrom = (events: readonly BatchEvent[]) =>
  model.getPathsFromEvents([...events], { fromState, serializeState })[0]!;

type Path = ReturnType<typeof model.getShortestPaths>[number];
const eventsOf = (p: Path) => p.steps.map((s) => s.event).filter((e) => (e.type as string) !== 'xstate.init');
const describePath = (p: Path) =>
  eventsOf(p)
    .map((e) => ('rejectedOffsets' in e ? `${e.type}[${e.rejectedOffsets.join(',')}]` : e.type))
    .join(' → ');

/**
 * The runner dispatches a batch the moment it is acquired (the pool queues the put), so `acquired` is
 * never observable. Paths through it are lifted: DISPATCH first, then the same events.
 */
const shortest = model.getShortestPaths();
const lifted = shortest
  .filter((p) => eventsOf(p)[0]?.type !== 'DISPATCH')
  .map((p) => [p, pathFrom([{ type: 'DISPATCH' }, ...eventsOf(p)])] as const);
/** Longer stories the shortest paths skip: renewals that land, a refused renew, an expiry while renewing. */
const extra = (
  [
    ['DISPATCH', 'LOCK_RENEW_DUE', 'RENEWED', 'PUT_OK', 'ACKED'],
    [
      'DISPATCH',
      'LOCK_RENEW_DUE',
      'RENEWED',
      'LOCK_RENEW_DUE',
      'RENEWED',
      'PUT_RETRIABLE',
      'RETRIES_EXHAUSTED',
      'ACKED',
    ],
    // a retry in place renews the locks while it waits, then the second attempt succeeds
    ['DISPATCH', 'PUT_RETRIABLE', 'LOCK_RENEW_DUE', 'RENEWED', 'RETRY', 'PUT_OK', 'ACKED'],
    ['DISPATCH', 'LOCK_RENEW_DUE', 'RENEW_UNAVAILABLE', 'ACKED'],
    ['DISPATCH', 'LOCK_RENEW_DUE', 'LOCK_EXPIRED'],
    ['DISPATCH', 'LOCK_RENEW_DUE', 'RENEWED', 'RENEW_UNAVAILABLE', 'ACK_FAILED'],
  ] as const
).map((types) =>
  pathFrom(types.map((type) => EVENTS.find((e) => e.type === type) ?? ({ type } as BatchEvent))),
);
const runnable = [
  ...shortest.filter((p) => eventsOf(p)[0]?.type === 'DISPATCH'),
  ...lifted.map(([, p]) => p),
  ...extra,
];
const paths = [...new Map(runnable.map((p) => [describePath(p), p])).values()];

/** The acknowledgements a disposition means for a batch of offsets 0, 1, 2, in the runner's order. */
function expectedAcks(d: Disposition | undefined): ReceivedAck[] {
  const all = [0, 1, 2];
  if (d === undefined || d.kind === 'expired') return [];
  if (d.kind !== 'partial') return [{ type: d.kind, offsets: all }];
  const bad = new Set(d.rejectedOffsets);
  return [
    { type: 'accept', offsets: all.filter((o) => !bad.has(o)) },
    { type: 'reject', offsets: all.filter((o) => bad.has(o)) },
  ];
}

/** A real ShareTaskRunner + LockSupervisor on the fakes above, and a driver per batch event. */
class Harness {
  readonly consumer: ModelShareConsumer;
  readonly pool = new ScriptedPool();
  readonly supervisor: LockSupervisor;
  readonly runner: ShareTaskRunner;
  /** Retry backoffs wait on a clock of their own, so a path decides when a retry comes. */
  readonly retryClock = new SimulatedClock(0);
  latest: BatchSnapshot | undefined;
  #stopping: Promise<void> | undefined;

  constructor(
    readonly clock: StallClock,
    o: {
      renew: boolean;
      putTimeoutMs?: number;
      retryTimeoutMs?: number;
      retriableAction?: 'retry' | 'release';
    },
  ) {
    this.consumer = new ModelShareConsumer(o.renew, () => clock.now());
    const logger = pino({ level: 'silent' });
    const { putTimeoutMs } = o;
    this.supervisor = new LockSupervisor({ logger, clock, lockDurationMs: LOCK_MS, putTimeoutMs });
    this.runner = new ShareTaskRunner({
      ...{ connector: 'c', taskId: 0, topics: ['t'], poolTask: { id: 'c-0', props: {} }, logger },
      consumer: this.consumer as unknown as ShareConsumer,
      pool: this.pool as unknown as PutPool,
      supervisor: this.supervisor,
      errorsTolerance: 'all',
      shutdownGraceMs: 0,
      retryTimeoutMs: o.retryTimeoutMs,
      retriableAction: o.retriableAction,
      retryClock: this.retryClock,
      inspect: (e: InspectionEvent) => {
        if (e.type === '@xstate.snapshot') this.latest = e.snapshot as BatchSnapshot;
      },
    });
  }

  async drive(event: BatchEvent): Promise<void> {
    const { consumer, pool, clock } = this;
    switch (event.type) {
      case 'DISPATCH':
        await this.runner.start();
        await until(() => pool.pending.length === 1);
        break;
      case 'PUT_OK':
      case 'PUT_RETRIABLE':
      case 'PUT_FATAL':
      case 'ABORTED':
        pool.answer(OUTCOMES[event.type]);
        break;
      case 'PUT_PER_RECORD':
        pool.answer({
          kind: 'perRecord',
          rejected: event.rejectedOffsets.map((index) => ({ index, message: 'bad' })),
        });
        break;
      case 'RENEWED':
        consumer.answerRenew(true);
        break;
      case 'RENEW_UNAVAILABLE':
        if (this.latest?.matches({ active: { lease: 'renewing' } })) {
          consumer.answerRenew(false);
          break;
        }
        // renewal off from now on (as after a refused renew): the supervisor releases at 80% of the lock
        this.supervisor.setRenewAvailable(false);
        clock.advanceTo(clock.nextDueAt()!);
        break;
      case 'PUT_TIMEOUT':
      case 'LOCK_RENEW_DUE':
        clock.advanceTo(clock.nextDueAt()!);
        break;
      case 'RETRY':
        // the backoff ends: the same records are put again
        this.retryClock.advanceTo(this.retryClock.nextDueAt()!);
        await until(() => pool.pending.length === 1);
        break;
      case 'RETRIES_EXHAUSTED':
        // the backoff ends after errors.retry.timeout ran out: given up on
        this.retryClock.advanceTo(this.retryClock.nextDueAt()!);
        break;
      case 'LOCK_EXPIRED': {
        // the event loop stalls past the deadline: every timer fires late, at the deadline
        const c = this.latest!.context;
        clock.stallTo(c.lockDeadline ?? c.acquiredAt + LOCK_MS);
        break;
      }
      case 'SHUTDOWN':
        void this.stop();
        break;
      case 'ACKED':
        consumer.answerAcks();
        break;
      case 'ACK_FAILED':
        // the lock runs out while the acknowledgement is in flight: the broker refuses it
        clock.advanceTo(Math.max(clock.now(), consumer.model.nextDeadline()!));
        consumer.answerAcks();
        break;
      default:
        // every event type has a driver: a new one in the machine fails to compile here
        throw new Error(`no driver for ${(event as BatchEvent).type}`);
    }
    await settle();
  }

  stop(): Promise<void> {
    this.consumer.endPolls();
    this.#stopping ??= this.runner.stop();
    return this.#stopping;
  }

  /** Stops the runner (SHUTDOWN → RELEASE for what still runs), answering acks until it has stopped. */
  async finish(): Promise<void> {
    let stopped = false;
    void this.stop().then(() => (stopped = true));
    for (let i = 0; i < 200 && !stopped; i++) {
      this.consumer.answerAcks();
      await settle();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(stopped).toBe(true);
    expect(this.consumer.closed).toBe(true);
    expect(this.supervisor.inFlight).toBe(0);
  }

  /** None lost, none stuck: ACCEPTed or archived only as the batch decided, the rest redeliverable. */
  expectNoRecordLost(): void {
    const m = this.consumer.model;
    expect(m.invariantViolations()).toEqual([]);
    m.expireLocks(this.clock.now());
    const d = dispositionOf(this.latest!);
    const acked = this.latest!.matches('done');
    const rejected = (o: number) =>
      d?.kind === 'reject' || (d?.kind === 'partial' && d.rejectedOffsets.includes(o));
    const accepted = (o: number) => d?.kind === 'accept' || (d?.kind === 'partial' && !rejected(o));
    for (let offset = 0; offset < RECORDS; offset++) {
      const s = m.state(offset);
      if (acked && accepted(offset)) expect(s).toEqual({ state: 'acknowledged', deliveryCount: 1 });
      else if (acked && rejected(offset))
        expect(s).toEqual({ state: 'archived', deliveryCount: 1, reason: 'rejected' });
      else expect(s).toEqual({ state: 'available', deliveryCount: 1 });
    }
    const again = m.acquire('another-member', RECORDS, this.clock.now());
    expect(again.map((a) => a.deliveryCount)).toEqual(again.map(() => 2));
  }

  /**
   * The summary's counters agree with what happened and with each other (issue 12, item 7): every
   * record is counted once by how its batch ended, and renewals that landed show in batches and in
   * records under names that say which.
   */
  expectCountersAgree(events: readonly BatchEvent[]): void {
    const c = this.runner.counters.snapshot();
    const locks = this.supervisor.counters;
    for (const [k, v] of Object.entries({ ...c, ...locks })) if (v > 0) moved.add(k);
    const end = this.latest!;
    const count = (type: BatchEvent['type']) => events.filter((e) => e.type === type).length;
    expect(c).toMatchObject({ batches: 1, recordsAcquired: RECORDS, recordsRedelivered: 0 });
    expect(locks.batchesWatched).toBe(1);
    const ended =
      c.recordsAccepted + c.recordsReleased + c.recordsRejected + c.recordsLockExpired + c.recordsAckFailed;
    expect(ended, 'each record counted once by how its batch ended').toBe(RECORDS);
    const expired = end.matches('expired');
    expect(c.recordsLockExpired).toBe(expired ? RECORDS : 0);
    expect(locks.batchesLockExpired).toBe(expired ? 1 : 0);
    const ackFailed = end.matches('ackFailed');
    expect(c.recordsAckFailed).toBe(ackFailed ? RECORDS : 0);
    expect(locks.batchesAckFailed).toBe(ackFailed ? 1 : 0);
    const renews = this.consumer.received.filter((a) => a.type === 'renew').length;
    expect(locks.batchRenewalsRequested).toBe(renews);
    expect(locks.batchRenewalsGranted).toBe(count('RENEWED'));
    expect(locks.recordsRenewed).toBe(RECORDS * count('RENEWED'));
    expect(locks.putTimeouts).toBe(count('PUT_TIMEOUT'));
    if (count('PUT_TIMEOUT') > 0) expect(c.putsAborted).toBeGreaterThan(0);
    const d = dispositionOf(end);
    const early = d?.kind === 'release' && (d.reason === 'put-timeout' || d.reason === 'renew-unavailable');
    expect(locks.batchesReleasedEarly).toBe(early ? 1 : 0);
    const answered = ['PUT_OK', 'PUT_RETRIABLE', 'PUT_FATAL', 'PUT_PER_RECORD'] as const;
    expect(c.puts).toBeGreaterThanOrEqual(answered.reduce((n, t) => n + count(t), 0));
    expect(c.putsFailed).toBe(count('PUT_RETRIABLE') + count('PUT_FATAL'));
  }
}

/** Counters some path made move: each path checks its own, the last test that together they cover all. */
const moved = new Set<string>();

const OUTCOMES = {
  PUT_OK: { kind: 'ok' },
  PUT_RETRIABLE: { kind: 'retriable', message: 'downstream busy' },
  PUT_FATAL: { kind: 'fatal', message: 'downstream refused' },
  ABORTED: { kind: 'aborted', reason: 'pool closing' },
} satisfies Record<string, PutOutcome>;

describe('the real ShareTaskRunner follows the batch model', () => {
  let clock: StallClock;
  beforeEach(() => {
    clock = new StallClock(1_000_000);
    vi.spyOn(Date, 'now').mockImplementation(() => clock.now());
  });
  afterEach(() => vi.restoreAllMocks());

  it('lifts paths through `acquired` to the same outcome, and covers at least 20 paths', () => {
    for (const [original, p] of lifted) {
      expect(p.state.status, describePath(p)).toBe(original.state.status);
      expect(dispositionOf(p.state)).toEqual(dispositionOf(original.state));
      if (p.state.status === 'done') expect(p.state.value).toEqual(original.state.value);
    }
    expect(paths.length).toBeGreaterThanOrEqual(20);
  });

  it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_, path) => {
    const events = eventsOf(path);
    const h = new Harness(clock, {
      renew: events.some((e) => e.type === 'LOCK_RENEW_DUE'),
      // before the renew point, and only where the path wants a put timeout
      putTimeoutMs: events.some((e) => e.type === 'PUT_TIMEOUT') ? 0.3 * LOCK_MS : undefined,
      // where the path gives up on retries, errors.retry.timeout runs out before the first retry
      retryTimeoutMs: events.some((e) => e.type === 'RETRIES_EXHAUSTED') ? 50 : undefined,
    });
    for (const step of path.steps) {
      if ((step.event.type as string) === 'xstate.init') continue;
      await h.drive(step.event);
      const real = h.latest!;
      expect(real.value, `after ${step.event.type}`).toEqual(step.state.value);
      expect(dispositionOf(real)).toEqual(dispositionOf(step.state));
      if (real.matches('ackFailed')) expect(real.context.ackError).toBeDefined();
    }
    // what the broker was told is exactly the path's disposition, and one RENEW per renewal
    const received = h.consumer.received;
    expect(received.filter((a) => a.type !== 'renew')).toEqual(expectedAcks(dispositionOf(path.state)));
    expect(received.filter((a) => a.type === 'renew')).toHaveLength(h.latest!.context.renewCount);
    await h.finish();
    h.expectNoRecordLost();
    h.expectCountersAgree(events);
  });

  it('the paths together move every lock counter and the task counters a batch path drives', () => {
    // the rest (put time, redeliveries, thread loss) need a real pool or a second delivery: unit tests
    const byPath = [
      'batches',
      'recordsAcquired',
      'recordsAccepted',
      'recordsReleased',
      'recordsRejected',
      'recordsLockExpired',
      'recordsAckFailed',
      'puts',
      'putsFailed',
      'putsAborted',
    ] satisfies Array<keyof typeof TASK_COUNTERS>;
    const all = [...byPath, ...Object.keys(LOCK_COUNTERS)];
    expect(all.filter((k) => !moved.has(k))).toEqual([]);
  });

  it('retry in place (the default): a RetriableError puts the same records again under the same locks', async () => {
    const h = new Harness(clock, { renew: true });
    await h.drive({ type: 'DISPATCH' });
    await h.drive({ type: 'PUT_RETRIABLE' });
    expect(h.latest!.value).toEqual({ active: { work: 'retrying', lease: 'held' } });
    await h.drive({ type: 'LOCK_RENEW_DUE' });
    await h.drive({ type: 'RENEWED', until: 0 });
    await h.drive({ type: 'RETRY' });
    expect(h.latest!.value).toEqual({ active: { work: 'putting', lease: 'held' } });
    expect(h.latest!.context.attempt).toBe(2);
    await h.drive({ type: 'PUT_OK' });
    await h.drive({ type: 'ACKED' });
    expect(h.latest!.value).toBe('done');
    expect(h.consumer.received).toEqual([
      { type: 'renew', offsets: [0, 1, 2] },
      { type: 'accept', offsets: [0, 1, 2] },
    ]);
    await h.finish();
    h.expectNoRecordLost();
  });

  it('share.retriable.action=release: a RetriableError RELEASEs at once, spending a delivery', async () => {
    const h = new Harness(clock, { renew: false, retriableAction: 'release' });
    await h.drive({ type: 'DISPATCH' });
    await h.drive({ type: 'PUT_RETRIABLE' });
    expect(dispositionOf(h.latest!)).toEqual({ kind: 'release', reason: 'retriable' });
    await h.drive({ type: 'ACKED' });
    expect(h.consumer.received).toEqual([{ type: 'release', offsets: [0, 1, 2] }]);
    await h.finish();
    h.expectNoRecordLost();
  });
});

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
}

async function until(condition: () => boolean, sleepMs = 0): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) {
    await settle();
    if (sleepMs > 0) await new Promise((r) => setTimeout(r, sleepMs / 10));
  }
  expect(condition()).toBe(true);
}
