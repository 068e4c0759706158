// Classic mode against the real broker: a kafkajs fetch is put in chunks of max.poll.records and only
// its last chunk commits, so a stop or a rebalance between chunks must commit what the finished chunks
// resolved before kafkajs leaves the group or rejoins (autoCommit is off: kafkajs commits nothing
// then, and forgets resolved offsets). One fetch here is the whole backlog: 3,000 records of ~100 B
// under the default 1 MiB max.partition.fetch.bytes, cut into 30 puts of 100. The same cases with a
// scripted consumer: test/unit/actors/task/classic/classic-task-runner-commits.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ClassicTaskRunnerOptions } from '../../src/actors/task/classic/classic-task-runner.js';
import { classicRunner, readValues, STRINGS } from './harness/classic-runner.js';
import {
  committedAndEndOffsets,
  consumeClassic,
  deleteTopics,
  kafkaClient,
  produce,
  uniqueGroup,
} from './harness/kafka.js';
import { topicsForTest } from './harness/topics.js';

const logger = pino({ level: process.env.SHARESINK_TEST_LOG_LEVEL ?? 'warn' });
const RECORDS = 3_000;
const { newTopic, topicName } = topicsForTest();
const FATAL = new URL('../fixtures/connectors/fatal.ts', import.meta.url);
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-classic-commits-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A one-partition topic holding RECORDS values of 100 characters, each a zero-padded number from 1. */
async function backlog(name: string): Promise<string> {
  const topic = await newTopic(name);
  await produce(
    topic,
    Array.from({ length: RECORDS }, (_, i) => String(i + 1).padStart(100, '0')),
  );
  return topic;
}

/** 200 ms puts of at most 100 records; the default fetch size brings the whole backlog at once. */
function runner(name: string, topic: string, group: string, opts: Partial<ClassicTaskRunnerOptions> = {}) {
  return classicRunner({
    ...{ name, topic, group, logger, dir, converters: STRINGS },
    props: { 'put.latency.ms': '200' },
    options: { consumer: { 'max.poll.records': '100' }, shutdownGraceMs: 1_000, ...opts },
  });
}

async function until(what: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await sleep(50);
  }
}

const committed = async (group: string, topic: string) =>
  (await committedAndEndOffsets(group, topic)).committed[0] ?? -1;

describe('classic commits when a fetch ends between its chunks', () => {
  it('stop() right after a few puts commits every record put: the committed offset is the count', async () => {
    const topic = await backlog('cc-stop');
    const group = uniqueGroup('cc-stop');
    const h = runner('cc-stop', topic, group);
    await h.runner.start();
    await until(() => h.runner.counters.snapshot().recordsAccepted >= 300);
    // the put running now ends within the 1 s grace: it is written, so it must be committed too
    await h.runner.stop();
    await h.pool.close();
    const written = readValues(h.sinkFile);
    const c = h.runner.counters.snapshot();
    expect(c.puts).toBeLessThan(RECORDS / 100); // the stop came mid-fetch
    expect(written).toEqual(Array.from({ length: written.length }, (_, i) => i + 1));
    expect(c.recordsAccepted).toBe(written.length);
    expect(await committed(group, topic)).toBe(written.length);
    expect(c.commitFailures).toBe(0);
  }, 20_000);

  it('a second member joins mid-fetch: the first commits what it put before it rejoins, no duplicates', async () => {
    const topic = await backlog('cc-rebalance');
    const group = uniqueGroup('cc-rebalance');
    // the first member hears of the rebalance at its next chunk (a heartbeat is due every 0.5 s)
    const consumer = { 'max.poll.records': '100', 'heartbeat.interval.ms': '500' };
    const a = runner('cc-rebalance-a', topic, group, { consumer });
    await a.runner.start();
    await until(() => a.runner.counters.snapshot().recordsAccepted >= 300);
    const b = runner('cc-rebalance-b', topic, group, { consumer });
    const joining = Date.now();
    await b.runner.start();
    const joinMs = Date.now() - joining;
    const putByA = a.runner.counters.snapshot().recordsAccepted;
    await until(async () => (await committed(group, topic)) === RECORDS);
    const aAssignment = a.runner.assignment!;
    await Promise.all([a.runner.stop(), b.runner.stop()]);
    await Promise.all([a.pool.close(), b.pool.close()]);
    // the rebalance ended the first member's fetch: it did not wait for the 27 puts left in it
    expect(putByA).toBeLessThan(RECORDS);
    expect(joinMs).toBeLessThan(3_000);
    expect(aAssignment.version).toBeGreaterThanOrEqual(2);
    const all = [...readValues(a.sinkFile), ...readValues(b.sinkFile)];
    expect(new Set(all).size).toBe(RECORDS);
    // before the rejoin, the first member committed every chunk it had put: nobody puts them again
    expect(all.length - RECORDS).toBe(0);
    expect(a.runner.counters.snapshot().commitFailures).toBe(0);
    process.stdout.write(`rebalance: second member joined in ${joinMs} ms, first had put ${putByA}\n`);
  }, 20_000);

  it('a fetch of short puts that outlasts session.timeout.ms keeps the membership and commits once', async () => {
    const topic = await backlog('cc-session');
    const group = uniqueGroup('cc-session');
    // 30 puts of 200 ms (6 s) in one fetch, a 3 s session: a heartbeat timer of 500 ms never fires
    // within a 200 ms put, so the member lives on the heartbeats between chunks
    const consumer = {
      'max.poll.records': '100',
      'session.timeout.ms': '3000',
      'heartbeat.interval.ms': '1000',
    };
    const h = runner('cc-session', topic, group, { consumer });
    await h.runner.start();
    await until(async () => (await committed(group, topic)) === RECORDS);
    await h.runner.stop();
    await h.pool.close();
    const c = h.runner.counters.snapshot();
    expect(readValues(h.sinkFile)).toHaveLength(RECORDS);
    expect(c.commitFailures).toBe(0);
    expect(h.runner.assignment?.version).toBe(1);
  }, 20_000);
});

describe('a stop while a dead-letter write retries (errors.tolerance=all)', () => {
  async function topicGone(topic: string): Promise<boolean> {
    const admin = kafkaClient('sharesink-test-admin').admin();
    await admin.connect();
    try {
      return !(await admin.listTopics()).includes(topic);
    } finally {
      await admin.disconnect();
    }
  }

  it('ends within the grace, commits none of that batch, and the next runner dead-letters it', async () => {
    const topic = await newTopic('cc-dlq-stop');
    const dlq = topicName('cc-dlq-stop-dlq');
    const group = uniqueGroup('cc-dlq-stop');
    // every put fails: each batch goes to the dead-letter topic before it is committed
    const spec = { topic, group, logger, module: FATAL, converters: STRINGS };
    const errors = { tolerance: 'all', deadLetterQueueTopic: dlq } as const;
    const first = classicRunner({
      ...spec,
      name: 'cc-dlq-stop-a',
      options: { errors, shutdownGraceMs: 1_000 },
    });
    await first.runner.start(); // creates the dead-letter topic
    // gone from under the started producer: kafkajs retries the write (UNKNOWN_TOPIC_OR_PARTITION) for ~8 s
    await deleteTopics([dlq]);
    await until(() => topicGone(dlq));
    const values = Array.from({ length: 10 }, (_, i) => String(i + 1));
    await produce(topic, values);
    // the put has failed and the batch is still in flight: its dead-letter write is under way
    await until(() => first.runner.counters.putsFailed > 0 && first.runner.inFlight > 0);
    await sleep(500);
    const stopAt = Date.now();
    await first.runner.stop();
    const stopMs = Date.now() - stopAt;
    await first.pool.close();
    // the grace, then leaving the group
    expect(stopMs).toBeLessThan(1_000 + 1_500);
    expect(await committed(group, topic)).toBe(-1);
    expect(first.failures).toEqual([]);
    expect(first.runner.counters.snapshot()).toMatchObject({
      recordsAcquired: 10,
      recordsReleased: 10,
      recordsRejected: 0,
      recordsDeadLettered: 0,
      commits: 0,
    });

    // at least once: the records not committed are read again, and dead-lettered this time
    const second = classicRunner({ ...spec, name: 'cc-dlq-stop-b', options: { errors } });
    await second.runner.start(); // creates the dead-letter topic again
    await until(async () => (await committed(group, topic)) === values.length);
    await second.runner.stop();
    await second.pool.close();
    expect(second.runner.counters.snapshot()).toMatchObject({ recordsDeadLettered: 10, recordsRejected: 10 });
    // the first runner's write, given up on, may still land once the topic is back: then twice
    const dead = await consumeClassic(dlq, values.length, { timeoutMs: 30_000 });
    expect(new Set(dead.map((r) => r.value))).toEqual(new Set(values));
    process.stdout.write(`dlq stop: stop() took ${stopMs} ms with a 1000 ms grace\n`);
  }, 60_000);
});
