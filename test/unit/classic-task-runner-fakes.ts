// A scripted kafkajs consumer (and dead-letter queue, pool and offset manager) for the ClassicTaskRunner
// unit tests. A test file mocks the two modules the runner reaches Kafka through with these:
//
//   vi.mock('../../src/kafka/kafkajs/classic-consumer.js', async (original) =>
//     (await import('./classic-task-runner-fakes.js')).mockClassicConsumer(await original()));
//   vi.mock('../../src/actors/errors/dead-letter-reporter.js', async (original) =>
//     (await import('./classic-task-runner-fakes.js')).mockDeadLetterQueue(await original()));
//
// then calls scriptedConsumer() before each runner it makes. Nothing here imports the runner, whose
// module graph holds the mocked modules.
import type { ConsumerConfig, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { pino } from 'pino';
import { expect } from 'vitest';
import type { ClassicTaskRunnerOptions } from '../../src/actors/classic-options.js';
import type * as DeadLetterModule from '../../src/actors/errors/dead-letter-reporter.js';
import type { ClassicDeadLetterQueue } from '../../src/actors/errors/dead-letter-reporter.js';
import type * as ClassicConsumerModule from '../../src/kafka/kafkajs/classic-consumer.js';
import type { PutResult } from '../../src/pool/protocol.js';

type EachBatch = (payload: EachBatchPayload) => Promise<void>;
/** One run() of the consumer: what its group join does. */
export type Join = (c: FakeConsumer) => Promise<void>;

interface Script {
  connected: Promise<void>;
  joins: Join[];
  dlq: FakeDeadLetterQueue | undefined;
  /** When the coordinator answers a LeaveGroup (kafkajs's stop sends one once the eachBatch calls end). */
  leaveAnswered: Promise<void>;
}

const script: Script = {
  connected: Promise.resolve(),
  joins: [],
  dlq: undefined,
  leaveAnswered: Promise.resolve(),
};
const consumers: FakeConsumer[] = [];

/** The join of a member that gets partitions 0 and 1 of topic `t`. */
export const joined: Join = async (c) => {
  c.emit(c.events.GROUP_JOIN, { memberAssignment: { t: [0, 1] } });
  c.calls.push('joined');
};

/**
 * The parts of a kafkajs consumer the runner uses, as kafkajs behaves: its stop waits for the eachBatch
 * calls under way; a crash leaves the group (its paused topics with it), asks restartOnFailure and
 * restarts on a timer; pause() and resume() throw while there is no group.
 */
export class FakeConsumer {
  readonly events = { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash' } as const;
  readonly calls: string[] = [];
  /** Every topic pause() was asked for, in order, whichever group it went to. */
  readonly pauses: string[] = [];
  /** eachBatch calls under way. */
  readonly open = new Set<Promise<unknown>>();
  eachBatch: EachBatch | undefined;
  /** kafkajs's consumer group, from run() until a stop or a crash: its paused topics. */
  private group: Set<string> | undefined;
  private readonly connected = script.connected;
  private readonly leaveAnswered = script.leaveAnswered;
  private readonly joins = [...script.joins];
  private readonly listeners = new Map<string, Array<(e: { payload: unknown }) => void>>();
  private leaving: Promise<void> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private runConfig: { eachBatch: EachBatch } | undefined;

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

  async run(config: { eachBatch: EachBatch }): Promise<void> {
    if (this.group !== undefined) return; // kafkajs warns and returns
    this.runConfig = config;
    this.eachBatch = config.eachBatch;
    this.group = new Set();
    this.calls.push('run');
    await (this.joins.shift() ?? joined)(this);
  }

  // kafkajs's stop clears a pending restart timer, but cannot reach a restart that already fired
  async stop(): Promise<void> {
    clearTimeout(this.restartTimer);
    this.calls.push('stop');
    await this.leave();
  }

  async disconnect(): Promise<void> {
    clearTimeout(this.restartTimer);
    this.calls.push('disconnect');
    await this.leave();
  }

  pause(topics: Array<{ topic: string }>): void {
    const group = this.groupOrThrow();
    for (const { topic } of topics) {
      group.add(topic);
      this.pauses.push(topic);
    }
  }

  resume(topics: Array<{ topic: string }>): void {
    const group = this.groupOrThrow();
    for (const { topic } of topics) group.delete(topic);
  }

  /** kafkajs's paused(): the topics the current group does not fetch; none without a group. */
  paused(): string[] {
    return [...(this.group ?? [])];
  }

  /** kafkajs's onCrash: leaves, asks restartOnFailure about a retriable error, emits CRASH, restarts on a timer. */
  async crash(error: Error & { retriable?: boolean }): Promise<void> {
    this.calls.push('crash');
    await this.leave();
    const ask = this.config.retry?.restartOnFailure;
    const restart = error.retriable === true && (ask === undefined || (await ask(error)));
    this.emit(this.events.CRASH, { error, restart, groupId: this.config.groupId });
    if (restart) this.restartTimer = setTimeout(() => void this.run(this.runConfig!), 5);
  }

  /** kafkajs's stop: one at a time, shared by a crash and a disconnect that overlap. */
  private leave(): Promise<void> {
    if (this.group === undefined) return Promise.resolve();
    this.leaving ??= Promise.allSettled([...this.open])
      .then(() => this.leaveAnswered)
      .then(() => {
        this.group = undefined;
        this.leaving = undefined;
        this.calls.push('left');
      });
    return this.leaving;
  }

  private groupOrThrow(): Set<string> {
    if (this.group === undefined)
      throw new Error('Consumer group was not initialized, consumer#run must be called first');
    return this.group;
  }
}

/** A dead-letter queue whose start waits for `started` and each write for `written`. */
export class FakeDeadLetterQueue {
  readonly calls: string[] = [];
  /** The offsets each write carried. */
  readonly writes: number[][] = [];

  constructor(
    private readonly started: Promise<void> = Promise.resolve(),
    private readonly written: Promise<void> = Promise.resolve(),
  ) {}

  get topic(): string {
    return 'dlq';
  }

  async start(): Promise<void> {
    this.calls.push('start');
    await this.started;
    this.calls.push('started');
  }

  async send(records: ReadonlyArray<{ offset: number }>, indexes: Iterable<number>): Promise<number> {
    const offsets = [...indexes].map((i) => records[i]!.offset);
    this.writes.push(offsets);
    this.calls.push('send');
    await this.written;
    this.calls.push('sent');
    return offsets.length;
  }

  async close(): Promise<void> {
    this.calls.push('close');
  }
}

export interface Scripted {
  /** The consumers the runner made, in order. */
  readonly consumers: readonly FakeConsumer[];
  /** The first of them (the runner makes one, unless it stopped before). */
  consumer(): FakeConsumer;
}

/**
 * Scripts the consumers runners make from now on: their connect waits for `connected`, their run() calls
 * play `joins` in turn (then {@link joined}); `dlq` is the dead-letter queue (none by default); their
 * leave waits for `leaveAnswered` once the eachBatch calls ended (a coordinator that does not answer).
 */
export function scriptedConsumer(
  options: {
    connected?: Promise<void>;
    joins?: Join[];
    dlq?: FakeDeadLetterQueue;
    leaveAnswered?: Promise<void>;
  } = {},
): Scripted {
  consumers.length = 0;
  script.connected = options.connected ?? Promise.resolve();
  script.joins = options.joins ?? [];
  script.dlq = options.dlq;
  script.leaveAnswered = options.leaveAnswered ?? Promise.resolve();
  return { consumers, consumer: () => consumers[0]! };
}

export function mockClassicConsumer(original: typeof ClassicConsumerModule): typeof ClassicConsumerModule {
  const kafka = {
    consumer: (config: ConsumerConfig) => {
      const c = new FakeConsumer(config);
      consumers.push(c);
      return c;
    },
  };
  return { ...original, createClassicKafka: () => kafka as never };
}

export function mockDeadLetterQueue(original: typeof DeadLetterModule): typeof DeadLetterModule {
  return {
    ...original,
    deadLetterQueueFor: () => script.dlq as unknown as ClassicDeadLetterQueue | undefined,
  };
}

/** A task of connector `c` reading topic `t`, on `pool`, failures collected. */
export function runnerOptions(
  pool: unknown,
  options: Partial<ClassicTaskRunnerOptions> = {},
): { options: ClassicTaskRunnerOptions; failures: Error[] } {
  const failures: Error[] = [];
  return {
    failures,
    options: {
      connector: 'c',
      taskId: 0,
      topics: ['t'],
      groupId: 'g',
      brokers: ['kafka:9092'],
      pool: pool as never,
      poolTask: { id: 'c-0', props: {} },
      logger: pino({ level: 'silent' }),
      onFailure: (e) => failures.push(e),
      ...options,
    },
  };
}

/** kafkajs's offset manager for partitions of topic `t`: resolved offsets in memory, commits recorded. */
export class Offsets {
  readonly resolved = new Map<number, string>();
  readonly committed = new Map<number, string>();
  /** Each commit request, `partition:offset` for every partition it carried. */
  readonly commits: string[][] = [];
  failCommits: Error | undefined;
  /** When set, commit requests are answered once it resolves (never: a coordinator that does not answer). */
  holdCommits: Promise<void> | undefined;

  constructor(private readonly consumer: FakeConsumer) {}

  uncommitted(): {
    topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>;
  } {
    const partitions = [...this.resolved]
      .filter(([p, o]) => this.committed.get(p) !== o)
      .map(([partition, offset]) => ({ partition, offset }));
    return { topics: partitions.length === 0 ? [] : [{ topic: 't', partitions }] };
  }

  /** One fetch of `count` records of partition `partition` from offset `from`, handed to eachBatch. */
  deliver(partition: number, from: number, count: number, heartbeat: () => Promise<void> = async () => {}) {
    const messages = Array.from(
      { length: count },
      (_, i) =>
        ({
          offset: String(from + i),
          key: null,
          value: Buffer.from(String(from + i)),
          timestamp: '0',
          attributes: 0,
          headers: {},
        }) as unknown as KafkaMessage,
    );
    const payload = {
      batch: { topic: 't', partition, messages },
      resolveOffset: (offset: string) => this.resolved.set(partition, String(Number(offset) + 1)),
      commitOffsetsIfNecessary: async (offsets: ReturnType<Offsets['uncommitted']>) => {
        const carried = offsets.topics.flatMap((t) => t.partitions.map((p) => `${p.partition}:${p.offset}`));
        this.commits.push(carried);
        if (this.holdCommits) await this.holdCommits;
        if (this.failCommits) throw this.failCommits;
        for (const t of offsets.topics)
          for (const p of t.partitions) this.committed.set(p.partition, p.offset);
      },
      uncommittedOffsets: () => this.uncommitted(),
      heartbeat,
      isRunning: () => true,
      isStale: () => false,
      pause: () => () => {},
    } as unknown as EachBatchPayload;
    const done = this.consumer.eachBatch!(payload);
    this.consumer.open.add(done);
    const settled = done.then(
      () => 'returned' as const,
      (e: unknown) => e,
    );
    return { done, settled };
  }
}

type Answer = Partial<PutResult> | 'hold';

/** Puts answered by `answer(partition, first offset)` after `delayMs`; 'hold' never answers until aborted. */
export class ScriptedPool {
  readonly puts: string[] = [];
  constructor(
    private readonly answer: (partition: number, first: number) => Answer,
    private readonly delayMs = 5,
  ) {}
  put(
    _task: unknown,
    records: readonly { partition: number; offset: number }[],
    opts: { signal: AbortSignal },
  ): Promise<PutResult> {
    const { partition, offset } = records[0]!;
    this.puts.push(`${partition}:${offset}+${records.length}`);
    const stats = { durationMs: 1, convertMs: 0, converterFailures: [], threadId: 1, taskStarted: false };
    const answer = this.answer(partition, offset);
    return new Promise((resolve) => {
      const timer =
        answer === 'hold'
          ? undefined
          : setTimeout(() => resolve({ kind: 'ok', ...stats, ...answer } as PutResult), this.delayMs);
      opts.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve({ kind: 'aborted', reason: 'aborted', ...stats } as PutResult);
      });
    });
  }
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Lets every pending callback run (the runner's awaits and setImmediate). */
export async function flush(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise((r) => setImmediate(r));
}

export async function until(what: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect(what()).toBe(true);
}

/** What `promise` settled to within `ms`, or 'pending'. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);
}
