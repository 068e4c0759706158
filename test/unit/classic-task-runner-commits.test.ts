// ClassicTaskRunner's offset commits when a fetch ends early, against a scripted kafkajs consumer: a
// fetch cut into max.poll.records chunks commits once, after its last chunk, so a stop, a task failure
// or a rebalance between chunks must commit what the finished chunks resolved before kafkajs leaves
// or rejoins (kafkajs keeps resolved offsets in memory only). And a failed task must end the retry
// backoffs of its other partitions: kafkajs's stop waits for every eachBatch call. The real-broker
// side is test/integration/classic-stop-commits.test.ts.
import type { ConsumerConfig, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { ClassicTaskRunnerOptions } from '../../src/actors/classic-task-runner.js';
import type * as DeadLetterModule from '../../src/actors/errors/dead-letter-reporter.js';
import type * as ClassicConsumerModule from '../../src/kafka/classic-consumer.js';
import type { PutResult } from '../../src/pool/protocol.js';

type EachBatch = (payload: EachBatchPayload) => Promise<void>;

/** A kafkajs consumer as the runner sees it; like kafkajs, its stop waits for the eachBatch calls. */
class FakeConsumer {
  readonly events = { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash' } as const;
  readonly calls: string[] = [];
  readonly open = new Set<Promise<unknown>>();
  eachBatch: EachBatch | undefined;
  private readonly listeners = new Map<string, Array<(e: { payload: unknown }) => void>>();

  on(name: string, listener: (e: { payload: unknown }) => void): void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }
  async connect(): Promise<void> {}
  async subscribe(): Promise<void> {}
  async run(config: { eachBatch: EachBatch }): Promise<void> {
    this.eachBatch = config.eachBatch;
    for (const l of this.listeners.get(this.events.GROUP_JOIN) ?? [])
      l({ payload: { memberAssignment: { t: [0, 1] } } });
  }
  async stop(): Promise<void> {
    this.calls.push('stop');
    await Promise.allSettled([...this.open]);
    this.calls.push('left');
  }
  async disconnect(): Promise<void> {
    this.calls.push('disconnect');
    await Promise.allSettled([...this.open]);
    this.calls.push('left');
  }
  pause(): void {}
  resume(): void {}
}

/** kafkajs's offset manager for partitions of topic `t`: resolved offsets in memory, commits recorded. */
class Offsets {
  readonly resolved = new Map<number, string>();
  readonly committed = new Map<number, string>();
  /** Each commit request, `partition:offset` for every partition it carried. */
  readonly commits: string[][] = [];
  failCommits: Error | undefined;

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
class ScriptedPool {
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

const consumers: FakeConsumer[] = [];

vi.mock('../../src/kafka/classic-consumer.js', async (importOriginal) => ({
  ...(await importOriginal<typeof ClassicConsumerModule>()),
  createClassicKafka: () => ({
    consumer: (_config: ConsumerConfig) => {
      const c = new FakeConsumer();
      consumers.push(c);
      return c;
    },
  }),
}));
vi.mock('../../src/actors/errors/dead-letter-reporter.js', async (importOriginal) => ({
  ...(await importOriginal<typeof DeadLetterModule>()),
  deadLetterQueueFor: () => undefined,
}));

const { ClassicTaskRunner } = await import('../../src/actors/classic-task-runner.js');

const logger = pino({ level: 'silent' });

async function until(what: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect(what()).toBe(true);
}

/** What `promise` settled to within `ms`, or 'pending'. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);
}

async function started(pool: ScriptedPool, options: Partial<ClassicTaskRunnerOptions> = {}) {
  consumers.length = 0;
  const failures: Error[] = [];
  const r = new ClassicTaskRunner({
    connector: 'c',
    taskId: 0,
    topics: ['t'],
    groupId: 'g',
    brokers: ['kafka:9092'],
    pool: pool as never,
    poolTask: { id: 'c-0', props: {} },
    logger,
    shutdownGraceMs: 1_000,
    onFailure: (e) => failures.push(e),
    ...options,
    consumer: { 'max.poll.records': '100', ...options.consumer },
  });
  await r.start();
  const consumer = consumers[0]!;
  return { r, failures, consumer, offsets: new Offsets(consumer) };
}

const rebalancing = () =>
  Object.assign(new Error('The group is rebalancing, so a rejoin is needed'), {
    name: 'KafkaJSProtocolError',
    type: 'REBALANCE_IN_PROGRESS',
    retriable: false,
  });

describe('ClassicTaskRunner: a fetch that ends between chunks commits what its chunks resolved', () => {
  it('stop(): the chunks put before and during the grace are committed before the consumer leaves', async () => {
    const pool = new ScriptedPool(() => ({}), 30);
    const { r, consumer, offsets } = await started(pool);
    // 350 records: chunks of 100, 100, 100, 50; only the last one would commit
    const fetch = offsets.deliver(0, 0, 350);
    await until(() => pool.puts.length === 2);
    await r.stop();
    expect(await fetch.settled).toBe('returned');
    // the chunk running at the stop finished within the grace: 2 chunks, 200 records
    expect(pool.puts).toEqual(['0:0+100', '0:100+100']);
    expect(offsets.commits).toEqual([['0:200']]);
    expect(consumer.calls).toEqual(['disconnect', 'left']);
    expect(r.counters.snapshot().commits).toBe(1);
  });

  it('stop() with a put aborted after the grace: only the chunks before it are committed', async () => {
    const pool = new ScriptedPool((_p, first) => (first === 100 ? 'hold' : {}));
    const { r, offsets } = await started(pool, { shutdownGraceMs: 50 });
    const fetch = offsets.deliver(0, 0, 350);
    await until(() => pool.puts.length === 2);
    await r.stop();
    expect(await fetch.settled).toBe('returned');
    expect(offsets.commits).toEqual([['0:100']]);
    expect(r.counters.snapshot().recordsReleased).toBe(100);
  });

  it('a fetch that runs to its last chunk commits once, after it', async () => {
    const pool = new ScriptedPool(() => ({}));
    const { r, offsets } = await started(pool);
    const fetch = offsets.deliver(0, 0, 350);
    expect(await fetch.settled).toBe('returned');
    expect(offsets.commits).toEqual([['0:350']]);
    await r.stop();
    expect(offsets.commits).toHaveLength(1);
  });

  it('a rebalance: the finished chunks are committed, then eachBatch throws so kafkajs rejoins', async () => {
    const pool = new ScriptedPool(() => ({}), 60);
    const { r, offsets } = await started(pool, { consumer: { 'heartbeat.interval.ms': '20' } });
    let rebalance = false;
    const fetch = offsets.deliver(0, 0, 350, async () => {
      if (rebalance) throw rebalancing();
    });
    await until(() => pool.puts.length === 2);
    rebalance = true;
    const outcome = await fetch.settled;
    expect(outcome).toMatchObject({ type: 'REBALANCE_IN_PROGRESS' });
    // the chunk running when the rebalance was seen finished: 200 records, in the old generation
    expect(pool.puts).toEqual(['0:0+100', '0:100+100']);
    expect(offsets.commits).toEqual([['0:200']]);
    await r.stop();
  });

  it('a rebalance is heard between chunks too, when every put is shorter than the heartbeat timer', async () => {
    // heartbeat.interval.ms 3000: the timer during a put fires every 1.5 s, never within a 5 ms put
    const pool = new ScriptedPool(() => ({}));
    const { r, offsets } = await started(pool);
    const beats: number[] = [];
    const fetch = offsets.deliver(0, 0, 350, async () => {
      beats.push(pool.puts.length);
      if (pool.puts.length >= 2) throw rebalancing();
    });
    expect(await fetch.settled).toMatchObject({ type: 'REBALANCE_IN_PROGRESS' });
    expect(beats).toEqual([0, 1, 2]);
    expect(pool.puts).toEqual(['0:0+100', '0:100+100']);
    expect(offsets.commits).toEqual([['0:200']]);
    await r.stop();
  });

  it('a failed task commits the chunks put before the failure, not the failed one', async () => {
    const pool = new ScriptedPool((_p, first) =>
      first === 100 ? { kind: 'fatal', message: 'downstream refused' } : {},
    );
    const { r, failures, offsets } = await started(pool);
    const fetch = offsets.deliver(0, 0, 350);
    expect(await fetch.settled).toBe('returned');
    expect(failures).toHaveLength(1);
    expect(offsets.commits).toEqual([['0:100']]);
    await r.stop();
  });

  it("a fetch's last commit that fails is not sent again", async () => {
    const pool = new ScriptedPool(() => ({}));
    const { r, offsets } = await started(pool);
    offsets.failCommits = Object.assign(new Error('coordinator moved'), { type: 'NOT_COORDINATOR' });
    const fetch = offsets.deliver(0, 0, 150);
    expect(await fetch.settled).toBe('returned');
    expect(offsets.commits).toEqual([['0:150']]);
    expect(r.counters.snapshot().commitFailures).toBe(1);
    await r.stop();
  });
});

describe('ClassicTaskRunner: a failed task', () => {
  it("ends the other partitions' retry backoffs, so kafkajs's stop does not wait for them", async () => {
    const pool = new ScriptedPool((partition) =>
      partition === 1
        ? { kind: 'retriable', message: 'downstream busy', backoffMs: 20_000 }
        : { kind: 'fatal', message: 'downstream refused' },
    );
    const { r, failures, consumer, offsets } = await started(pool, {
      errors: { retryDelayMaxMs: 30_000 },
      maxInFlightBatches: 2,
    });
    const waiting = offsets.deliver(1, 0, 10);
    await until(() => r.counters.snapshot().putsRetried === 1);
    const failing = offsets.deliver(0, 0, 10);
    expect(await failing.settled).toBe('returned');
    expect(failures).toHaveLength(1);
    // the backoff asked for 20 s: the batch is given back at once, uncommitted
    expect(await within(waiting.settled, 1_000)).toBe('returned');
    await until(() => consumer.calls.includes('left'));
    expect(consumer.calls).toEqual(['stop', 'left']);
    expect(pool.puts).toEqual(['1:0+10', '0:0+10']);
    expect(offsets.commits).toEqual([]);
    await r.stop();
  });
});
