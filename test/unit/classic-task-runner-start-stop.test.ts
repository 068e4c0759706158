// ClassicTaskRunner's start and stop against a scripted kafkajs consumer: a stop that lands while the
// task is still starting (dead-letter producer, connect, group join, a kafkajs restart) must leave no
// consumer behind, and a crash kafkajs does not restart (a refused join) must fail start(), so the task
// ends FAILED rather than RUNNING with no consumer. The real-broker side is
// test/integration/classic-start-stop.test.ts.
import type { ConsumerConfig } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { ClassicTaskRunnerOptions } from '../../src/actors/classic-task-runner.js';
import type * as DeadLetterModule from '../../src/actors/errors/dead-letter-reporter.js';
import type { ClassicDeadLetterQueue } from '../../src/actors/errors/dead-letter-reporter.js';
import type * as ClassicConsumerModule from '../../src/kafka/classic-consumer.js';

type Join = (c: FakeConsumer) => Promise<void>;

/** What the next consumer does: its connect waits for `connected`, its run() calls i play `joins[i]`. */
const script: { connected: Promise<void>; joins: Join[] } = { connected: Promise.resolve(), joins: [] };
const consumers: FakeConsumer[] = [];
let dlq: FakeDeadLetterQueue | undefined;

/** The parts of a kafkajs consumer the runner uses, with kafkajs's crash and restart behaviour. */
class FakeConsumer {
  readonly events = { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash' } as const;
  readonly calls: string[] = [];
  readonly paused: string[] = [];
  private readonly connected = script.connected;
  private readonly joins = [...script.joins];
  private readonly listeners = new Map<string, Array<(e: { payload: unknown }) => void>>();
  private restartTimer: NodeJS.Timeout | undefined;
  private runConfig: unknown;

  constructor(readonly config: ConsumerConfig) {}

  on(name: string, listener: (e: { payload: unknown }) => void): void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }

  emit(name: string, payload: unknown): void {
    for (const l of this.listeners.get(name) ?? []) l({ payload });
  }

  async connect(): Promise<void> {
    this.calls.push('connect');
    await this.connected;
    this.calls.push('connected');
  }

  async subscribe(): Promise<void> {
    this.calls.push('subscribe');
  }

  async run(config: unknown): Promise<void> {
    this.runConfig = config;
    this.calls.push('run');
    await (this.joins.shift() ?? joined)(this);
  }

  // kafkajs's stop clears a pending restart timer, but cannot reach a restart that already fired
  async disconnect(): Promise<void> {
    clearTimeout(this.restartTimer);
    this.calls.push('disconnect');
  }

  async stop(): Promise<void> {
    clearTimeout(this.restartTimer);
    this.calls.push('stop');
  }

  pause(topics: Array<{ topic: string }>): void {
    this.paused.push(...topics.map((t) => t.topic));
  }

  resume(): void {}

  /** kafkajs's onCrash: asks restartOnFailure about a retriable error, emits CRASH, restarts on a timer. */
  async crash(error: Error & { retriable?: boolean }): Promise<void> {
    this.calls.push('crash');
    const ask = this.config.retry?.restartOnFailure;
    const restart = error.retriable === true && (ask === undefined || (await ask(error)));
    this.emit(this.events.CRASH, { error, restart, groupId: this.config.groupId });
    if (restart) this.restartTimer = setTimeout(() => void this.run(this.runConfig), 5);
  }
}

const joined: Join = async (c) => {
  c.emit(c.events.GROUP_JOIN, { memberAssignment: { t: [0] } });
  c.calls.push('joined');
};

class FakeDeadLetterQueue {
  readonly calls: string[] = [];
  constructor(private readonly started: Promise<void>) {}
  get topic(): string {
    return 'dlq';
  }
  async start(): Promise<void> {
    this.calls.push('start');
    await this.started;
    this.calls.push('started');
  }
  async close(): Promise<void> {
    this.calls.push('close');
  }
}

vi.mock('../../src/kafka/classic-consumer.js', async (importOriginal) => ({
  ...(await importOriginal<typeof ClassicConsumerModule>()),
  createClassicKafka: () => ({
    consumer: (config: ConsumerConfig) => {
      const c = new FakeConsumer(config);
      consumers.push(c);
      return c;
    },
  }),
}));
vi.mock('../../src/actors/errors/dead-letter-reporter.js', async (importOriginal) => ({
  ...(await importOriginal<typeof DeadLetterModule>()),
  deadLetterQueueFor: () => dlq as unknown as ClassicDeadLetterQueue | undefined,
}));

const { ClassicTaskRunner } = await import('../../src/actors/classic-task-runner.js');
const { TaskSlots } = await import('../../src/actors/connector/task-slots.js');
const { CountersLedger } = await import('../../src/actors/connector/counters-ledger.js');

const logger = pino({ level: 'silent' });

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Lets every pending callback run (the runner's awaits and setImmediate). */
async function flush(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise((r) => setImmediate(r));
}

async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(what()).toBe(true);
}

function setUp(options: { connected?: Promise<void>; joins?: Join[]; dlq?: FakeDeadLetterQueue } = {}): void {
  consumers.length = 0;
  script.connected = options.connected ?? Promise.resolve();
  script.joins = options.joins ?? [];
  dlq = options.dlq;
}

function runner(options: Partial<ClassicTaskRunnerOptions> = {}) {
  const failures: Error[] = [];
  const r = new ClassicTaskRunner({
    connector: 'c',
    taskId: 0,
    topics: ['t'],
    groupId: 'g',
    brokers: ['kafka:9092'],
    pool: {} as never,
    poolTask: { id: 'c-0', props: {} },
    logger,
    shutdownGraceMs: 100,
    onFailure: (e) => failures.push(e),
    ...options,
  });
  return { r, failures };
}

const consumer = (): FakeConsumer => consumers[0]!;

function refusedJoin(): Error {
  return Object.assign(
    new Error(
      'The session timeout is not within the range allowed by the broker (as configured by group.min.session.timeout.ms and group.max.session.timeout.ms)',
    ),
    { name: 'KafkaJSProtocolError', type: 'INVALID_SESSION_TIMEOUT', retriable: false },
  );
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
    setUp({ dlq: new FakeDeadLetterQueue(started.promise) });
    const { r } = runner();
    const starting = r.start();
    const stopping = r.stop();
    await flush();
    started.resolve();
    await Promise.all([starting, stopping]);
    await flush();
    expect(consumers).toEqual([]);
    expect(dlq!.calls).toEqual(['start', 'started', 'close']);
  });

  it('during connect: the consumer is never subscribed or run, and is disconnected once connect returns', async () => {
    const connected = deferred();
    setUp({ connected: connected.promise });
    const { r } = runner();
    const starting = r.start();
    await until(() => consumers.length === 1);
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
    await until(() => consumers.length === 1 && consumer().calls.includes('run'));
    let stopped = false;
    const stopping = r.stop().then(() => (stopped = true));
    await flush();
    // a kafkajs stop now cannot reach the member the join makes
    expect(consumer().calls).not.toContain('disconnect');
    expect(stopped).toBe(false);
    join.resolve();
    await Promise.all([starting, stopping]);
    await flush();
    expect(consumer().calls).toEqual(['connect', 'connected', 'subscribe', 'run', 'joined', 'disconnect']);
    expect(consumer().paused).toContain('t');
  });

  it('start() after stop() makes nothing', async () => {
    setUp();
    const { r } = runner();
    await r.stop();
    await r.start();
    expect(consumers).toEqual([]);
  });
});

describe('ClassicTaskRunner: crashes', () => {
  it('a retriable crash while running: the consumer is run again, once', async () => {
    setUp();
    const { r, failures } = runner();
    await r.start();
    await consumer().crash(lostCoordinator());
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
    expect(calls.slice(calls.indexOf('disconnect'))).toEqual(['disconnect']);
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
    expect(calls.slice(calls.lastIndexOf('run'))).toEqual(['run', 'joined', 'disconnect']);
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
    const failed: string[] = [];
    const slots = new TaskSlots({
      connector: 'c',
      logger,
      inspect: undefined,
      ledger: new CountersLedger(),
      paused: () => false,
      onTaskFailed: (_id, error) => failed.push(error),
    });
    const factory = (_id: number, _props: Record<string, string>, onFailure: (e: Error) => void) => ({
      runner: runner({
        consumer: { 'session.timeout.ms': '1000', 'heartbeat.interval.ms': '300' },
        onFailure,
      }).r,
      consumer: undefined,
    });
    // distributed mode's call: the connector does not fail with its tasks, so start() resolves
    await slots.start(factory, {} as never, [{}], [0]);
    await flush();
    const [state] = slots.states();
    expect(state).toMatchObject({ id: 0, state: 'FAILED' });
    expect(state!.trace).toMatch(/session\.timeout\.ms=1000/);
    expect(failed).toEqual([state!.trace]);
    await slots.stopAll();
  });
});
