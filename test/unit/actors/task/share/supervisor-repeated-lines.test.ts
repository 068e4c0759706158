/**
 * A slow sink times out every put: the supervisor's lines about it are said once per 30 s with the
 * count of those left out (as the Kafka retry lines are), while its counters still count every batch.
 * Before, each batch logged its own WARN `put timed out` and INFO `batch released before its lock ran
 * out`: a put gathering 8 batches printed 8 of each at once, and a slow sink flooded the log.
 */
import { describe, expect, it } from 'vitest';
import { ShareSim, type BatchPlan } from './supervisor-harness.js';

const slow = (id: string, acquiredAt: number): BatchPlan => ({
  id,
  records: 5,
  acquiredAt,
  queueMs: 0,
  putMs: 60_000,
  outcome: { type: 'PUT_OK' },
});

const WARN = 40;
const INFO = 30;

function timeoutSim(): ShareSim {
  return new ShareSim({
    lockMs: 10_000,
    renewAvailable: true,
    renewLatencyMs: 10,
    ackLatencyMs: 5,
    supervisor: { putTimeoutMs: 3_000 },
  });
}

describe('LockSupervisor: repeated lines of a slow sink', () => {
  it('says put timed out once for a burst, and the next one carries how many were left out', () => {
    const sim = timeoutSim();
    for (let i = 0; i < 6; i++) sim.plan(slow(`a-${i}`, i * 10));
    // 40 s later, past the 30 s window: the next burst
    for (let i = 0; i < 6; i++) sim.plan(slow(`b-${i}`, 40_000 + i * 10));
    sim.run();

    for (const id of [...sim.broker.keys()])
      expect(sim.broker.get(id)?.fate).toEqual({ kind: 'release', reason: 'put-timeout' });
    expect(sim.supervisor.counters).toMatchObject({ putTimeouts: 12, batchesReleasedEarly: 12 });

    const timedOut = sim.lines.filter((l) => l.msg.startsWith('put timed out'));
    expect(timedOut.map((l) => [l.level, l.batchId, l.repeatsLeftOut])).toEqual([
      [WARN, 'a-0', undefined],
      [WARN, 'b-0', 5],
    ]);
    const released = sim.lines.filter((l) => l.msg === 'batch released before its lock ran out');
    expect(released.map((l) => [l.level, l.reason, l.repeatsLeftOut])).toEqual([
      [INFO, 'put-timeout', undefined],
      [INFO, 'put-timeout', 5],
    ]);
  });

  it('holds back lines of one cause only: an early release for another reason is still said', () => {
    const sim = new ShareSim({
      lockMs: 10_000,
      renewAvailable: false,
      renewLatencyMs: 10,
      ackLatencyMs: 5,
      supervisor: { putTimeoutMs: 7_000 },
    });
    // timed out at 7 s, before the release at 80 % of a lock that cannot be renewed
    sim.plan(slow('timeout-1', 0));
    sim.plan(slow('timeout-2', 10));
    // put from 5 s: released at 8 s (80 % of the lock), before its put times out
    sim.plan({ ...slow('no-renew', 20), queueMs: 5_000 });
    sim.run();
    const released = sim.lines.filter((l) => l.msg === 'batch released before its lock ran out');
    expect(released.map((l) => [l.batchId, l.reason])).toEqual([
      ['timeout-1', 'put-timeout'],
      ['no-renew', 'renew-unavailable'],
    ]);
    expect(sim.supervisor.counters).toMatchObject({ putTimeouts: 2, batchesReleasedEarly: 3 });
  });
});
