// Classic mode against the real broker: a kafkajs fetch is put in chunks of max.poll.records and only
// its last chunk commits, so a stop or a rebalance between chunks must commit what the finished chunks
// resolved before kafkajs leaves the group or rejoins (autoCommit is off: kafkajs commits nothing
// then, and forgets resolved offsets). One fetch here is the whole backlog: 3,000 records of ~100 B
// under the default 1 MiB max.partition.fetch.bytes, cut into 30 puts of 100. The same cases with a
// scripted consumer: test/unit/classic-task-runner-commits.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClassicTaskRunnerOptions } from '../../src/actors/classic-task-runner.js';
import { classicRunner, readValues, STRINGS } from './harness/classic-runner.js';
import {
  committedAndEndOffsets,
  createTopic,
  deleteTopics,
  produce,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';

const logger = pino({ level: process.env.SHARESINK_TEST_LOG_LEVEL ?? 'warn' });
const RECORDS = 3_000;
const topics: string[] = [];
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-classic-commits-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

/** A one-partition topic holding RECORDS values of 100 characters, each a zero-padded number from 1. */
async function backlog(name: string): Promise<string> {
  const topic = uniqueTopic(name);
  topics.push(topic);
  await createTopic(topic, { partitions: 1 });
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
