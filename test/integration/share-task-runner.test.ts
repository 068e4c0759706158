// The share-mode runtime core against the real broker: batch machines, the lock supervisor and puts on
// the worker-thread pool, with a recording fixture sink whose writes are counted.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ShareTaskRunner } from '../../src/actors/task/share/share-task-runner.js';
import { LockSupervisor } from '../../src/actors/task/share/supervisor.js';
import { ShareConsumer } from '../../src/kafka/share/share-consumer.js';
import { convertersFromProps } from '../../src/connect/converters/registry.js';
import { PutPool } from '../../src/pool/put-pool.js';
import {
  createTopic,
  deleteTopics,
  produce,
  setGroupConfig,
  testBrokers,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';

const logger = pino({ level: process.env.SHARESINK_TEST_LOG_LEVEL ?? 'warn' });
const FIXTURE = new URL('../fixtures/connectors/recording.ts', import.meta.url);
const topics: string[] = [];
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-runner-'));

interface RunSpec {
  name: string;
  records: number;
  props?: Record<string, string>;
  group?: Record<string, string>;
  putTimeoutMs?: number;
  lockRenewal?: 'auto' | 'off';
  errorsTolerance?: 'none' | 'all';
  retriableAction?: 'retry' | 'release';
  /** Stop once the sink holds this many distinct values. */
  expectWritten: number;
  timeoutMs?: number;
}

async function run(spec: RunSpec) {
  const topic = uniqueTopic(spec.name);
  const group = uniqueGroup(spec.name);
  topics.push(topic);
  const sinkFile = path.join(dir, `${spec.name}.txt`);
  await createTopic(topic, { partitions: 2 });
  await setGroupConfig(group, { 'share.auto.offset.reset': 'earliest', ...spec.group });
  await produce(
    topic,
    Array.from({ length: spec.records }, (_, i) => ({ key: null, value: String(i + 1) })),
  );
  const consumer = new ShareConsumer({
    brokers: testBrokers().split(','),
    groupId: group,
    logger,
    maxRecords: 50,
  });
  const pool = new PutPool({ connectorModule: FIXTURE, threads: 2, logger });
  const supervisor = new LockSupervisor({ logger, putTimeoutMs: spec.putTimeoutMs });
  const runner = new ShareTaskRunner({
    connector: spec.name,
    taskId: 0,
    topics: [topic],
    consumer,
    pool,
    poolTask: {
      id: `${spec.name}-0`,
      props: { 'sink.file': sinkFile, ...spec.props },
      converters: convertersFromProps({
        'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
        'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
      }),
    },
    supervisor,
    logger,
    lockRenewal: spec.lockRenewal,
    retriableAction: spec.retriableAction,
    errorsTolerance: spec.errorsTolerance ?? 'all',
    retryDelayMaxMs: 1000,
  });
  await runner.start();
  const deadline = Date.now() + (spec.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    const written = readLines(sinkFile);
    if (new Set(written.map((l) => l.split('\t')[0])).size >= spec.expectWritten) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  // let the last acknowledgements land before stopping
  while (runner.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await runner.stop();
  await pool.close();
  supervisor.close();
  const lines = readLines(sinkFile);
  const values = lines.map((l) => Number(l.split('\t')[0]));
  const deliveries = lines.map((l) => Number(l.split('\t')[1]));
  return {
    values,
    deliveries,
    counters: runner.counters.snapshot(),
    lock: supervisor.counters,
    consumer: consumer.metrics.snapshot(),
  };
}

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

describe('ShareTaskRunner against Kafka', () => {
  it('lock 5 s, put 8 s: renewal keeps every lock, zero redeliveries', async () => {
    const r = await run({
      name: 'rt-renew',
      records: 20,
      props: { 'put.latency.ms': '8000' },
      group: { 'share.record.lock.duration.ms': '5000' },
      expectWritten: 20,
    });
    expect([...new Set(r.values)].sort((a, b) => a - b)).toEqual(range(20));
    expect(r.values).toHaveLength(20);
    expect(r.deliveries.every((d) => d === 1)).toBe(true);
    expect(r.counters.recordsRedelivered).toBe(0);
    expect(r.lock.batchRenewalsGranted).toBeGreaterThan(0);
    expect(r.lock.batchesLockExpired).toBe(0);
    // issue 12 item 7: renewals in batches and in records, and the consumer's own count, agree
    expect(r.lock.recordsRenewed).toBe(r.consumer.recordsRenewed);
    expect(r.lock.recordsRenewed).toBeGreaterThanOrEqual(r.lock.batchRenewalsGranted);
    expect(r.lock.batchRenewalsRequested).toBe(r.lock.batchRenewalsGranted);
    expect(r.counters.recordsAccepted).toBe(20);
  });

  it('lock 5 s, put 8 s, renewal off: released early, nothing lost', async () => {
    const r = await run({
      name: 'rt-norenew',
      records: 20,
      props: { 'put.latency.ms': '8000', 'latency.first.delivery.only': 'true' },
      group: { 'share.record.lock.duration.ms': '5000' },
      lockRenewal: 'off',
      expectWritten: 20,
    });
    expect([...new Set(r.values)].sort((a, b) => a - b)).toEqual(range(20));
    expect(r.lock.batchesReleasedEarly).toBeGreaterThan(0);
    expect(r.lock.batchRenewalsGranted).toBe(0);
    expect(r.lock.batchesLockExpired).toBe(0);
    expect(r.deliveries.every((d) => d >= 2)).toBe(true);
  });

  it('a sink that fails retriably twice then succeeds writes every record, retried in place', async () => {
    const r = await run({
      name: 'rt-retry',
      records: 30,
      props: { 'fail.retriable.times': '2' },
      expectWritten: 30,
    });
    expect([...new Set(r.values)].sort((a, b) => a - b)).toEqual(range(30));
    expect(r.counters.putsFailed).toBeGreaterThanOrEqual(2);
    // retried with the locks held: no release, so no delivery attempt is spent on a downstream hiccup
    expect(r.counters.recordsReleased).toBe(0);
    expect(r.counters.recordsRedelivered).toBe(0);
    expect(r.deliveries.every((d) => d === 1)).toBe(true);
  });

  it('share.retriable.action=release: a RetriableError RELEASEs the batch and the broker redelivers it', async () => {
    const r = await run({
      name: 'rt-release',
      records: 30,
      props: { 'fail.retriable.times': '2' },
      retriableAction: 'release',
      expectWritten: 30,
    });
    expect([...new Set(r.values)].sort((a, b) => a - b)).toEqual(range(30));
    expect(r.counters.recordsReleased).toBeGreaterThan(0);
    expect(r.counters.recordsRedelivered).toBeGreaterThan(0);
    expect(r.deliveries.some((d) => d >= 2)).toBe(true);
  });

  it('errant records (every 10th) are rejected, the rest accepted', async () => {
    const r = await run({
      name: 'rt-errant',
      records: 50,
      props: { 'errant.every': '10' },
      expectWritten: 45,
    });
    const expected = range(50).filter((v) => v % 10 !== 0);
    expect([...new Set(r.values)].sort((a, b) => a - b)).toEqual(expected);
    expect(r.counters.recordsRejected).toBe(5);
    expect(r.counters.recordsAccepted).toBe(45);
  });

  it('a hung put is aborted at put.timeout.ms and its records released', async () => {
    const r = await run({
      name: 'rt-hung',
      records: 10,
      props: { 'hang.first.delivery': 'true' },
      putTimeoutMs: 2000,
      expectWritten: 10,
    });
    expect([...new Set(r.values)].sort((a, b) => a - b)).toEqual(range(10));
    expect(r.lock.putTimeouts).toBeGreaterThan(0);
    expect(r.counters.putsAborted).toBeGreaterThan(0);
    expect(r.deliveries.every((d) => d >= 2)).toBe(true);
  });
});
