/**
 * Properties of lock supervision end to end on a simulated clock: a fake broker holding one lock per
 * batch, fake puts, the real batch machine and the real LockSupervisor (see supervisor-harness.ts).
 * Arbitrary lock durations, put latencies and outcomes, queueing delays and broker round trips.
 */
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { dispositionOf } from '../../src/machines/batch.js';
import { ShareSim, type BatchPlan, type PutOutcome } from '../unit/actors/task/share/supervisor-harness.js';

const outcomeArb = (records: number): fc.Arbitrary<PutOutcome> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant<PutOutcome>({ type: 'PUT_OK' }) },
    fc.constant<PutOutcome>({ type: 'PUT_RETRIABLE' }),
    fc.constant<PutOutcome>({ type: 'PUT_FATAL' }),
    fc
      .uniqueArray(fc.integer({ min: 0, max: records - 1 }), { maxLength: records })
      .map((rejectedIndexes): PutOutcome => ({ type: 'PUT_PER_RECORD', rejectedIndexes })),
  );

/** Batches whose times scale with the lock, so every regime (short put, renewals, expiry) shows up. */
const batchesArb = (lockMs: number) =>
  fc.array(
    fc
      .record({
        records: fc.integer({ min: 1, max: 20 }),
        acquiredAt: fc.integer({ min: 0, max: 2 * lockMs }),
        queueMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: Math.round(1.5 * lockMs) })),
        putMs: fc.integer({ min: 0, max: 4 * lockMs }),
      })
      .chain((b) => outcomeArb(b.records).map((outcome) => ({ ...b, outcome }))),
    { minLength: 1, maxLength: 8 },
  );

const worldArb = fc.integer({ min: 1_000, max: 60_000 }).chain((lockMs) =>
  fc.record({
    lockMs: fc.constant(lockMs),
    batches: batchesArb(lockMs),
    renewAvailable: fc.boolean(),
    putTimeoutMs: fc.option(fc.integer({ min: 1, max: 3 * lockMs }), { nil: undefined }),
    // Broker round trips; "slow" ones reach past the lock so expiries and failed acks happen too.
    renewLatencyMs: fc.integer({ min: 0, max: Math.round(1.2 * lockMs) }),
    ackLatencyMs: fc.integer({ min: 0, max: Math.round(1.2 * lockMs) }),
    timerLagMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: Math.round(0.6 * lockMs) })),
  }),
);

type World = typeof worldArb extends fc.Arbitrary<infer W> ? W : never;

function simulate(w: World): ShareSim {
  const sim = new ShareSim({
    lockMs: w.lockMs,
    renewAvailable: w.renewAvailable,
    renewLatencyMs: w.renewLatencyMs,
    ackLatencyMs: w.ackLatencyMs,
    timerLagMs: w.timerLagMs,
    supervisor: w.putTimeoutMs === undefined ? {} : { putTimeoutMs: w.putTimeoutMs },
  });
  w.batches.forEach((b, i) => sim.plan({ id: `b-${i}`, ...b } satisfies BatchPlan));
  sim.run();
  return sim;
}

test.prop([worldArb], { numRuns: 300 })(
  'every record ends ACCEPTed, REJECTed or back with the broker for redelivery: none lost, none acked twice',
  (world) => {
    const sim = simulate(world);
    expect(sim.errors).toEqual([]);
    expect(sim.supervisor.inFlight).toBe(0);
    expect(sim.clock.pending).toBe(0);
    world.batches.forEach((plan, i) => {
      const id = `b-${i}`;
      const lock = sim.broker.get(id);
      const snapshot = sim.actors.get(id)?.getSnapshot();
      expect(snapshot?.status).toBe('done');
      expect(lock?.fate).toBeDefined();
      expect(lock?.acks).toBeLessThanOrEqual(1);
      if (snapshot?.value === 'done') {
        // acknowledged exactly once, with what the machine decided
        expect(lock?.acks).toBe(1);
        expect(lock?.fate).toEqual(dispositionOf(snapshot));
      } else {
        // expired or ack failed: nothing acknowledged, the broker took the records back
        expect(lock?.acks).toBe(0);
        expect(lock?.fate).toBe('expired');
      }
      const fate = lock?.fate;
      if (typeof fate === 'object' && fate.kind === 'accept') {
        expect(
          plan.outcome.type === 'PUT_OK' ||
            (plan.outcome.type === 'PUT_PER_RECORD' && plan.outcome.rejectedIndexes.length === 0),
        ).toBe(true);
      }
    });
  },
);

test.prop([worldArb], { numRuns: 300 })('every expiry, early release and failed ack is counted', (world) => {
  const sim = simulate(world);
  const snapshots = [...sim.actors.values()].map((a) => a.getSnapshot());
  const c = sim.supervisor.counters;
  expect(c.batchesWatched).toBe(world.batches.length);
  expect(c.batchesLockExpired).toBe(snapshots.filter((s) => s.value === 'expired').length);
  expect(c.batchesAckFailed).toBe(snapshots.filter((s) => s.value === 'ackFailed').length);
  const early = snapshots.filter((s) => {
    const d = dispositionOf(s);
    return d?.kind === 'release' && (d.reason === 'put-timeout' || d.reason === 'renew-unavailable');
  });
  expect(c.batchesReleasedEarly).toBe(early.length);
  expect(c.batchRenewalsRequested).toBe(snapshots.reduce((n, s) => n + s.context.renewCount, 0));
  expect(c.batchRenewalsGranted).toBeLessThanOrEqual(c.batchRenewalsRequested);
  expect(c.batchRenewalsGranted).toBeLessThanOrEqual(
    [...sim.broker.values()].reduce((n, l) => n + l.renewals, 0),
  );
  if (!world.renewAvailable) expect(c.batchRenewalsRequested).toBe(0);
  const expiries = sim.lines.filter((l) => l.msg.startsWith('acquisition lock expired'));
  expect(expiries).toHaveLength(c.batchesLockExpired);
});

/** Round trips well inside the lock and a responsive event loop: what a healthy process gives. */
const healthyWorldArb = worldArb.chain((w) =>
  fc
    .record({
      renewLatencyMs: fc.integer({ min: 0, max: Math.floor(0.1 * w.lockMs) }),
      ackLatencyMs: fc.integer({ min: 0, max: Math.floor(0.1 * w.lockMs) }),
      timerLagMs: fc.integer({ min: 0, max: Math.floor(0.05 * w.lockMs) }),
    })
    .map((healthy) => ({ ...w, ...healthy })),
);

test.prop([healthyWorldArb], { numRuns: 300 })(
  'with a healthy broker no lock ever expires: renewed while renewal is available, released early otherwise',
  (world) => {
    const sim = simulate(world);
    const locks = [...sim.broker.values()];
    expect(locks.filter((l) => l.expiredUnderPut)).toEqual([]);
    expect(locks.filter((l) => l.fate === 'expired')).toEqual([]);
    expect(sim.supervisor.counters.batchesLockExpired).toBe(0);
    expect(sim.supervisor.counters.batchesAckFailed).toBe(0);
    if (world.renewAvailable) {
      // no put was cut short by the lock, only by put.timeout.ms
      for (const s of sim.actors.values()) {
        const d = dispositionOf(s.getSnapshot());
        expect(d?.kind === 'release' && d.reason === 'renew-unavailable').toBe(false);
      }
    }
  },
);
