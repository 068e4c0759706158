// errors.retry.timeout is used in share mode (ADR 0004), through the connector file as a user writes it:
// a positive value bounds how long a batch is retried in place, then the batch is RELEASEd and the
// broker redelivers it (delivery count 2); the default, 0, retries in place until the put succeeds
// (delivery count stays 1). The sink fails its first four puts with a RetriableError.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import { REPO_ROOT, createTopic, deleteTopics, produce, testBrokers, uniqueTopic } from './harness/kafka.js';
import { testLogger } from './harness/share.js';
import { lines, sleep, until } from './harness/wait.js';

const RECORDS = 20;
const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/connectors/recording.ts');
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-retry-timeout-'));
const topics: string[] = [];

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

/** Runs the recording sink until every record is written; returns each record's delivery count. */
async function deliveries(prefix: string, extra: Record<string, string>): Promise<Map<string, number>> {
  const topic = uniqueTopic(prefix);
  topics.push(topic);
  await createTopic(topic, { partitions: 1 });
  await produce(
    topic,
    Array.from({ length: RECORDS }, (_, n) => String(n + 1)),
  );
  const file = path.join(dir, `${topic}.txt`);
  const worker = compileWorkerConfig({
    'bootstrap.servers': testBrokers(),
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'pool.threads': '1',
  });
  const config = compileConnectorConfig(
    {
      name: `${topic}-sink`,
      'connector.class': FIXTURE,
      'sink.file': file,
      'fail.retriable.times': '4',
      topics: topic,
      'consumer.override.group.protocol': 'share',
      ...extra,
    },
    worker,
  );
  // a positive value is used, and the note says how its meaning differs from Connect's; none says it is ignored
  const notes = config.warnings.filter((w) => w.includes('errors.retry.timeout'));
  expect(notes.every((w) => w.includes('here it bounds the retries of a put()'))).toBe(true);
  expect(notes).toHaveLength(Number(extra['errors.retry.timeout'] ?? 0) > 0 ? 1 : 0);
  const w = new Worker({ worker, logger: testLogger, connectors: [config] });
  await w.start();
  try {
    await until(
      'every record in the sink file',
      () => new Set(lines(file).map((l) => l.split('\t')[0])).size,
      (n) => n >= RECORDS,
      60_000,
    );
    await sleep(500); // the acknowledgement of the last batch
  } finally {
    await w.stop();
  }
  expect(w.taskFailures).toEqual([]);
  return new Map(lines(file).map((l) => [l.split('\t')[0]!, Number(l.split('\t')[1])]));
}

describe('errors.retry.timeout in share mode', () => {
  it('a positive value releases a batch retried for longer: the broker redelivers it', async () => {
    const seen = await deliveries('retry-timeout-300', { 'errors.retry.timeout': '300' });
    expect(seen.size).toBe(RECORDS);
    expect([...seen.values()].every((d) => d >= 2)).toBe(true);
  });

  it('the default retries in place until the put succeeds: no redelivery', async () => {
    const seen = await deliveries('retry-timeout-0', {});
    expect(seen.size).toBe(RECORDS);
    expect([...seen.values()].every((d) => d === 1)).toBe(true);
  });
});
