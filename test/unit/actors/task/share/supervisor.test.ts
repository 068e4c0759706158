import diagnosticsChannel from 'node:diagnostics_channel';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { LockSupervisor } from '../../../../../src/actors/task/share/supervisor.js';
import { SimulatedClock } from '../../../../../src/actors/task/core/clock.js';
import { ConfigError } from '../../../../../src/errors.js';
import {
  batchMachine,
  batchStateName,
  createBatchMachine,
  type BatchInput,
} from '../../../../../src/machines/batch.js';
import {
  CHANNEL_LOCK_EXPIRED,
  CHANNEL_LOCK_RELEASED,
  CHANNEL_LOCK_RENEWED,
} from '../../../../../src/observability/channels.js';
import { capturingLogger } from '../../../cli/capturing-logger.js';
import { ShareSim, type BatchPlan } from './supervisor-harness.js';

const published: { channel: string; message: unknown }[] = [];
const listeners = [CHANNEL_LOCK_RENEWED, CHANNEL_LOCK_RELEASED, CHANNEL_LOCK_EXPIRED].map((channel) => {
  const fn = (message: unknown) => published.push({ channel, message });
  return [channel, fn] as const;
});
beforeEach(() => listeners.forEach(([c, fn]) => diagnosticsChannel.subscribe(c, fn)));
afterEach(() => {
  listeners.forEach(([c, fn]) => diagnosticsChannel.unsubscribe(c, fn));
  published.length = 0;
});

const plan = (over: Partial<BatchPlan> = {}): BatchPlan => ({
  id: 'b-1',
  records: 5,
  acquiredAt: 0,
  queueMs: 0,
  putMs: 1_000,
  outcome: { type: 'PUT_OK' },
  ...over,
});

describe('LockSupervisor', () => {
  it('leaves a short put alone', () => {
    const sim = new ShareSim({ lockMs: 10_000, renewAvailable: true, renewLatencyMs: 5, ackLatencyMs: 5 });
    sim.plan(plan());
    sim.run();
    expect(sim.broker.get('b-1')).toMatchObject({ fate: { kind: 'accept' }, acks: 1, renewals: 0 });
    expect(sim.supervisor.counters).toMatchObject({
      batchesWatched: 1,
      batchRenewalsRequested: 0,
      batchesLockExpired: 0,
      batchesReleasedEarly: 0,
    });
    expect(sim.supervisor.inFlight).toBe(0);
    expect(sim.clock.pending).toBe(0);
  });

  it('renews at half the lock while the put runs, again and again', () => {
    const sim = new ShareSim({ lockMs: 10_000, renewAvailable: true, renewLatencyMs: 10, ackLatencyMs: 5 });
    sim.plan(plan({ putMs: 32_000 }));
    sim.clock.advanceTo(4_999);
    expect(sim.broker.get('b-1')?.renewals).toBe(0);
    sim.clock.advanceTo(5_010);
    expect(sim.broker.get('b-1')?.renewals).toBe(1);
    sim.run();
    const lock = sim.broker.get('b-1');
    expect(lock?.fate).toEqual({ kind: 'accept' });
    expect(lock?.expiredUnderPut).toBe(false);
    expect(lock?.renewals).toBeGreaterThanOrEqual(5);
    const c = sim.supervisor.counters;
    expect(c.batchRenewalsGranted).toBe(lock?.renewals);
    // one renewal covers the batch's 5 records: the summary's two units, each under its own name
    expect(c.recordsRenewed).toBe(5 * c.batchRenewalsGranted);
    expect(c.batchRenewalsRequested).toBe(c.batchRenewalsGranted);
    expect(c.batchesLockExpired).toBe(0);
    expect(published.filter((p) => p.channel === CHANNEL_LOCK_RENEWED)).toHaveLength(c.batchRenewalsGranted);
    expect(published[0]?.message).toMatchObject({ batchId: 'b-1', until: 15_000, renewCount: 1 });
    expect(sim.lines.filter((l) => l.msg === 'lock renewed').every((l) => l.batchId === 'b-1')).toBe(true);
  });

  it('also renews a batch still waiting for a worker', () => {
    const sim = new ShareSim({ lockMs: 10_000, renewAvailable: true, renewLatencyMs: 10, ackLatencyMs: 5 });
    sim.plan(plan({ queueMs: 12_000, putMs: 100 }));
    sim.run();
    expect(sim.broker.get('b-1')).toMatchObject({ fate: { kind: 'accept' }, renewals: 2 });
  });

  it('without renewal, aborts the put and releases at 80% of the lock', () => {
    const sim = new ShareSim({ lockMs: 10_000, renewAvailable: false, renewLatencyMs: 10, ackLatencyMs: 5 });
    sim.plan(plan({ putMs: 20_000 }));
    sim.clock.advanceTo(7_999);
    expect(sim.putting.has('b-1')).toBe(true);
    sim.run();
    expect(sim.putting.has('b-1')).toBe(false);
    expect(sim.broker.get('b-1')).toMatchObject({
      fate: { kind: 'release', reason: 'renew-unavailable' },
      expiredUnderPut: false,
    });
    expect(sim.supervisor.counters).toMatchObject({
      batchesReleasedEarly: 1,
      batchesLockExpired: 0,
      batchRenewalsRequested: 0,
    });
    expect(published).toEqual([
      {
        channel: CHANNEL_LOCK_RELEASED,
        message: { batchId: 'b-1', reason: 'renew-unavailable', deadline: 10_000, at: 8_000 },
      },
    ]);
    expect(sim.lines.find((l) => l.msg.startsWith('batch released'))).toMatchObject({
      batchId: 'b-1',
      level: 30,
    });
  });

  it('releases early when the renew reply is overdue', () => {
    const sim = new ShareSim({
      lockMs: 10_000,
      renewAvailable: true,
      renewLatencyMs: 4_000,
      ackLatencyMs: 5,
    });
    sim.plan(plan({ putMs: 20_000 }));
    sim.run();
    expect(sim.broker.get('b-1')?.fate).toEqual({ kind: 'release', reason: 'renew-unavailable' });
    expect(sim.supervisor.counters).toMatchObject({
      batchRenewalsRequested: 1,
      batchRenewalsGranted: 0,
      batchesReleasedEarly: 1,
      batchesLockExpired: 0,
    });
  });

  it('aborts a put that exceeds put.timeout.ms and releases the batch', () => {
    const sim = new ShareSim({
      lockMs: 10_000,
      renewAvailable: true,
      renewLatencyMs: 10,
      ackLatencyMs: 5,
      supervisor: { putTimeoutMs: 3_000 },
    });
    sim.plan(plan({ putMs: 60_000, queueMs: 500 }));
    sim.clock.advanceTo(3_499);
    expect(sim.putting.has('b-1')).toBe(true);
    sim.run();
    expect(sim.broker.get('b-1')?.fate).toEqual({ kind: 'release', reason: 'put-timeout' });
    expect(sim.supervisor.counters).toMatchObject({ putTimeouts: 1, batchesReleasedEarly: 1 });
    expect(sim.lines.find((l) => l.msg.startsWith('put timed out'))).toMatchObject({
      level: 40,
      batchId: 'b-1',
    });
  });

  it('counts, logs and publishes an expiry it could not prevent', () => {
    const clock = new SimulatedClock(50_000);
    const { logger, lines } = capturingLogger('debug');
    const supervisor = new LockSupervisor({ clock, logger, lockDurationMs: 10_000 });
    const aborted: string[] = [];
    const machine = createBatchMachine({
      startPut: () => {},
      abortPut: (p) => aborted.push(p.reason),
      sendAcks: () => expect.unreachable('expired records must not be acknowledged'),
      sendRenew: () => {},
      scheduleRetry: () => {},
      recordExpiry: () => {},
      recordAckFailure: () => {},
    });
    // Acquired long ago, e.g. an event loop stalled for longer than the lock.
    const actor = createActor(machine, {
      input: { batchId: 'late', recordCount: 4, mode: 'share', acquiredAt: 0 },
    });
    actor.start();
    actor.send({ type: 'DISPATCH' });
    supervisor.watch(actor);
    clock.advance(0);
    expect(actor.getSnapshot().value).toBe('expired');
    expect(aborted).toEqual(['lock-expired']);
    expect(supervisor.counters.batchesLockExpired).toBe(1);
    expect(published).toEqual([
      {
        channel: CHANNEL_LOCK_EXPIRED,
        message: { batchId: 'late', deadline: 10_000, duringPut: true, recordCount: 4, at: 50_000 },
      },
    ]);
    expect(lines.find((l) => l.msg.startsWith('acquisition lock expired'))).toMatchObject({
      level: 40,
      batchId: 'late',
    });
  });

  it('counts acknowledgements that fail', () => {
    const sim = new ShareSim({ lockMs: 10_000, renewAvailable: false, renewLatencyMs: 10, ackLatencyMs: 5 });
    sim.plan(plan());
    sim.clock.advanceTo(1_000); // the put has just finished, the ack is in flight
    sim.broker.get('b-1')!.fate = 'expired';
    sim.run();
    expect(sim.actors.get('b-1')?.getSnapshot().value).toBe('ackFailed');
    expect(sim.supervisor.counters.batchesAckFailed).toBe(1);
  });

  it('keeps one timer per batch, whatever the number of records', () => {
    const sim = new ShareSim({ lockMs: 10_000, renewAvailable: true, renewLatencyMs: 10, ackLatencyMs: 5 });
    for (let i = 0; i < 50; i++) sim.plan(plan({ id: `b-${i}`, records: 500, putMs: 30_000 }));
    sim.clock.advanceTo(100);
    expect(sim.supervisor.inFlight).toBe(50);
    // per batch: the supervisor's timer, the fake put and the fake broker's expiry timer
    expect(sim.clock.pending).toBe(150);
    sim.run();
    expect([...sim.broker.values()].every((l) => l.fate !== 'expired' && l.acks === 1)).toBe(true);
  });

  it('learns the lock duration for batches that do not carry a deadline', () => {
    const sim = new ShareSim({ lockMs: 10_000, renewAvailable: false, renewLatencyMs: 10, ackLatencyMs: 5 });
    sim.supervisor.setLockDuration(20_000);
    expect(sim.supervisor.lockDeadlineFor(5)).toBe(20_005);
    sim.plan(plan({ putMs: 9_000 }));
    sim.run();
    // With the old 10 s lock this put would have been released at 8 s.
    expect(sim.broker.get('b-1')?.fate).toEqual({ kind: 'accept' });
  });

  it('re-plans in-flight batches when renewal becomes available', () => {
    const sim = new ShareSim({ lockMs: 10_000, renewAvailable: false, renewLatencyMs: 10, ackLatencyMs: 5 });
    sim.plan(plan({ putMs: 15_000 }));
    sim.clock.advanceTo(100);
    // the broker turns out to support RENEW after all
    (sim.options as { renewAvailable: boolean }).renewAvailable = true;
    sim.supervisor.setRenewAvailable(true);
    sim.run();
    expect(sim.broker.get('b-1')).toMatchObject({ fate: { kind: 'accept' } });
    expect(sim.supervisor.counters.batchesReleasedEarly).toBe(0);
  });

  it('stops watching when the batch actor fails, without crashing the process', () => {
    const clock = new SimulatedClock();
    const { logger, lines } = capturingLogger('info');
    const supervisor = new LockSupervisor({ clock, logger });
    const actor = createActor(
      batchMachine.provide({
        actions: {
          startPut: () => {
            throw new Error('worker pool closed');
          },
        },
      }),
      { input: { batchId: 'x', recordCount: 1, mode: 'share', acquiredAt: 0 } satisfies BatchInput },
    );
    actor.start();
    supervisor.watch(actor);
    actor.send({ type: 'DISPATCH' });
    expect(actor.getSnapshot().status).toBe('error');
    expect(supervisor.inFlight).toBe(0);
    expect(clock.pending).toBe(0);
    expect(lines.map((l) => l.msg)).toContain('batch actor failed; lock supervision stopped');
  });

  it('close() drops every watch and timer; a batch cannot be watched twice', () => {
    const clock = new SimulatedClock();
    const supervisor = new LockSupervisor({ clock, logger: pino({ enabled: false }) });
    const actor = createActor(batchMachine, {
      input: { batchId: 'y', recordCount: 1, mode: 'share', acquiredAt: 0 },
    }).start();
    supervisor.watch(actor);
    expect(() => supervisor.watch(actor)).toThrow(/already supervised/);
    expect(clock.pending).toBe(1);
    supervisor.close();
    expect(clock.pending).toBe(0);
    expect(supervisor.inFlight).toBe(0);
    expect(batchStateName(actor.getSnapshot())).toBe('acquired');
  });

  it('can watch an actor before it starts, and tells its clock', () => {
    const clock = new SimulatedClock(1_000);
    const supervisor = new LockSupervisor({
      clock,
      logger: pino({ enabled: false }),
      lockDurationMs: 10_000,
    });
    expect(supervisor.now()).toBe(1_000);
    const actor = createActor(batchMachine, {
      input: { batchId: 'early', recordCount: 1, mode: 'share', acquiredAt: supervisor.now() },
    });
    supervisor.watch(actor);
    actor.start();
    actor.send({ type: 'DISPATCH' });
    clock.advanceTo(9_000);
    expect(actor.getSnapshot().value).toBe('acknowledging');
    expect(actor.getSnapshot().context.outcome).toEqual({ kind: 'release', reason: 'renew-unavailable' });
  });

  it('supervises only the put timeout of classic batches', () => {
    const clock = new SimulatedClock();
    const supervisor = new LockSupervisor({ clock, logger: pino({ enabled: false }), putTimeoutMs: 1_000 });
    const actor = createActor(batchMachine, {
      input: { batchId: 'c', recordCount: 1, mode: 'classic', acquiredAt: 0 },
    }).start();
    supervisor.watch(actor);
    expect(clock.pending).toBe(0);
    actor.send({ type: 'DISPATCH' });
    clock.advance(1_000);
    expect(batchStateName(actor.getSnapshot())).toBe('retrying');
    actor.send({ type: 'RETRY' });
    clock.advance(999);
    expect(batchStateName(actor.getSnapshot())).toBe('putting');
    clock.advance(1);
    expect(batchStateName(actor.getSnapshot())).toBe('retrying');
    expect(supervisor.counters).toMatchObject({
      putTimeouts: 2,
      batchesReleasedEarly: 0,
      batchesLockExpired: 0,
    });
  });

  it('rejects bad options, listing every problem', () => {
    const make = () =>
      new LockSupervisor({
        logger: pino({ enabled: false }),
        lockDurationMs: 0,
        renewFraction: 1.5,
        releaseFraction: 0.1,
        putTimeoutMs: -1,
      });
    expect(make).toThrow(ConfigError);
    try {
      make();
    } catch (e) {
      expect((e as ConfigError).problems).toHaveLength(4);
    }
  });
});
