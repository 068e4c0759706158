// What a connector sees of a record's time, end to end through the Worker, in both modes: on a topic
// with message.timestamp.type=LogAppendTime the broker overwrites the producer's timestamp with its
// append time and marks the batch so; a CreateTime topic keeps the producer's. The producer sets a
// timestamp long past, so the two clocks cannot be confused.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import type { TimestampLine } from '../fixtures/connectors/timestamps.js';
import {
  createTopic,
  deleteTopics,
  kafkaClient,
  testBrokers,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';

const logger = pino({ level: process.env.SHARESINK_TEST_LOG_LEVEL ?? 'warn' });
const CONNECTOR = new URL('../fixtures/connectors/timestamps.ts', import.meta.url).href;
const RECORDS = 20;
/** 2001-09-09: what the producer stamps; no broker clock reads this. */
const PRODUCER_TIME = 1_000_000_000_000;
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-timestamps-'));
const topics: string[] = [];

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

async function produceStamped(topic: string): Promise<void> {
  const producer = kafkaClient('sharesink-test-producer').producer();
  await producer.connect();
  try {
    const messages = Array.from({ length: RECORDS }, (_, i) => ({
      value: String(i),
      timestamp: String(PRODUCER_TIME + i),
    }));
    await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

function readLines(file: string): TimestampLine[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as TimestampLine);
  } catch {
    return [];
  }
}

/** Runs one worker with a connector per topic until each file holds every record. */
async function sinkBoth(
  mode: 'share' | 'classic',
  byType: Record<'append' | 'create', { topic: string; file: string }>,
): Promise<void> {
  const worker = compileWorkerConfig({ 'bootstrap.servers': testBrokers(), 'pool.threads': '1' });
  const connectors = Object.entries(byType).map(([kind, { topic, file }]) =>
    compileConnectorConfig(
      {
        name: `ts-${mode}-${kind}`,
        'connector.class': CONNECTOR,
        topics: topic,
        'tasks.max': '1',
        'records.file': file,
        'consumer.override.group.protocol': mode,
        'consumer.override.group.id': uniqueGroup(`ts-${mode}-${kind}`),
        ...(mode === 'share'
          ? { 'share.group.share.auto.offset.reset': 'earliest' }
          : { 'consumer.override.auto.offset.reset': 'earliest' }),
        'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
      },
      worker,
    ),
  );
  const w = new Worker({ worker, connectors, logger });
  await w.start();
  try {
    const deadline = Date.now() + 60_000;
    const files = Object.values(byType).map((t) => t.file);
    while (files.some((f) => readLines(f).length < RECORDS) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
  } finally {
    await w.stop();
  }
}

describe.each(['share', 'classic'] as const)('%s mode: SinkRecord timestamps', (mode) => {
  it('LogAppendTime topic: the broker’s append time, typed LogAppendTime; CreateTime: the producer’s', async () => {
    const append = { topic: uniqueTopic(`ts-append-${mode}`), file: path.join(dir, `${mode}-append.jsonl`) };
    const create = { topic: uniqueTopic(`ts-create-${mode}`), file: path.join(dir, `${mode}-create.jsonl`) };
    topics.push(append.topic, create.topic);
    await createTopic(append.topic, { configs: { 'message.timestamp.type': 'LogAppendTime' } });
    await createTopic(create.topic, { configs: { 'message.timestamp.type': 'CreateTime' } });
    const before = Date.now();
    await produceStamped(append.topic);
    await produceStamped(create.topic);
    const after = Date.now();

    await sinkBoth(mode, { append, create });

    const appended = readLines(append.file);
    expect(appended.map((l) => l.value).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: RECORDS }, (_, i) => String(i)),
    );
    for (const l of appended) {
      expect(l.timestampType, `record ${l.value}`).toBe('LogAppendTime');
      // the broker's clock at append (same host as ours), not the producer's 2001 stamp
      expect(l.timestamp!).toBeGreaterThanOrEqual(before);
      expect(l.timestamp!).toBeLessThanOrEqual(after);
    }
    // one produce call is one batch: the broker stamps it once, so every record has the same time
    expect(new Set(appended.map((l) => l.timestamp)).size).toBe(1);

    const created = readLines(create.file);
    expect(created).toHaveLength(RECORDS);
    for (const l of created) {
      expect(l.timestampType, `record ${l.value}`).toBe('CreateTime');
      expect(l.timestamp).toBe(PRODUCER_TIME + Number(l.value));
    }
  });
});
