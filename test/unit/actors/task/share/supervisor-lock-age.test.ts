// LockSupervisor.oldestAcquiredAt, behind /metrics' sharesink_locks_oldest_acquired_age_seconds: the
// acquisition time of the oldest share batch still watched, renewals or not, and none once all are done.
import { describe, expect, it } from 'vitest';
import { ShareSim, type BatchPlan } from './supervisor-harness.js';

const plan = (over: Partial<BatchPlan>): BatchPlan => ({
  id: 'b-1',
  records: 5,
  acquiredAt: 0,
  queueMs: 0,
  putMs: 1_000,
  outcome: { type: 'PUT_OK' },
  ...over,
});

describe('LockSupervisor.oldestAcquiredAt', () => {
  it('is the oldest acquisition among the batches in flight, kept through renewals', () => {
    const sim = new ShareSim({ lockMs: 10_000, renewAvailable: true, renewLatencyMs: 5, ackLatencyMs: 5 });
    expect(sim.supervisor.oldestAcquiredAt()).toBeUndefined();
    sim.plan(plan({ id: 'slow', acquiredAt: 100, putMs: 30_000 }));
    sim.plan(plan({ id: 'fast', acquiredAt: 200, putMs: 50 }));
    sim.clock.advanceTo(1_000);
    expect(sim.supervisor.inFlight).toBe(1);
    expect(sim.supervisor.oldestAcquiredAt()).toBe(100);
    // past two renewals of the slow batch: its acquisition time, not the renewal, still counts
    sim.clock.advanceTo(12_000);
    expect(sim.broker.get('slow')!.renewals).toBeGreaterThan(0);
    expect(sim.supervisor.oldestAcquiredAt()).toBe(100);
    sim.run();
    expect(sim.supervisor.oldestAcquiredAt()).toBeUndefined();
  });
});
