/**
 * An in-process stand-in for the worker group (tests of the herder without a broker): the first member
 * leads, tasks are dealt round-robin, what moves is revoked before it is assigned elsewhere.
 */
import type { DistributedConfig } from '../../../src/config/distributed-def.js';
import type {
  ClusterView,
  TaskId,
  WorkerAssignment,
  WorkerGroupHooks,
  WorkerGroupMember,
} from '../../../src/distributed/group-types.js';

export class FakeGroup {
  readonly members: FakeMember[] = [];
  generation = 0;
  #round: Promise<void> = Promise.resolve();

  join(m: FakeMember): Promise<void> {
    this.members.push(m);
    return this.rebalance();
  }

  leave(m: FakeMember): Promise<void> {
    this.members.splice(this.members.indexOf(m), 1);
    return this.rebalance();
  }

  rebalance(): Promise<void> {
    this.#round = this.#round.then(() => this.#rebalance());
    return this.#round;
  }

  async #rebalance(): Promise<void> {
    if (this.members.length === 0) return;
    this.generation++;
    for (const m of this.members) m.state = 'joining';
    const leader = this.members[0]!;
    const minOffset = this.members.reduce((o, m) => {
      const offset = m.hooks.metadata().configOffset;
      return offset > o ? offset : o;
    }, 0n);
    const snapshot = await leader.hooks.configSnapshot(minOffset);
    const all: TaskId[] = snapshot.connectors.flatMap((c) =>
      Array.from({ length: c.tasks }, (_, task) => ({ connector: c.name, task })),
    );
    const plan = new Map<FakeMember, { tasks: TaskId[]; connectors: string[] }>(
      this.members.map((m) => [m, { tasks: [], connectors: [] }]),
    );
    all.forEach((t, i) => plan.get(this.members[i % this.members.length]!)!.tasks.push(t));
    snapshot.connectors.forEach((c, i) =>
      plan.get(this.members[i % this.members.length]!)!.connectors.push(c.name),
    );
    const key = (t: TaskId) => `${t.connector}/${t.task}`;
    // eager enough for tests: what a member loses is stopped before anyone gets it
    await Promise.all(
      this.members.map((m) => {
        const mine = new Set(plan.get(m)!.tasks.map(key));
        const revokedTasks = m.tasks.filter((t) => !mine.has(key(t)));
        const revokedConnectors = m.connectors.filter((c) => !plan.get(m)!.connectors.includes(c));
        return revokedTasks.length + revokedConnectors.length > 0
          ? m.hooks.revoke(revokedConnectors, revokedTasks)
          : Promise.resolve();
      }),
    );
    for (const m of this.members) {
      const p = plan.get(m)!;
      m.tasks = p.tasks;
      m.connectors = p.connectors;
      const assignment: WorkerAssignment = {
        leaderId: leader.memberId,
        leaderUrl: leader.hooks.metadata().restUrl,
        configOffset: snapshot.offset,
        connectors: p.connectors,
        tasks: p.tasks,
        revokedConnectors: [],
        revokedTasks: [],
        delayMs: 0,
      };
      m.state = 'stable';
      m.assignment = assignment;
      m.hooks.assigned(assignment, m.view());
    }
  }
}

export class FakeMember implements WorkerGroupMember {
  state: ClusterView['state'] = 'joining';
  tasks: TaskId[] = [];
  connectors: string[] = [];
  assignment: WorkerAssignment | undefined;
  readonly rejoins: string[] = [];

  constructor(
    readonly group: FakeGroup,
    readonly hooks: WorkerGroupHooks,
    readonly memberId: string,
  ) {}

  start(): Promise<void> {
    return this.group.join(this);
  }

  requestRejoin(reason: string): void {
    this.rejoins.push(reason);
    void this.group.rebalance();
  }

  view(): ClusterView {
    const leader = this.group.members[0];
    return {
      groupId: 'fake',
      memberId: this.memberId,
      generation: this.group.generation,
      leaderId: leader?.memberId ?? '',
      isLeader: leader === this,
      members: this.group.members.map((m) => ({ memberId: m.memberId, ...m.hooks.metadata() })),
      assignment: this.assignment,
      state: this.state,
    };
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.group.leave(this);
  }
}

/** A distributed worker's settings for in-process tests: one partition, no delays. */
export function testDistributedConfig(overrides: Partial<DistributedConfig> = {}): DistributedConfig {
  return {
    groupId: 'g',
    configTopic: 'c',
    statusTopic: 's',
    offsetTopic: undefined,
    configReplicationFactor: 1,
    statusReplicationFactor: 1,
    statusPartitions: 1,
    advertisedHost: undefined,
    advertisedPort: undefined,
    advertisedScheme: undefined,
    protocol: 'sessioned',
    scheduledRebalanceMaxDelayMs: 0,
    workerSyncTimeoutMs: 1000,
    sessionTimeoutMs: 10000,
    heartbeatIntervalMs: 3000,
    rebalanceTimeoutMs: 10000,
    ...overrides,
  };
}
