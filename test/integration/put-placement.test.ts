// put.placement on a real broker: with `event-loop` a share connector's puts run on the main thread (no
// pool threads), every record is put and accepted once, and the worker stops cleanly; the same in
// classic mode. The pool (the default) is what every other integration test runs.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import { readEvents } from '../fixtures/connectors/shared.js';
import { startCli } from './harness/cli.js';
import { createTopic, deleteTopics, produce, REPO_ROOT, testBrokers, uniqueTopic } from './harness/kafka.js';
import { testLogger } from './harness/share.js';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/connectors/waiting.ts');
const RECORDS = 2000;
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-placement-'));
const topics: string[] = [];

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

async function runEventLoop(mode: 'share' | 'classic') {
  const topic = uniqueTopic(`placement-${mode}`);
  topics.push(topic);
  await createTopic(topic, { partitions: 2 });
  for (let from = 0; from < RECORDS; from += 200)
    await produce(
      topic,
      Array.from({ length: 200 }, (_, i) => ({ key: null, value: String(from + i) })),
    );
  const events = path.join(dir, `${topic}.jsonl`);
  const worker = compileWorkerConfig({
    'bootstrap.servers': testBrokers(),
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
  });
  const connector = compileConnectorConfig(
    {
      name: topic,
      'connector.class': FIXTURE,
      topics: topic,
      'tasks.max': '3',
      'consumer.override.group.protocol': mode,
      'consumer.override.auto.offset.reset': 'earliest',
      'share.group.share.auto.offset.reset': 'earliest',
      'put.placement': 'event-loop',
      'wait.ms': '5',
      'events.file': events,
    },
    worker,
  );
  expect(connector.putPlacement).toBe('event-loop');
  const w = new Worker({ worker, logger: testLogger, connectors: [connector] });
  await w.start();
  const written = () =>
    readEvents(events)
      .filter((e) => e.event === 'end')
      .reduce((n, e) => n + (e['count'] as number), 0);
  const deadline = Date.now() + 60_000;
  // share mode: until every record is accepted (the acknowledgement follows the put)
  const done = () =>
    mode === 'share' ? w.summary().connectors[0]!.counters.recordsAccepted >= RECORDS : written() >= RECORDS;
  while (!done() && Date.now() < deadline && w.taskFailures.length === 0)
    await new Promise((r) => setTimeout(r, 100));
  const summaryBefore = w.summary();
  const poolThreads = w.connector(topic)!.poolThreads;
  const stopBegan = Date.now();
  await w.stop();
  return {
    w,
    events: readEvents(events),
    summary: summaryBefore,
    poolThreads,
    stopMs: Date.now() - stopBegan,
  };
}

describe('put.placement=event-loop', () => {
  it('share mode: every record is put on the main thread and accepted; no pool threads; a clean stop', async () => {
    const { w, events, summary, poolThreads, stopMs } = await runEventLoop('share');
    expect(w.taskFailures).toEqual([]);
    const ends = events.filter((e) => e.event === 'end');
    expect(ends.reduce((n, e) => n + (e['count'] as number), 0)).toBeGreaterThanOrEqual(RECORDS);
    expect(new Set(events.map((e) => e.thread))).toEqual(new Set([0]));
    expect(poolThreads).toBe(0);
    expect(summary.connectors[0]!.counters.recordsAccepted).toBe(RECORDS);
    // each of the three tasks started its own instance on the main thread, and each was stopped
    expect(events.filter((e) => e.event === 'start').length).toBe(
      events.filter((e) => e.event === 'stop').length,
    );
    expect(stopMs).toBeLessThan(10_000);
  });

  it('classic mode: every record is put on the main thread and committed', async () => {
    const { w, events } = await runEventLoop('classic');
    expect(w.taskFailures).toEqual([]);
    const values = events.filter((e) => e.event === 'end').reduce((n, e) => n + (e['count'] as number), 0);
    expect(values).toBeGreaterThanOrEqual(RECORDS);
    expect(new Set(events.map((e) => e.thread))).toEqual(new Set([0]));
  });
});

describe('put.placement in sharesink validate', () => {
  it('says where the puts run, and names the key and the accepted values of a bad one', async () => {
    const workerFile = path.join(dir, 'worker.properties');
    writeFileSync(workerFile, `bootstrap.servers=${testBrokers()}\n`);
    const connector = (name: string, placement: string) => {
      const file = path.join(dir, `${name}.properties`);
      writeFileSync(
        file,
        [`name=${name}`, 'connector.class=NoopSink', 'topics=t', `put.placement=${placement}`].join('\n'),
      );
      return file;
    };
    const ok = startCli(['validate', workerFile, connector('on-loop', 'event-loop')]);
    expect(await ok.exited).toBe(0);
    expect(ok.stdout()).toContain(
      'on-loop: valid (classic mode, group connect-on-loop, 1 task(s), puts on the event loop)',
    );
    const bad = startCli(['validate', workerFile, connector('inline', 'inline')]);
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toContain(
      'put.placement: "inline" is not one of the accepted values; accepted: a string, one of pool, event-loop',
    );
  });
});
