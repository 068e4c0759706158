// ClassicTaskRunner's offset commits when a fetch ends early, against a scripted kafkajs consumer: a
// fetch cut into max.poll.records chunks commits once, after its last chunk, so a stop, a task failure
// or a rebalance between chunks must commit what the finished chunks resolved before kafkajs leaves
// or rejoins (kafkajs keeps resolved offsets in memory only). And a failed task must end the retry
// backoffs of its other partitions: kafkajs's stop waits for every eachBatch call. The real-broker
// side is test/integration/classic-stop-commits.test.ts.
import { describe, expect, it, vi } from 'vitest';
import type { ClassicTaskRunnerOptions } from '../../src/actors/classic-task-runner.js';
import {
  deferred,
  FakeDeadLetterQueue,
  Offsets,
  runnerOptions,
  scriptedConsumer,
  ScriptedPool,
  until,
  within,
} from './classic-task-runner-fakes.js';

vi.mock('../../src/kafka/kafkajs/classic-consumer.js', async (original) =>
  (await import('./classic-task-runner-fakes.js')).mockClassicConsumer(await original()),
);
vi.mock('../../src/actors/errors/dead-letter-reporter.js', async (original) =>
  (await import('./classic-task-runner-fakes.js')).mockDeadLetterQueue(await original()),
);

const { ClassicTaskRunner } = await import('../../src/actors/classic-task-runner.js');

async function started(
  pool: ScriptedPool,
  options: Partial<ClassicTaskRunnerOptions> = {},
  dlq?: FakeDeadLetterQueue,
) {
  const scripted = scriptedConsumer({ dlq });
  const { options: o, failures } = runnerOptions(pool, {
    shutdownGraceMs: 1_000,
    ...options,
    consumer: { 'max.poll.records': '100', ...options.consumer },
  });
  const r = new ClassicTaskRunner(o);
  await r.start();
  const consumer = scripted.consumer();
  return { r, failures, consumer, offsets: new Offsets(consumer) };
}

/** What the consumer did once it had joined: how it left the group. */
const afterJoin = (calls: readonly string[]) => calls.slice(calls.indexOf('joined') + 1);

/** The second chunk of a fetch (from offset 100) is refused; the others are written. */
const secondChunkRefused = () =>
  new ScriptedPool((_p, first) => (first === 100 ? { kind: 'fatal', message: 'downstream refused' } : {}));

const dlqErrors = { errors: { tolerance: 'all' as const, deadLetterQueueTopic: 'dlq' } };

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
    expect(afterJoin(consumer.calls)).toEqual(['disconnect', 'left']);
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

  it('a failed task commits the chunks put before the failure, not the failed one, counted released', async () => {
    const { r, failures, offsets } = await started(secondChunkRefused());
    const fetch = offsets.deliver(0, 0, 350);
    expect(await fetch.settled).toBe('returned');
    expect(failures.map((e) => e.message)).toEqual([
      'task failed: downstream refused (errors.tolerance=none; offsets not committed)',
    ]);
    expect(offsets.commits).toEqual([['0:100']]);
    await r.stop();
    // errors.tolerance=none skips nothing: the refused chunk is read again when the task runs again
    expect(r.counters.snapshot()).toMatchObject({
      recordsAccepted: 100,
      recordsRejected: 0,
      recordsReleased: 100,
      recordsAckFailed: 0,
    });
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
    expect(afterJoin(consumer.calls)).toEqual(['stop', 'left']);
    expect(pool.puts).toEqual(['1:0+10', '0:0+10']);
    expect(offsets.commits).toEqual([]);
    await r.stop();
  });
});

describe('ClassicTaskRunner: a stop while a dead-letter write is under way (errors.tolerance=all)', () => {
  it('ends within the grace; the batch whose write is given up is not committed, the chunks before it are', async () => {
    const written = deferred(); // kafkajs retrying the write: it ends long after the grace
    const dlq = new FakeDeadLetterQueue(undefined, written.promise);
    const { r, failures, offsets } = await started(
      secondChunkRefused(),
      { ...dlqErrors, shutdownGraceMs: 100 },
      dlq,
    );
    const fetch = offsets.deliver(0, 0, 350);
    await until(() => dlq.calls.includes('send'));
    const stopAt = Date.now();
    expect(await within(r.stop(), 1_000)).toBeUndefined();
    // the write had its grace before it was given up
    expect(Date.now() - stopAt).toBeGreaterThanOrEqual(100);
    expect(await fetch.settled).toBe('returned');
    expect(offsets.commits).toEqual([['0:100']]);
    expect(failures).toEqual([]);
    expect(r.counters.snapshot()).toMatchObject({
      recordsAccepted: 100,
      recordsReleased: 100,
      recordsRejected: 0,
      recordsAckFailed: 0,
      recordsDeadLettered: 0,
      recordsSkipped: 0,
    });
    expect(dlq.calls).toEqual(['start', 'started', 'send', 'close']);
    // kafkajs reconnects the producer to retry a write: once the write ends, it is closed again
    written.resolve();
    await until(() => dlq.calls.filter((c) => c === 'close').length === 2);
    expect(offsets.commits).toEqual([['0:100']]);
  });

  it('a write that ends within the grace is waited for: dead-lettered, then committed', async () => {
    const written = deferred();
    const dlq = new FakeDeadLetterQueue(undefined, written.promise);
    const { r, offsets } = await started(secondChunkRefused(), dlqErrors, dlq);
    const fetch = offsets.deliver(0, 0, 350);
    await until(() => dlq.calls.includes('send'));
    const stopping = r.stop();
    setTimeout(written.resolve, 50);
    await stopping;
    expect(await fetch.settled).toBe('returned');
    expect(dlq.writes).toEqual([Array.from({ length: 100 }, (_, i) => 100 + i)]);
    expect(offsets.commits).toEqual([['0:200']]);
    expect(r.counters.snapshot()).toMatchObject({
      recordsRejected: 100,
      recordsDeadLettered: 100,
      recordsSkipped: 100,
      recordsReleased: 0,
    });
  });
});

describe('ClassicTaskRunner: a dead-letter write that fails', () => {
  it('fails the task; its batch is not committed, counted released, and read again after it', async () => {
    const refused = Promise.reject(new Error('dead letter topic gone'));
    refused.catch(() => undefined); // awaited by the write, later
    const dlq = new FakeDeadLetterQueue(undefined, refused);
    const pool = new ScriptedPool(() => ({ kind: 'fatal', message: 'downstream refused' }));
    const { r, failures, offsets } = await started(pool, dlqErrors, dlq);
    expect(await offsets.deliver(0, 0, 50).settled).toBe('returned');
    await r.stop();
    expect(failures.map((e) => e.message)).toEqual([
      'task failed: could not write to dead letter topic dlq: dead letter topic gone; offsets not committed',
    ]);
    expect(offsets.commits).toEqual([]);
    expect(r.counters.snapshot()).toMatchObject({
      recordsRejected: 0,
      recordsReleased: 50,
      recordsAckFailed: 0,
      recordsSkipped: 0,
    });
  });
});
