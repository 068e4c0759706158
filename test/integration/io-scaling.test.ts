// More share tasks than partitions make an I/O-bound sink faster (issue 11): the same backlog, the same
// sink (each put waits on a timer, as a database or an endpoint would), 1 task and then 8 tasks on a
// 2-partition topic, with the default pool settings. The drain window is timed from the first put to
// the last, so start-up does not count; the assertion is a ratio with a wide margin, never a time.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import { readEvents } from '../fixtures/connectors/shared.js';
import { createTopic, deleteTopics, produce, REPO_ROOT, testBrokers, uniqueTopic } from './harness/kafka.js';
import { testLogger } from './harness/share.js';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/connectors/waiting.ts');
const RECORDS = 16_000;
const PUT_MS = 300;
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-io-'));
const topics: string[] = [];

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

/** Drains a fresh copy of the backlog with `tasks` share tasks; returns the put window and put count. */
async function drain(
  tasks: number,
  placement?: 'event-loop',
): Promise<{ windowMs: number; puts: number; records: number }> {
  const topic = uniqueTopic(`io-${tasks}x${placement === undefined ? '' : `-${placement}`}`);
  topics.push(topic);
  await createTopic(topic, { partitions: 2 });
  for (let from = 0; from < RECORDS; from += 2000)
    await produce(
      topic,
      Array.from({ length: 2000 }, (_, i) => ({ key: null, value: String(from + i) })),
    );
  const events = path.join(dir, `${topic}.jsonl`);
  // no pool, inflight or poll settings: what a user gets
  const worker = compileWorkerConfig({
    'bootstrap.servers': testBrokers(),
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
  });
  const w = new Worker({
    worker,
    logger: testLogger,
    connectors: [
      compileConnectorConfig(
        {
          name: topic,
          'connector.class': FIXTURE,
          topics: topic,
          'tasks.max': String(tasks),
          'consumer.override.group.protocol': 'share',
          'wait.ms': String(PUT_MS),
          'events.file': events,
          ...(placement === undefined ? {} : { 'put.placement': placement }),
        },
        worker,
      ),
    ],
  });
  const ended = () => readEvents(events).filter((e) => e.event === 'end');
  const written = () => ended().reduce((n, e) => n + (e['count'] as number), 0);
  await w.start();
  const deadline = Date.now() + 90_000;
  while (written() < RECORDS && Date.now() < deadline && w.taskFailures.length === 0)
    await new Promise((r) => setTimeout(r, 100));
  await w.stop();
  expect(w.taskFailures.map((f) => JSON.stringify(f).slice(0, 400))).toEqual([]);
  const all = readEvents(events);
  const begins = all.filter((e) => e.event === 'begin').map((e) => e['at'] as number);
  const ends = ended().map((e) => e['at'] as number);
  return { windowMs: Math.max(...ends) - Math.min(...begins), puts: ends.length, records: written() };
}

describe('I/O-bound sink, default settings', () => {
  it('8 share tasks on 2 partitions drain a backlog in clearly less time than 1 task', async () => {
    await expectScaling();
  }, 240_000);

  it('the same with put.placement=event-loop: the puts of 8 tasks wait side by side on the main thread', async () => {
    await expectScaling('event-loop');
  }, 240_000);
});

async function expectScaling(placement?: 'event-loop'): Promise<void> {
  const one = await drain(1, placement);
  const eight = await drain(8, placement);
  console.info(
    `io-scaling (${placement ?? 'pool'}): 1 task ${one.windowMs} ms (${one.puts} puts), 8 tasks ${eight.windowMs} ms (${eight.puts} puts)`,
  );
  expect(one.records).toBeGreaterThanOrEqual(RECORDS);
  expect(eight.records).toBeGreaterThanOrEqual(RECORDS);
  // puts under a backlog approach max.poll.records (500): fewer than 2× the minimum number of puts
  expect(one.puts).toBeLessThan((2 * RECORDS) / 500);
  // 8 tasks hold 8× the puts in flight; the margin leaves room for a loaded 2-core machine
  expect(eight.windowMs).toBeLessThan(one.windowMs / 2);
}
