// Classic mode against the real broker, a task stopped while it starts or failing as it starts: no
// member of the task may be in the group once stop() resolved (kafkajs restarts a consumer whose join a
// disconnect cut short), and a join the broker refuses fails the task instead of leaving it RUNNING
// with no consumer. The same cases, one step at a time, with a scripted consumer:
// test/unit/actors/task/classic/classic-task-runner-start-stop.test.ts.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  ClassicTaskRunner,
  type ClassicTaskRunnerOptions,
} from '../../src/actors/task/classic/classic-task-runner.js';
import { CountersLedger } from '../../src/actors/connector/counters-ledger.js';
import { TaskSlots } from '../../src/actors/connector/task-slots.js';
import { PutPool } from '../../src/pool/put-pool.js';
import { kafkaClient, produce, testBrokers, uniqueGroup, uniqueName } from './harness/kafka.js';
import { classicRunner, RECORDING } from './harness/classic-runner.js';
import { topicsForTest } from './harness/topics.js';

const logger = pino({ level: process.env.SHARESINK_TEST_LOG_LEVEL ?? 'warn' });
// below any broker's group.min.session.timeout.ms (the test broker's is 3000, Kafka's default 6000)
const REFUSED_SESSION = { 'session.timeout.ms': '1000', 'heartbeat.interval.ms': '300' };
const { newTopic } = topicsForTest();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function runner(name: string, topic: string, group: string, opts: Partial<ClassicTaskRunnerOptions> = {}) {
  const clientId = uniqueName(name);
  const run = classicRunner({
    ...{ name, topic, group, logger },
    options: { clientId, shutdownGraceMs: 500, ...opts },
  });
  return { ...run, clientId };
}

async function describeGroup(group: string): Promise<{ state: string; clientIds: string[] }> {
  const admin = kafkaClient('sharesink-test-admin').admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([group]);
    const g = groups[0]!;
    return { state: g.state, clientIds: g.members.map((m) => m.clientId) };
  } finally {
    await admin.disconnect();
  }
}

async function until(what: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The runner's members in the group, a while after its stop: kafkajs restarts a crashed consumer in 300 ms. */
async function membersAfterStop(group: string, clientId: string): Promise<string[]> {
  await sleep(2_000);
  return (await describeGroup(group)).clientIds.filter((c) => c === clientId);
}

describe('classic task start and stop against Kafka', () => {
  it('a stop while the dead-letter producer starts: the task never joins the group', async () => {
    const topic = await newTopic('ss-dlq');
    const group = uniqueGroup('ss-dlq');
    const dlq = await newTopic('ss-dlq-dlq');
    const h = runner('ss-dlq', topic, group, { errors: { tolerance: 'all', deadLetterQueueTopic: dlq } });
    const started = h.runner.start();
    await h.runner.stop();
    const [outcome] = await Promise.allSettled([started]);
    expect(outcome.status).toBe('fulfilled');
    expect(await membersAfterStop(group, h.clientId)).toEqual([]);
    expect(h.failures).toEqual([]);
    await h.pool.close();
  }, 20_000);

  it('a stop while the group join is under way: no member is left once stop() resolved', async () => {
    const topic = await newTopic('ss-join');
    const group = uniqueGroup('ss-join');
    await produce(topic, ['a']);
    // a member stuck in a record does not heartbeat: the coordinator holds the task's join until it rejoins
    const busy = deferred();
    const release = deferred();
    const other = kafkaClient('ss-join-other').consumer({
      groupId: group,
      sessionTimeout: 10_000,
      rebalanceTimeout: 10_000,
      heartbeatInterval: 500,
    });
    await other.connect();
    await other.subscribe({ topic, fromBeginning: true });
    void other.run({
      eachMessage: async () => {
        busy.resolve();
        await release.promise;
      },
    });
    await busy.promise;
    const h = runner('ss-join', topic, group);
    const started = h.runner.start();
    await until(async () => (await describeGroup(group)).state === 'PreparingRebalance');
    let stopped = false;
    const stopping = h.runner.stop().then(() => (stopped = true));
    await sleep(500);
    release.resolve();
    await stopping;
    expect(stopped).toBe(true);
    await Promise.allSettled([started]);
    expect(await membersAfterStop(group, h.clientId)).toEqual([]);
    expect(h.failures).toEqual([]);
    await other.disconnect();
    await h.pool.close();
  }, 20_000);

  it('a join the broker refuses (session.timeout.ms below its minimum) fails start() and names the setting', async () => {
    const topic = await newTopic('ss-session');
    const group = uniqueGroup('ss-session');
    const h = runner('ss-session', topic, group, { consumer: REFUSED_SESSION });
    const err = await h.runner.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'SHARESINK_TASK_FAILED' });
    expect((err as Error).message).toMatch(/session\.timeout\.ms=1000 must be within the broker's/);
    expect(h.failures).toEqual([err]);
    await h.runner.stop();
    expect(await membersAfterStop(group, h.clientId)).toEqual([]);
    await h.pool.close();
  }, 20_000);

  it('in a connector, that task ends FAILED with the reason as its trace, not RUNNING', async () => {
    const topic = await newTopic('ss-slot');
    const group = uniqueGroup('ss-slot');
    const pool = new PutPool({ connectorModule: RECORDING, threads: 1, logger });
    const slots = new TaskSlots({
      connector: 'ss-slot',
      logger,
      inspect: undefined,
      ledger: new CountersLedger(),
      paused: () => false,
      onTaskFailed: () => undefined,
    });
    const factory = (id: number, props: Record<string, string>, onFailure: (e: Error) => void) => ({
      runner: new ClassicTaskRunner({
        connector: 'ss-slot',
        taskId: id,
        topics: [topic],
        groupId: group,
        brokers: testBrokers().split(','),
        consumer: REFUSED_SESSION,
        pool,
        poolTask: { id: `ss-slot-${id}`, props },
        logger,
        onFailure,
      }),
      consumer: undefined,
    });
    // as standalone mode starts a connector: every task failing fails the start
    await expect(slots.start(factory, pool, [{ 'sink.file': '/dev/null' }])).rejects.toThrow(
      /every task failed to start: .*session\.timeout\.ms=1000/,
    );
    const [state] = slots.states();
    expect(state).toMatchObject({ id: 0, state: 'FAILED' });
    expect(state!.trace).toMatch(/group\.min\.session\.timeout\.ms/);
    await slots.stopAll();
    await pool.close();
  }, 20_000);
});
