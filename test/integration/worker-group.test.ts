// The worker group member on the real broker: several members in one process join one group (a unique id),
// the leader's assignor spreads a connector's tasks, and the group reacts to a member that leaves, a member
// that joins, and a member that stops heartbeating. Short timeouts (the test broker's
// group.min.session.timeout.ms is 3000) and a 2 s scheduled.rebalance.max.delay.ms.
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createWorkerGroupMember } from '../../src/distributed/group/index.js';
import type {
  ClusterConfigSnapshot,
  TaskId,
  WorkerAssignment,
  WorkerGroupMember,
} from '../../src/distributed/group-types.js';
import { createTopic, kafkaClient, testBrokers, uniqueName } from './harness/kafka.js';
import { until } from './harness/wait.js';

const DELAY_MS = 2_000;
const SESSION_MS = 3_000;
const key = (t: TaskId): string => `${t.connector}-${t.task}`;

let snapshot: ClusterConfigSnapshot = {
  offset: 5n,
  connectors: [{ name: 'orders', tasks: 6 }],
};

/** One worker as the herder would drive it: the set of tasks it runs, and every hook call in order. */
class Worker {
  readonly running = new Set<string>();
  readonly revoked: string[][] = [];
  readonly assignments: WorkerAssignment[] = [];
  readonly member: WorkerGroupMember;
  hung = false;

  constructor(
    readonly name: string,
    groupId: string,
    delayMs = DELAY_MS,
  ) {
    this.member = createWorkerGroupMember(
      {
        groupId,
        sessionTimeoutMs: SESSION_MS,
        rebalanceTimeoutMs: 10_000,
        heartbeatIntervalMs: 500,
        scheduledRebalanceMaxDelayMs: delayMs,
        kafka: { brokers: testBrokers().split(','), clientId: name },
        logger: pino({ level: process.env.SHARESINK_TEST_LOG ?? 'silent' }),
        suspendHeartbeats: () => this.hung,
      },
      {
        metadata: () => ({ workerId: `${name}:8083`, restUrl: `http://${name}:8083`, configOffset: 5n }),
        configSnapshot: (minOffset) => {
          expect(minOffset).toBe(5n); // the highest offset any member reported
          return Promise.resolve(snapshot);
        },
        revoke: (_connectors, tasks) => {
          for (const t of tasks) {
            // never asked to stop what it does not run
            expect(this.running.has(key(t))).toBe(true);
            this.running.delete(key(t));
          }
          this.revoked.push(tasks.map(key));
          return Promise.resolve();
        },
        assigned: (assignment) => {
          for (const t of assignment.revokedTasks) expect(this.running.has(key(t))).toBe(false);
          for (const t of assignment.tasks) this.running.add(key(t));
          // the assignment is the whole of what this worker runs
          expect([...this.running].sort()).toEqual(assignment.tasks.map(key).sort());
          this.assignments.push(assignment);
        },
      },
    );
  }
}

function allRunning(workers: readonly Worker[]): string[] {
  return workers.flatMap((w) => [...w.running]).sort();
}

const expected = (n: number): string[] => Array.from({ length: n }, (_, i) => `orders-${i}`).sort();

/** Stable: every live worker in the same generation, `state` stable, nothing pending. */
function settled(workers: readonly Worker[]): boolean {
  const views = workers.map((w) => w.member.view());
  return (
    views.every((v) => v.state === 'stable' && v.generation === views[0]!.generation) &&
    views.every((v) => v.members.length === workers.length) &&
    views.every((v) => v.assignment !== undefined && v.assignment.revokedTasks.length === 0)
  );
}

describe('worker group membership on the broker', () => {
  const groupId = uniqueName('workers');
  const workers = [new Worker('a', groupId), new Worker('b', groupId), new Worker('c', groupId)];
  const all: Worker[] = [...workers];
  afterAll(async () => {
    await Promise.all(all.map((w) => w.member.stop()));
  });

  it('three members join; a connector of 6 tasks runs 2 on each', async () => {
    await Promise.all(workers.map((w) => w.member.start()));
    await until('a settled group', () => settled(workers), Boolean, 30_000);
    expect(allRunning(workers)).toEqual(expected(6));
    for (const w of workers) expect(w.running.size).toBe(2);
    const views = workers.map((w) => w.member.view());
    expect(views.filter((v) => v.isLeader)).toHaveLength(1);
    expect(new Set(views.map((v) => v.leaderId)).size).toBe(1);
    expect(views[0]!.members.map((m) => m.workerId).sort()).toEqual(['a:8083', 'b:8083', 'c:8083']);
    // exactly one member runs the connector instance itself
    expect(views.flatMap((v) => v.assignment!.connectors)).toEqual(['orders']);
    expect(views[0]!.assignment!.leaderUrl).toMatch(/^http:\/\/[abc]:8083$/);

    // the broker sees a classic group with sharesink's protocol type and assignment strategy
    const admin = kafkaClient().admin();
    await admin.connect();
    try {
      const { groups } = await admin.describeGroups([groupId]);
      expect(groups[0]).toMatchObject({
        protocolType: 'sharesink',
        protocol: 'sharesink-cooperative-v1',
        state: 'Stable',
      });
      expect(groups[0]!.members).toHaveLength(3);
    } finally {
      await admin.disconnect();
    }
  });

  it('a member that leaves: its tasks wait for scheduled.rebalance.max.delay.ms, then the others run them', async () => {
    // a member that is not the leader leaves: the leader remembers where work ran, a new leader does not
    // (ADR 0010), and which member the broker made leader depends on who joined first
    const c = [...workers].reverse().find((w) => !w.member.view().isLeader)!;
    workers.splice(workers.indexOf(c), 1);
    const [a, b] = workers as [Worker, Worker];
    const before = { a: new Set(a.running), b: new Set(b.running) };
    const gone = [...c.running].sort();
    const seenBefore = a.assignments.length;
    await c.member.stop();
    expect(c.running.size).toBe(0); // stop() revokes everything before LeaveGroup
    await until(
      'the remaining two to run all six tasks',
      () => allRunning(workers),
      (r) => r.length === 6,
      30_000,
    );
    expect(allRunning(workers)).toEqual(expected(6));
    expect(a.running.size).toBe(3);
    expect(b.running.size).toBe(3);
    // the first round without c held its tasks (delay announced, nothing of c's handed out, nothing moved)
    const firstWithoutC = a.assignments.slice(seenBefore).find((x) => x.delayMs > 0);
    expect(firstWithoutC).toBeDefined();
    expect(firstWithoutC!.delayMs).toBeLessThanOrEqual(DELAY_MS);
    expect(firstWithoutC!.tasks.map(key).sort()).toEqual([...before.a].sort());
    // a and b kept what they had, and only c's tasks were added
    for (const t of before.a) expect(a.running.has(t)).toBe(true);
    for (const t of before.b) expect(b.running.has(t)).toBe(true);
    expect([...a.running, ...b.running].filter((t) => !before.a.has(t) && !before.b.has(t)).sort()).toEqual(
      gone,
    );
  });

  it('a new member takes a share; only the tasks that move are stopped', async () => {
    const d = new Worker('d', groupId);
    all.push(d);
    const revokedBefore = workers.map((w) => w.revoked.length);
    workers.push(d);
    await d.member.start();
    await until('a settled group with d', () => settled(workers) && d.running.size === 2, Boolean, 30_000);
    expect(allRunning(workers)).toEqual(expected(6));
    for (const w of workers) expect(w.running.size).toBe(2);
    const stopped = workers.slice(0, 2).flatMap((w, i) => w.revoked.slice(revokedBefore[i]).flat());
    expect(stopped.sort()).toEqual([...d.running].sort()); // exactly what d took, nothing else
  });

  it('config change: more tasks are placed without stopping any; fewer are stopped where they run', async () => {
    const revokedBefore = workers.map((w) => w.revoked.length);
    // the leader asks: a follower whose metadata is unchanged (these fakes keep config offset 5) rejoins a
    // stable group without a rebalance, as the coordinator does for any classic member; the herder's own
    // rejoins follow a config record, so its metadata has moved
    const leader = workers.find((w) => w.member.view().isLeader)!;
    snapshot = { offset: 5n, connectors: [{ name: 'orders', tasks: 9 }] };
    leader.member.requestRejoin('tasks.max 6 → 9');
    await until(
      '9 tasks, 3 each',
      () => settled(workers) && allRunning(workers).length === 9,
      Boolean,
      30_000,
    );
    for (const w of workers) expect(w.running.size).toBe(3);
    expect(workers.map((w, i) => w.revoked.length - revokedBefore[i]!)).toEqual([0, 0, 0]);

    snapshot = { offset: 5n, connectors: [{ name: 'orders', tasks: 3 }] };
    leader.member.requestRejoin('tasks.max 9 → 3');
    await until(
      '3 tasks, 1 each',
      () => settled(workers) && allRunning(workers).length === 3,
      Boolean,
      30_000,
    );
    expect(allRunning(workers)).toEqual(expected(3));
    for (const w of workers) expect(w.running.size).toBe(1);
    snapshot = { offset: 5n, connectors: [{ name: 'orders', tasks: 6 }] };
    leader.member.requestRejoin('tasks.max 3 → 6');
    await until('6 tasks again', () => settled(workers) && allRunning(workers).length === 6, Boolean, 30_000);
  });

  it('a member that stops heartbeating is expelled after the session timeout; the others take its tasks', async () => {
    const [a, b, d] = workers as [Worker, Worker, Worker];
    const hungId = d.member.view().memberId;
    const dTasks = [...d.running].sort();
    const dRevokes = d.revoked.length;
    d.hung = true;
    await until(
      'a and b in a generation without d, running all six',
      () => ({ members: a.member.view().members.map((m) => m.memberId), running: allRunning([a, b]) }),
      (x) => !x.members.includes(hungId) && x.running.length === 6,
      30_000,
    );
    expect(allRunning([a, b])).toEqual(expected(6));
    // d heartbeats again: the coordinator says it is unknown, so it stops everything and joins afresh
    d.hung = false;
    await until('d back with a share', () => settled(workers) && d.running.size === 2, Boolean, 30_000);
    expect(d.member.view().memberId).not.toBe(hungId);
    // it gave up exactly its old tasks when it learnt it was gone, and nothing else since
    expect(d.revoked.slice(dRevokes).map((x) => [...x].sort())).toEqual([dTasks]);
    expect(allRunning(workers)).toEqual(expected(6));
  });
});

describe('a worker restarted within scheduled.rebalance.max.delay.ms', () => {
  it('gets its own tasks back (same worker id), and nothing else moves', async () => {
    const groupId = uniqueName('restart');
    const a = new Worker('a', groupId, 60_000);
    const b = new Worker('b', groupId, 60_000);
    const again = new Worker('b', groupId, 60_000); // the same worker id, a new process
    try {
      // a joins first, so the broker makes it the leader: a leader that stays remembers where b's work ran
      await a.member.start();
      await b.member.start();
      await until('a settled pair', () => settled([a, b]), Boolean, 30_000);
      expect(a.member.view().isLeader).toBe(true);
      const aRevokedBefore = a.revoked.length; // a gave b its share when b joined
      const bTasks = [...b.running].sort();
      const aTasks = [...a.running].sort();
      await b.member.stop();
      await until("a alone, holding b's work", () => a.assignments.at(-1)!.delayMs > 0, Boolean, 30_000);
      expect([...a.running].sort()).toEqual(aTasks);
      await again.member.start();
      await until('b back', () => settled([a, again]) && again.running.size > 0, Boolean, 30_000);
      expect([...again.running].sort()).toEqual(bTasks);
      expect([...a.running].sort()).toEqual(aTasks);
      expect(a.revoked.slice(aRevokedBefore)).toEqual([]);
    } finally {
      await Promise.all([a.member.stop(), again.member.stop()]);
    }
  });
});

describe('a group id taken by a consumer group', () => {
  it('refuses to start, naming group.id', async () => {
    const groupId = uniqueName('taken');
    const topic = uniqueName('taken');
    await createTopic(topic, { partitions: 1 });
    const kafka = kafkaClient();
    const consumer = kafka.consumer({ groupId, sessionTimeout: 6_000 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
    await consumer.run({ eachMessage: async () => undefined });
    await joined;
    let fatal: Error | undefined;
    const member = createWorkerGroupMember(
      {
        groupId,
        sessionTimeoutMs: SESSION_MS,
        rebalanceTimeoutMs: 10_000,
        heartbeatIntervalMs: 500,
        scheduledRebalanceMaxDelayMs: 0,
        kafka: { brokers: testBrokers().split(',') },
        onFatal: (e) => (fatal = e),
      },
      {
        metadata: () => ({ workerId: 'x:1', restUrl: 'http://x:1', configOffset: 0n }),
        configSnapshot: () => Promise.resolve({ offset: 0n, connectors: [] }),
        revoke: () => Promise.resolve(),
        assigned: () => undefined,
      },
    );
    try {
      await expect(member.start()).rejects.toThrow(
        /INCONSISTENT_GROUP_PROTOCOL.*give the sharesink workers a group\.id of their own/s,
      );
      expect(fatal?.message).toMatch(/group\.id/);
      expect(member.view().state).toBe('stopped');
    } finally {
      await member.stop();
      await consumer.disconnect();
    }
  });
});
