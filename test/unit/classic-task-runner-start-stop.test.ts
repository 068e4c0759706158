// ClassicTaskRunner's start and stop against a scripted kafkajs consumer: a stop that lands while the
// task is still starting (dead-letter producer, connect, group join, a kafkajs restart) must leave no
// consumer behind, and a crash kafkajs does not restart (a refused join) must fail start(), so the task
// ends FAILED rather than RUNNING with no consumer. The real-broker side is
// test/integration/classic-start-stop.test.ts.
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { ClassicTaskRunnerOptions } from '../../src/actors/classic-task-runner.js';
import {
  deferred,
  FakeDeadLetterQueue,
  flush,
  joined,
  runnerOptions,
  scriptedConsumer,
  until,
  type Join,
} from './classic-task-runner-fakes.js';

vi.mock('../../src/kafka/kafkajs/classic-consumer.js', async (original) =>
  (await import('./classic-task-runner-fakes.js')).mockClassicConsumer(await original()),
);
vi.mock('../../src/actors/errors/dead-letter-reporter.js', async (original) =>
  (await import('./classic-task-runner-fakes.js')).mockDeadLetterQueue(await original()),
);

const { ClassicTaskRunner } = await import('../../src/actors/classic-task-runner.js');
const { TaskSlots } = await import('../../src/actors/connector/task-slots.js');
const { CountersLedger } = await import('../../src/actors/connector/counters-ledger.js');

let scripted = scriptedConsumer();

function setUp(options: { connected?: Promise<void>; joins?: Join[]; dlq?: FakeDeadLetterQueue } = {}): void {
  scripted = scriptedConsumer(options);
}

function runner(options: Partial<ClassicTaskRunnerOptions> = {}) {
  const { options: o, failures } = runnerOptions({}, { shutdownGraceMs: 100, ...options });
  return { r: new ClassicTaskRunner(o), failures };
}

/** Task slots of connector `c` with one task, made by runner(options); the failures they heard of. */
function slots(options: Partial<ClassicTaskRunnerOptions> = {}) {
  const failed: string[] = [];
  const taskSlots = new TaskSlots({
    connector: 'c',
    logger: pino({ level: 'silent' }),
    inspect: undefined,
    ledger: new CountersLedger(),
    paused: () => false,
    onTaskFailed: (_id, error) => failed.push(error),
  });
  const factory = (_id: number, _props: Record<string, string>, onFailure: (e: Error) => void) => ({
    runner: runner({ ...options, onFailure }).r,
    consumer: undefined,
  });
  // distributed mode's call: the connector does not fail with its tasks, so start() resolves
  const start = () => taskSlots.start(factory, {} as never, [{}], [0]);
  return { slots: taskSlots, failed, start };
}

const consumers = () => scripted.consumers;
const consumer = () => scripted.consumer();

function refusedJoin(): Error {
  return Object.assign(
    new Error(
      'The session timeout is not within the range allowed by the broker (as configured by group.min.session.timeout.ms and group.max.session.timeout.ms)',
    ),
    { name: 'KafkaJSProtocolError', type: 'INVALID_SESSION_TIMEOUT', retriable: false },
  );
}

function noCoordinator(): Error {
  return Object.assign(new Error('Failed to find group coordinator'), {
    name: 'KafkaJSGroupCoordinatorNotFound',
    retriable: false,
    retryTime: 5,
  });
}

function lostCoordinator(): Error {
  return Object.assign(new Error('Connection closed'), {
    name: 'KafkaJSConnectionClosedError',
    retriable: true,
    retryTime: 5,
  });
}

describe('ClassicTaskRunner: a stop while the task starts', () => {
  it('during the dead-letter producer start: no consumer is made, and the producer is closed', async () => {
    const started = deferred();
    const dlq = new FakeDeadLetterQueue(started.promise);
    setUp({ dlq });
    const { r } = runner();
    const starting = r.start();
    const stopping = r.stop();
    await flush();
    started.resolve();
    await Promise.all([starting, stopping]);
    await flush();
    expect(consumers()).toEqual([]);
    expect(dlq.calls).toEqual(['start', 'started', 'close']);
  });

  it('during connect: the consumer is never subscribed or run, and is disconnected once connect returns', async () => {
    const connected = deferred();
    setUp({ connected: connected.promise });
    const { r } = runner();
    const starting = r.start();
    await until(() => consumers().length === 1);
    let stopped = false;
    const stopping = r.stop().then(() => (stopped = true));
    await flush();
    // disconnecting now would race the connect
    expect(consumer().calls).toEqual(['connect']);
    expect(stopped).toBe(false);
    connected.resolve();
    await Promise.all([starting, stopping]);
    await flush();
    expect(consumer().calls).toEqual(['connect', 'connected', 'disconnect']);
  });

  it('during the group join: the stop waits for the join, then leaves, and the partitions stay paused', async () => {
    const join = deferred();
    setUp({
      joins: [
        async (c) => {
          await join.promise;
          await joined(c);
        },
      ],
    });
    const { r } = runner();
    const starting = r.start();
    await until(() => consumers().length === 1 && consumer().calls.includes('run'));
    let stopped = false;
    const stopping = r.stop().then(() => (stopped = true));
    await flush();
    // a kafkajs stop now cannot reach the member the join makes
    expect(consumer().calls).not.toContain('disconnect');
    expect(stopped).toBe(false);
    join.resolve();
    await Promise.all([starting, stopping]);
    await flush();
    expect(consumer().calls).toEqual([
      'connect',
      'connected',
      'subscribe',
      'run',
      'joined',
      'disconnect',
      'left',
    ]);
    expect(consumer().pauses).toContain('t');
  });

  it('start() after stop() makes nothing', async () => {
    setUp();
    const { r } = runner();
    await r.stop();
    await r.start();
    expect(consumers()).toEqual([]);
  });
});

describe('ClassicTaskRunner: crashes', () => {
  // kafkajs calls the second non-retriable: no broker answered its FindCoordinator (a broker restart)
  it.each([
    ['a retriable crash', lostCoordinator],
    ['a cluster that cannot be reached', noCoordinator],
  ])('%s while running: the consumer is run again, once', async (_, crash) => {
    setUp();
    const { r, failures } = runner();
    await r.start();
    await consumer().crash(crash());
    await until(() => consumer().calls.filter((c) => c === 'joined').length === 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(consumer().calls.filter((c) => c === 'run')).toHaveLength(2);
    expect(failures).toEqual([]);
    await r.stop();
  });

  it('a retriable crash after stop() began does not bring the consumer back', async () => {
    setUp();
    const { r, failures } = runner();
    await r.start();
    const stopping = r.stop();
    await consumer().crash(lostCoordinator());
    await stopping;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const calls = consumer().calls;
    // the crash may still be leaving when the stop disconnects: one leave, whoever ends it
    expect(calls.slice(calls.indexOf('disconnect')).filter((c) => c !== 'left')).toEqual(['disconnect']);
    expect(calls.filter((c) => c === 'run')).toHaveLength(1);
    expect(failures).toEqual([]);
  });

  it('a stop while a restarted consumer joins waits for that join, then leaves', async () => {
    const join = deferred();
    setUp({
      joins: [
        joined,
        async (c) => {
          await join.promise;
          await joined(c);
        },
      ],
    });
    const { r } = runner();
    await r.start();
    await consumer().crash(lostCoordinator());
    await until(() => consumer().calls.filter((c) => c === 'run').length === 2);
    let stopped = false;
    const stopping = r.stop().then(() => (stopped = true));
    await flush();
    expect(consumer().calls).not.toContain('disconnect');
    expect(stopped).toBe(false);
    join.resolve();
    await stopping;
    const calls = consumer().calls;
    expect(calls.slice(calls.lastIndexOf('run'))).toEqual(['run', 'joined', 'disconnect', 'left']);
  });

  it('a join the broker refuses fails start() with the crash, naming session.timeout.ms', async () => {
    setUp({ joins: [(c) => c.crash(refusedJoin())] });
    const { r, failures } = runner({
      consumer: { 'session.timeout.ms': '1000', 'heartbeat.interval.ms': '300' },
    });
    const err = await r.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'SHARESINK_TASK_FAILED' });
    expect((err as Error).message).toMatch(/INVALID_SESSION_TIMEOUT|not within the range/);
    expect((err as Error).message).toMatch(
      /session\.timeout\.ms=1000 must be within the broker's group\.min\.session\.timeout\.ms and group\.max\.session\.timeout\.ms/,
    );
    expect(failures).toEqual([err]);
    await r.stop();
  });

  it('through the task slots, a refused join leaves the task FAILED with the crash as its trace', async () => {
    setUp({ joins: [(c) => c.crash(refusedJoin())] });
    const t = slots({ consumer: { 'session.timeout.ms': '1000', 'heartbeat.interval.ms': '300' } });
    await t.start();
    await flush();
    const [state] = t.slots.states();
    expect(state).toMatchObject({ id: 0, state: 'FAILED' });
    expect(state!.trace).toMatch(/session\.timeout\.ms=1000/);
    // the trace leads with the error's code; the failure the worker lists is its message
    expect(t.failed).toHaveLength(1);
    expect(state!.trace).toBe(`SHARESINK_TASK_FAILED: ${t.failed[0]}`);
    await t.slots.stopAll();
  });
});

// after a crash kafkajs has no consumer group until the runner runs the consumer again (onCrash's
// restart, here 5 ms later): kafkajs's pause() and resume() throw in that window
describe('ClassicTaskRunner: pause and resume while a crashed consumer is restarted', () => {
  const runs = () => consumer().calls.filter((c) => c === 'joined').length;

  it('resume() in that window does not throw, and the restarted consumer fetches every topic', async () => {
    setUp();
    const { r, failures } = runner();
    await r.start();
    r.pause();
    expect(consumer().paused()).toEqual(['t']);
    await consumer().crash(lostCoordinator());
    expect(() => r.resume()).not.toThrow();
    await until(() => runs() === 2);
    expect(consumer().paused()).toEqual([]);
    expect(failures).toEqual([]);
    await r.stop();
  });

  it('pause() in that window: the restarted consumer comes back paused, and resumes', async () => {
    setUp();
    const { r } = runner();
    await r.start();
    await consumer().crash(lostCoordinator());
    expect(() => r.pause()).not.toThrow();
    await until(() => runs() === 2);
    expect(consumer().paused()).toEqual(['t']);
    r.resume();
    expect(consumer().paused()).toEqual([]);
    await r.stop();
  });

  it('through the task slots, a connector resumed in that window has its task RUNNING and fetching', async () => {
    setUp();
    const t = slots();
    await t.start();
    await flush();
    t.slots.pauseAll();
    await flush();
    expect(t.slots.states()).toMatchObject([{ id: 0, state: 'PAUSED' }]);
    await consumer().crash(lostCoordinator());
    t.slots.resumeAll();
    await flush();
    await until(() => runs() === 2);
    expect(t.slots.states()).toMatchObject([{ id: 0, state: 'RUNNING' }]);
    expect(consumer().paused()).toEqual([]);
    expect(t.failed).toEqual([]);
    await t.slots.stopAll();
  });
});
