/**
 * The incremental cooperative assignor over any cluster: members run what their plan says, rounds repeat
 * until nothing is revoked. Every task runs exactly once when stable, per-connector and total balance
 * within one, only what must move moves, and any start converges within two rounds.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  assign,
  taskKey,
  type AssignorMember,
  type AssignorState,
} from '../../src/distributed/group/assignor.js';
import type { ClusterConfigSnapshot, TaskId } from '../../src/distributed/group-types.js';

interface Sim {
  members: AssignorMember[];
  state: AssignorState | undefined;
}

const snapshotArb = fc
  .uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { minLength: 0, maxLength: 5 })
  .chain((names) =>
    fc.tuple(...names.map(() => fc.integer({ min: 0, max: 9 }))).map((counts): ClusterConfigSnapshot => ({
      offset: 0n,
      connectors: names.map((name, i) => ({ name, tasks: counts[i]! })),
    })),
  );

const member = (i: number, connectors: string[] = [], tasks: TaskId[] = []): AssignorMember => ({
  memberId: `m${i}`,
  workerId: `w${i}:8083`,
  connectors,
  tasks,
});

/** One round: every member stops what is revoked and runs its plan. Returns what moved. */
function round(sim: Sim, snapshot: ClusterConfigSnapshot, now = 0, maxDelayMs = 0) {
  const res = assign({ members: sim.members, snapshot, previous: sim.state, now, maxDelayMs });
  let revoked = 0;
  const lostByMember = new Map<string, TaskId[]>();
  sim.members = sim.members.map((m) => {
    const plan = res.plans.get(m.memberId)!;
    revoked += plan.revokedTasks.length + plan.revokedConnectors.length;
    lostByMember.set(m.memberId, plan.revokedTasks);
    // a plan never hands out work the member is told to stop, and keeps all it does not revoke
    const revokedKeys = new Set(plan.revokedTasks.map(taskKey));
    for (const t of plan.tasks) expect(revokedKeys.has(taskKey(t))).toBe(false);
    return { ...m, connectors: plan.connectors, tasks: plan.tasks };
  });
  sim.state = res.state;
  // nothing ever runs on two members at once, whatever the members claimed before the round
  const running = sim.members.flatMap((m) => [...m.tasks.map(taskKey), ...m.connectors.map((c) => `c:${c}`)]);
  expect(new Set(running).size).toBe(running.length);
  return { revoked, lostByMember, res };
}

function desiredTasks(s: ClusterConfigSnapshot): string[] {
  return s.connectors.flatMap((c) =>
    Array.from({ length: c.tasks }, (_, t) => taskKey({ connector: c.name, task: t })),
  );
}

function expectStable(sim: Sim, snapshot: ClusterConfigSnapshot): void {
  const running = sim.members.flatMap((m) => m.tasks.map(taskKey));
  expect(running.sort()).toEqual(desiredTasks(snapshot).sort());
  const connectors = sim.members.flatMap((m) => m.connectors);
  expect(connectors.sort()).toEqual(snapshot.connectors.map((c) => c.name).sort());
  const spread = (xs: number[]): number => Math.max(...xs) - Math.min(...xs);
  expect(spread(sim.members.map((m) => m.tasks.length))).toBeLessThanOrEqual(1);
  expect(spread(sim.members.map((m) => m.connectors.length))).toBeLessThanOrEqual(1);
  for (const c of snapshot.connectors) {
    expect(
      spread(sim.members.map((m) => m.tasks.filter((t) => t.connector === c.name).length)),
    ).toBeLessThanOrEqual(1);
  }
  // and one more round changes nothing
  const again = assign({ members: sim.members, snapshot, previous: sim.state, now: 0, maxDelayMs: 0 });
  for (const m of sim.members) {
    const plan = again.plans.get(m.memberId)!;
    expect(plan.revokedTasks).toEqual([]);
    expect(plan.revokedConnectors).toEqual([]);
    expect(plan.tasks.map(taskKey).sort()).toEqual(m.tasks.map(taskKey).sort());
  }
}

function converge(sim: Sim, snapshot: ClusterConfigSnapshot, maxRounds: number): number {
  for (let n = 1; n <= maxRounds; n++) {
    const { revoked } = round(sim, snapshot);
    if (revoked === 0) return n;
  }
  return maxRounds + 1;
}

/** Any members, each claiming any tasks (duplicates, deleted connectors, tasks beyond the count). */
const claimsArb = fc.array(
  fc.array(fc.record({ connector: fc.constantFrom('a', 'b', 'c', 'g'), task: fc.nat(10) }), {
    maxLength: 12,
  }),
  { minLength: 1, maxLength: 5 },
);

describe('incremental cooperative assignor', () => {
  test.prop([snapshotArb, claimsArb])(
    'any start converges in at most two rounds, to a balanced whole',
    (snapshot, claims) => {
      const sim: Sim = {
        members: claims.map((tasks, i) => member(i, ['a', 'x'].slice(0, i % 3), tasks)),
        state: undefined,
      };
      // round 1 revokes and hands out unowned work; round 2 hands out what round 1 revoked; then it is stable
      round(sim, snapshot);
      round(sim, snapshot);
      expectStable(sim, snapshot);
    },
  );

  test.prop([snapshotArb, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 3 })])(
    'a new member takes a share; only the moved tasks stop, each from a member above its final count',
    (snapshot, n, joining) => {
      const sim: Sim = { members: Array.from({ length: n }, (_, i) => member(i)), state: undefined };
      converge(sim, snapshot, 3);
      expectStable(sim, snapshot);
      const before = new Map(sim.members.map((m) => [m.memberId, m.tasks.map(taskKey)]));
      for (let j = 0; j < joining; j++) sim.members.push(member(n + j));
      const first = round(sim, snapshot);
      const second = round(sim, snapshot);
      expect(second.revoked).toBe(0);
      expectStable(sim, snapshot);
      for (const [id, had] of before) {
        const now = new Set(sim.members.find((m) => m.memberId === id)!.tasks.map(taskKey));
        // nothing is gained back that was given away; a member only loses what it no longer runs
        expect(first.lostByMember.get(id)!.every((t) => !now.has(taskKey(t)))).toBe(true);
        for (const c of snapshot.connectors) {
          const had_c = had.filter((k) =>
            k.startsWith(taskKey({ connector: c.name, task: 0 }).slice(0, -1)),
          ).length;
          const now_c = [...now].filter((k) =>
            k.startsWith(taskKey({ connector: c.name, task: 0 }).slice(0, -1)),
          ).length;
          const lost_c = first.lostByMember.get(id)!.filter((t) => t.connector === c.name).length;
          expect(lost_c).toBe(Math.max(0, had_c - now_c));
        }
      }
    },
  );

  test.prop([snapshotArb, fc.integer({ min: 2, max: 5 }), fc.nat(), fc.integer({ min: 1, max: 60_000 })])(
    "a departed member's work waits for the delay, nothing else moves, then it is re-placed",
    (snapshot, n, pick, delay) => {
      const sim: Sim = { members: Array.from({ length: n }, (_, i) => member(i)), state: undefined };
      converge(sim, snapshot, 3);
      const gone = sim.members.splice(pick % n, 1)[0]!;
      const orphaned = gone.tasks.length + gone.connectors.length;
      const before = new Map(sim.members.map((m) => [m.memberId, m.tasks.map(taskKey).sort()]));
      const t0 = 1_000_000;
      const held = round(sim, snapshot, t0, delay);
      expect(held.res.held).toBe(orphaned);
      expect(held.revoked).toBe(0);
      for (const m of sim.members) {
        expect(m.tasks.map(taskKey).sort()).toEqual(before.get(m.memberId));
        expect(held.res.plans.get(m.memberId)!.delayMs).toBe(orphaned > 0 ? delay : 0);
      }
      // a rejoin half way through still holds it, with the time left
      const mid = round(sim, snapshot, t0 + Math.floor(delay / 2), delay);
      expect(mid.res.held).toBe(orphaned);
      if (orphaned > 0)
        expect(mid.res.plans.get(sim.members[0]!.memberId)!.delayMs).toBe(delay - Math.floor(delay / 2));
      // at the deadline it is placed; stable within the next round
      const late = round(sim, snapshot, t0 + delay, delay);
      expect(late.res.held).toBe(0);
      round(sim, snapshot, t0 + delay, delay);
      expectStable(sim, snapshot);
    },
  );

  test.prop([snapshotArb, fc.integer({ min: 2, max: 4 }), fc.nat()])(
    'a departed worker that comes back (same worker id) within the delay gets its work back',
    (snapshot, n, pick) => {
      const sim: Sim = { members: Array.from({ length: n }, (_, i) => member(i)), state: undefined };
      converge(sim, snapshot, 3);
      const gone = sim.members.splice(pick % n, 1)[0]!;
      round(sim, snapshot, 0, 10_000);
      sim.members.push({ ...gone, memberId: `${gone.memberId}-restarted`, connectors: [], tasks: [] });
      round(sim, snapshot, 5_000, 10_000);
      const back = sim.members.find((m) => m.workerId === gone.workerId)!;
      expect(back.tasks.map(taskKey).sort()).toEqual(gone.tasks.map(taskKey).sort());
      expectStable(sim, snapshot);
    },
  );

  test.prop([snapshotArb, snapshotArb, fc.integer({ min: 1, max: 4 })])(
    'a config change (connectors added, deleted, task counts changed) converges in two rounds',
    (first, second, n) => {
      const sim: Sim = { members: Array.from({ length: n }, (_, i) => member(i)), state: undefined };
      converge(sim, first, 3);
      round(sim, second);
      round(sim, second);
      expectStable(sim, second);
    },
  );
});
