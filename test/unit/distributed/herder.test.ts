import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConnectState } from '../../../src/actors/connector-runtime.js';
import { compileWorkerConfig } from '../../../src/config/compile-worker.js';
import type { ConnectorConfig } from '../../../src/config/types.js';
import { keyOf, valueOf, type ConfigRecord } from '../../../src/distributed/herder/config-records.js';
import { DistributedHerder } from '../../../src/distributed/herder/herder.js';
import { LeaderWrites } from '../../../src/distributed/herder/leader-writes.js';
import type { LocalRuntime } from '../../../src/distributed/herder/local-connectors.js';
import { StatusStore } from '../../../src/distributed/herder/status-store.js';
import { MemoryTopicLog } from '../../../src/distributed/herder/topic-log.js';
import { FakeGroup, FakeMember, testDistributedConfig } from './fake-group.js';

const logger = pino({ level: 'silent' });
const distributed = testDistributedConfig();

class FakeRuntime implements LocalRuntime {
  state: ConnectState = 'UNASSIGNED';
  readonly error = undefined;
  constructor(
    readonly config: ConnectorConfig,
    public ids: readonly number[],
  ) {}
  /** start and pause, in order: a paused connector's tasks must come up paused, not be paused later. */
  readonly calls: string[] = [];
  start() {
    this.calls.push('start');
    this.state = this.calls.includes('pause') ? 'PAUSED' : 'RUNNING';
    return Promise.resolve();
  }
  stop() {
    this.state = 'STOPPED';
    return Promise.resolve();
  }
  pause() {
    this.calls.push('pause');
    this.state = 'PAUSED';
    return Promise.resolve();
  }
  resume() {
    this.state = 'RUNNING';
    return Promise.resolve();
  }
  readonly restarts: string[] = [];
  restart(o: { includeTasks?: boolean; onlyFailed?: boolean }) {
    this.restarts.push(`connector includeTasks=${o.includeTasks} onlyFailed=${o.onlyFailed}`);
    return { connector: true, tasks: [...this.ids] };
  }
  restartTask(id: number) {
    this.restarts.push(`task ${id}`);
    return Promise.resolve();
  }
  taskStates() {
    return this.ids.map((id) => ({ id, state: this.state, trace: undefined }));
  }
  setTaskIds(ids: readonly number[]) {
    this.ids = ids;
    this.moves++;
    return Promise.resolve(true);
  }
  moves = 0;
}

interface Node {
  herder: DistributedHerder;
  writes: LeaderWrites;
  member: FakeMember;
}

function cluster(env: NodeJS.ProcessEnv = {}) {
  const configLog = new MemoryTopicLog();
  const statusLog = new MemoryTopicLog();
  const group = new FakeGroup();
  const worker = compileWorkerConfig({
    'bootstrap.servers': '127.0.0.1:9092',
    'config.providers': 'env',
    ...env,
  });
  const nodes: Node[] = [];
  const add = async (id: string): Promise<Node> => {
    const herder = new DistributedHerder({
      worker,
      distributed,
      configLog: configLog.reader(),
      status: new StatusStore(statusLog.reader(), logger),
      workerId: id,
      restUrl: `http://${id}`,
      logger,
      runtimes: (config, ids) => new FakeRuntime(config, ids),
      statusIntervalMs: 60_000,
    });
    const member = new FakeMember(group, herder, id);
    herder.attach(member);
    const writes = new LeaderWrites(
      herder,
      (c) => Promise.resolve(Array.from({ length: c.tasksMax }, () => ({ ...c.raw }))),
      logger,
    );
    await herder.start();
    const node = { herder, writes, member };
    nodes.push(node);
    return node;
  };
  return { configLog, statusLog, group, nodes, add };
}

/** Lets the void-ed reconciles and rebalances run. */
async function settle(c: ReturnType<typeof cluster>): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await c.group.rebalance();
    await Promise.all(c.nodes.map((n) => n.herder.reconcile()));
    await Promise.all(c.nodes.map((n) => n.herder.publishStatus()));
  }
}

const leaderOf = (c: ReturnType<typeof cluster>) => c.nodes.find((n) => n.herder.isLeader)!;
const localTasks = (n: Node, name: string) => [...(n.herder.local.tasks.get(name) ?? [])];
const sink = (tasksMax: number, extra: Record<string, string> = {}) => ({
  name: 'pg',
  'connector.class': 'NoopSink',
  topics: 't',
  'tasks.max': String(tasksMax),
  ...extra,
});

describe('distributed herder (in-process group)', () => {
  let stop: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const s of stop) await s();
    stop = [];
  });

  it('spreads tasks.max=6 over three workers, 2 each, and every worker sees all 6 states', async () => {
    const c = cluster();
    for (const id of ['a:1', 'b:2', 'c:3']) await c.add(id);
    stop.push(...c.nodes.map((n) => () => n.herder.stop()));
    const { created } = await leaderOf(c).writes.putConnector('pg', sink(6), true);
    expect(created).toBe(true);
    await settle(c);
    expect(c.nodes.map((n) => localTasks(n, 'pg').length)).toEqual([2, 2, 2]);
    const all = c.nodes.flatMap((n) => localTasks(n, 'pg')).sort();
    expect(all).toEqual([0, 1, 2, 3, 4, 5]);
    for (const n of c.nodes) {
      const states = n.herder.statusStore.tasks('pg');
      expect(states.size).toBe(6);
      expect(new Set([...states.values()].map((s) => s.workerId))).toEqual(new Set(['a:1', 'b:2', 'c:3']));
    }
  });

  it('initial_state (KIP-980): created STOPPED it has no tasks anywhere; created PAUSED its tasks come up paused', async () => {
    const c = cluster();
    for (const id of ['a:1', 'b:2']) await c.add(id);
    stop.push(...c.nodes.map((n) => () => n.herder.stop()));
    await settle(c);
    await leaderOf(c).writes.putConnector('stopped', sink(4, { name: 'stopped' }), true, 'STOPPED');
    await settle(c);
    await leaderOf(c).writes.putConnector('paused', sink(4, { name: 'paused' }), true, 'PAUSED');
    await settle(c);
    for (const n of c.nodes) {
      expect(n.herder.state.connector('stopped')).toMatchObject({ targetState: 'STOPPED', tasks: [] });
      expect(localTasks(n, 'stopped')).toEqual([]);
      expect(n.herder.state.connector('paused')?.targetState).toBe('PAUSED');
    }
    expect(c.nodes.flatMap((n) => localTasks(n, 'paused')).sort()).toEqual([0, 1, 2, 3]);
    const paused = c.nodes.flatMap((n) => n.herder.local.runtimes).filter((r) => r.config.name === 'paused');
    expect(paused.length).toBeGreaterThan(0);
    for (const r of paused) expect((r as FakeRuntime).calls[0]).toBe('pause');
    // a resume of the STOPPED one computes its tasks
    await leaderOf(c).writes.setTargetState('stopped', 'STARTED');
    await settle(c);
    expect(c.nodes.flatMap((n) => localTasks(n, 'stopped')).sort()).toEqual([0, 1, 2, 3]);
  });

  it('a second create of the same name is a 409; an update to tasks.max=3 converges; a delete stops everything', async () => {
    const c = cluster();
    for (const id of ['a:1', 'b:2', 'c:3']) await c.add(id);
    stop.push(...c.nodes.map((n) => () => n.herder.stop()));
    await leaderOf(c).writes.putConnector('pg', sink(6), true);
    await settle(c);
    await expect(leaderOf(c).writes.putConnector('pg', sink(2), true)).rejects.toMatchObject({
      kind: 'conflict',
    });
    await settle(c);
    const { created } = await leaderOf(c).writes.putConnector('pg', sink(3), false);
    expect(created).toBe(false);
    await settle(c);
    expect(c.nodes.map((n) => localTasks(n, 'pg').length)).toEqual([1, 1, 1]);
    for (const n of c.nodes) expect(n.herder.state.connector('pg')?.tasks.length).toBe(3);
    await leaderOf(c).writes.deleteConnector('pg');
    await settle(c);
    for (const n of c.nodes) {
      expect(n.herder.state.connector('pg')).toBeUndefined();
      expect(n.herder.local.runtimes).toEqual([]);
      expect(n.herder.statusStore.tasks('pg').size).toBe(0);
    }
  });

  it('a worker that starts late converges from the topics; a non-leader refuses to write (409)', async () => {
    const c = cluster();
    await c.add('a:1');
    stop.push(() => c.nodes[0]!.herder.stop());
    await leaderOf(c).writes.putConnector('pg', sink(4), true);
    await settle(c);
    await leaderOf(c).writes.setTargetState('pg', 'PAUSED');
    await settle(c);
    const late = await c.add('b:2');
    stop.push(() => late.herder.stop());
    await settle(c);
    expect(late.herder.state.connector('pg')?.targetState).toBe('PAUSED');
    expect(localTasks(late, 'pg')).toHaveLength(2);
    expect(late.herder.local.runtimes.every((r) => r.state === 'PAUSED')).toBe(true);
    // paused before they started: started first, its tasks could fetch and put before the pause
    for (const r of late.herder.local.runtimes) expect((r as FakeRuntime).calls[0]).toBe('pause');
    await expect(late.writes.setTargetState('pg', 'STARTED')).rejects.toMatchObject({
      kind: 'rebalance-in-progress',
    });
  });

  it('a worker that joins takes its share; the others move their tasks in place, no runtime restarted', async () => {
    const c = cluster();
    for (const id of ['a:1', 'b:2']) await c.add(id);
    stop.push(...c.nodes.map((n) => () => n.herder.stop()));
    await leaderOf(c).writes.putConnector('pg', sink(4), true);
    await settle(c);
    const before = c.nodes.map((n) => n.herder.local.runtime('pg') as FakeRuntime);
    const late = await c.add('c:3');
    stop.push(() => late.herder.stop());
    await settle(c);
    expect(c.nodes.map((n) => localTasks(n, 'pg').length).sort()).toEqual([1, 1, 2]);
    const after = c.nodes.slice(0, 2).map((n) => n.herder.local.runtime('pg') as FakeRuntime);
    after.forEach((r, i) => expect(r).toBe(before[i]));
    expect(after.map((r) => r.moves).reduce((a, b) => a + b)).toBeGreaterThan(0);
    expect(after.map((r) => [...r.ids])).toEqual(c.nodes.slice(0, 2).map((n) => localTasks(n, 'pg')));
  });

  it('a restart request reaches the workers that run the connector; a task restart only its owner', async () => {
    const c = cluster();
    for (const id of ['a:1', 'b:2']) await c.add(id);
    stop.push(...c.nodes.map((n) => () => n.herder.stop()));
    await leaderOf(c).writes.putConnector('pg', sink(2), true);
    await settle(c);
    await leaderOf(c).writes.requestRestart('pg', { includeTasks: true, onlyFailed: true });
    await leaderOf(c).writes.requestRestart('pg', { includeTasks: false, onlyFailed: false, task: 1 });
    await expect(
      leaderOf(c).writes.requestRestart('pg', { includeTasks: false, onlyFailed: false, task: 7 }),
    ).rejects.toMatchObject({ kind: 'not-found' });
    const restarts = c.nodes.map((n) => (n.herder.local.runtime('pg') as FakeRuntime).restarts);
    for (const r of restarts) expect(r[0]).toBe('connector includeTasks=true onlyFailed=true');
    const owner = c.nodes.findIndex((n) => localTasks(n, 'pg').includes(1));
    expect(restarts[owner]).toContain('task 1');
    expect(restarts[1 - owner]).not.toContain('task 1');
  });

  it('a restart of a STOPPED connector is not written, and one read after the stop restarts nothing', async () => {
    const c = cluster();
    for (const id of ['a:1', 'b:2']) await c.add(id);
    stop.push(...c.nodes.map((n) => () => n.herder.stop()));
    await leaderOf(c).writes.putConnector('pg', sink(2), true);
    await settle(c);
    const runtimes = c.nodes.map((n) => n.herder.local.runtime('pg') as FakeRuntime);
    // the stop and a restart request (an older version's, or one written before the stop) arrive before
    // any worker has stopped its runtime
    const write = (r: ConfigRecord) => c.configLog.write(keyOf(r), valueOf(r));
    await write({ kind: 'target-state', name: 'pg', state: 'STOPPED' });
    await write({ kind: 'restart', name: 'pg', request: { includeTasks: true, onlyFailed: false } });
    for (const r of runtimes) expect(r.restarts).toEqual([]);
    await settle(c);
    const from = c.configLog.records.length;
    expect(await leaderOf(c).writes.requestRestart('pg', { includeTasks: true, onlyFailed: false })).toBe(
      false,
    );
    expect(c.configLog.records.slice(from)).toEqual([]);
  });

  it('STOPPED runs no task anywhere and reports the connector STOPPED', async () => {
    const c = cluster();
    for (const id of ['a:1', 'b:2']) await c.add(id);
    stop.push(...c.nodes.map((n) => () => n.herder.stop()));
    await leaderOf(c).writes.putConnector('pg', sink(2), true);
    await settle(c);
    await leaderOf(c).writes.setTargetState('pg', 'STOPPED');
    await settle(c);
    for (const n of c.nodes) expect(n.herder.local.runtimes).toEqual([]);
    expect(c.nodes[1]!.herder.statusStore.connector('pg')?.state).toBe('STOPPED');
    // the stopped tasks' RUNNING is not left behind for a resume to show before they run again
    const tasks = () => [...c.nodes[0]!.herder.statusStore.tasks('pg').values()].map((t) => t.state);
    expect(tasks()).toEqual(['UNASSIGNED', 'UNASSIGNED']);
    await leaderOf(c).writes.setTargetState('pg', 'STARTED');
    await settle(c);
    expect(tasks()).toEqual(['RUNNING', 'RUNNING']);
  });

  it('a stop empties the task configs on every worker (a task restart is then a 404); a resume computes them again from the config as it is', async () => {
    const c = cluster();
    for (const id of ['a:1', 'b:2']) await c.add(id);
    stop.push(...c.nodes.map((n) => () => n.herder.stop()));
    await leaderOf(c).writes.putConnector('pg', sink(2), true);
    await settle(c);
    const from = c.configLog.records.length;
    await leaderOf(c).writes.setTargetState('pg', 'STOPPED');
    await settle(c);
    // Connect's stop: the STOPPED target state, the task configs removed, an empty commit
    expect(c.configLog.records.slice(from).map((r) => `${r.key}=${r.value}`)).toEqual([
      'target-state-pg={"v":1,"state":"STOPPED"}',
      'task-pg-0=null',
      'task-pg-1=null',
      'commit-pg={"v":1,"tasks":0}',
    ]);
    for (const n of c.nodes) expect(n.herder.state.connector('pg')?.tasks).toEqual([]);
    await expect(
      leaderOf(c).writes.requestRestart('pg', { includeTasks: false, onlyFailed: false, task: 0 }),
    ).rejects.toMatchObject({ kind: 'not-found' });
    // a config change while STOPPED leaves it without tasks; the resume uses it
    await leaderOf(c).writes.putConnector('pg', sink(3), false);
    await settle(c);
    for (const n of c.nodes) expect(n.herder.state.connector('pg')?.tasks).toEqual([]);
    await leaderOf(c).writes.setTargetState('pg', 'STARTED');
    await settle(c);
    for (const n of c.nodes) expect(n.herder.state.connector('pg')?.tasks).toHaveLength(3);
    expect(c.nodes.flatMap((n) => localTasks(n, 'pg')).sort()).toEqual([0, 1, 2]);
    const states = [...c.nodes[0]!.herder.statusStore.tasks('pg').values()].map((t) => t.state);
    expect(states).toEqual(['RUNNING', 'RUNNING', 'RUNNING']);
  });

  it('a pause of a STOPPED connector computes its tasks and starts them paused', async () => {
    const c = cluster();
    await c.add('a:1');
    stop.push(() => c.nodes[0]!.herder.stop());
    await leaderOf(c).writes.putConnector('pg', sink(2), true);
    await settle(c);
    await leaderOf(c).writes.setTargetState('pg', 'STOPPED');
    await settle(c);
    await leaderOf(c).writes.setTargetState('pg', 'PAUSED');
    await settle(c);
    const n = c.nodes[0]!;
    expect(n.herder.state.connector('pg')?.tasks).toHaveLength(2);
    expect(localTasks(n, 'pg')).toEqual([0, 1]);
    for (const r of n.herder.local.runtimes) expect((r as FakeRuntime).calls[0]).toBe('pause');
  });

  it("a STOPPED connector that still lists tasks (an older version's config topic) has them emptied by the leader", async () => {
    const c = cluster();
    const old: ConfigRecord[] = [
      { kind: 'connector', name: 'pg', config: sink(2) },
      { kind: 'task', name: 'pg', task: 0, config: sink(2) },
      { kind: 'task', name: 'pg', task: 1, config: sink(2) },
      { kind: 'commit', name: 'pg', tasks: 2 },
      { kind: 'target-state', name: 'pg', state: 'STOPPED' },
    ];
    for (const r of old) await c.configLog.write(keyOf(r), valueOf(r));
    await c.add('a:1');
    stop.push(() => c.nodes[0]!.herder.stop());
    await settle(c);
    expect(c.nodes[0]!.herder.state.connector('pg')?.tasks).toEqual([]);
    expect(c.nodes[0]!.herder.local.runtimes).toEqual([]);
  });

  it('is ready only once it has read the config topic to its end and joined the group', async () => {
    const configLog = new MemoryTopicLog();
    await configLog.write(
      keyOf({ kind: 'connector', name: 'pg', config: sink(1) }),
      valueOf({ kind: 'connector', name: 'pg', config: sink(1) }),
    );
    let read: () => void = () => undefined;
    const reading = new Promise<void>((r) => (read = r));
    const reader = configLog.reader();
    const herder = new DistributedHerder({
      worker: compileWorkerConfig({ 'bootstrap.servers': '127.0.0.1:9092' }),
      distributed,
      configLog: { ...reader, start: (on) => reading.then(() => reader.start(on)) },
      status: new StatusStore(new MemoryTopicLog().reader(), logger),
      workerId: 'a:1',
      restUrl: 'http://a:1',
      logger,
      runtimes: (config, ids) => new FakeRuntime(config, ids),
      statusIntervalMs: 60_000,
    });
    const group = new FakeGroup();
    const member = new FakeMember(group, herder, 'a:1');
    let join: () => void = () => undefined;
    const joining = new Promise<void>((r) => (join = r));
    member.start = () => joining.then(() => group.join(member));
    herder.attach(member);
    stop.push(() => herder.stop());
    const started = herder.start();
    await Promise.resolve();
    expect(herder.ready).toBe(false);
    read();
    await vi.waitFor(() => expect(herder.state.connector('pg')).toBeDefined());
    expect(herder.ready).toBe(false);
    join();
    await started;
    expect(herder.ready).toBe(true);
  });

  it('stores provider references unresolved: the secret never reaches the config topic', async () => {
    process.env['SHARESINK_TEST_SECRET'] = 's3cr3t-value';
    try {
      const c = cluster();
      await c.add('a:1');
      stop.push(() => c.nodes[0]!.herder.stop());
      await leaderOf(c).writes.putConnector(
        'pg',
        sink(2, { 'connection.password': '${env:SHARESINK_TEST_SECRET}' }),
        true,
      );
      await settle(c);
      const topic = c.configLog.records.map((r) => `${r.key}=${r.value}`).join('\n');
      expect(topic).toContain('${env:SHARESINK_TEST_SECRET}');
      expect(topic).not.toContain('s3cr3t-value');
      // resolved on the worker that runs the task
      const runtime = c.nodes[0]!.herder.local.runtimes[0]!;
      expect(runtime.config.raw['connection.password']).toBe('s3cr3t-value');
    } finally {
      delete process.env['SHARESINK_TEST_SECRET'];
    }
  });
});
