// KafkaSink against the real broker: records put through the task are read back from the target
// topic with a kafkajs consumer, byte for byte.
import { afterAll, describe, expect, it } from 'vitest';
import type { IHeaders } from 'kafkajs';
import {
  ConnectHeaders,
  convertBatch,
  convertersFromProps,
  createConverters,
  isRetriableError,
  loadConnectorModule,
  resolveConnectorModule,
  SinkRecord,
  type RawRecord,
} from '../../src/connect/index.js';
import { KafkaSinkConnector, KafkaSinkTask } from '../../src/sinks/kafka/index.js';
import {
  createTopic,
  deleteTopics,
  kafkaClient,
  testBrokers,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';
import { testTaskContext, type ErrantReport } from '../../src/testing/task-context.js';

type Errant = ErrantReport;

const tasks: KafkaSinkTask[] = [];
const topics: string[] = [];

afterAll(async () => {
  await Promise.all(tasks.map((t) => t.stop()));
  if (topics.length > 0) await deleteTopics(topics);
});

async function start(props: Record<string, string>): Promise<{ task: KafkaSinkTask; errant: Errant[] }> {
  const task = new KafkaSinkTask();
  const { context, errant } = testTaskContext(props);
  task.initialize(context);
  await task.start(props);
  tasks.push(task);
  return { task, errant };
}

async function target(name: string, options: Parameters<typeof createTopic>[1] = {}): Promise<string> {
  await createTopic(name, options);
  topics.push(name);
  return name;
}

interface Read {
  partition: number;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: string;
  headers: IHeaders;
}

/** Reads `count` messages from the start of `topic`, as raw bytes. */
async function readBack(topic: string, count: number): Promise<Read[]> {
  const consumer = kafkaClient('sink-kafka-reader').consumer({ groupId: uniqueGroup('sink-kafka') });
  const seen: Read[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${seen.length}/${count} from ${topic}`)), 30_000);
      consumer
        .run({
          eachMessage: async ({ partition, message }) => {
            const { key, value, timestamp, headers = {} } = message;
            seen.push({ partition, key, value, timestamp, headers });
            if (seen.length >= count) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

describe('KafkaSink against Kafka', () => {
  it('raw bytes converted by ByteArrayConverter (keys, values and headers) arrive with keys, values, headers and timestamps intact', async () => {
    const source = uniqueTopic('sink-kafka-src');
    const copy = await target(`${source}.copy`, { partitions: 3 });
    const { task, errant } = await start({ 'bootstrap.servers': testBrokers(), topic: '${topic}.copy' });
    const binary = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a]);
    const raws: RawRecord[] = Array.from({ length: 30 }, (_, i) => ({
      topic: source,
      partition: i % 4,
      offset: i,
      timestamp: 1_700_000_000_000 + i,
      timestampType: 'CreateTime',
      key: i % 10 === 9 ? null : Buffer.concat([Buffer.from(`k${i}`), binary]),
      value:
        i === 5
          ? null
          : i % 2 === 0
            ? Buffer.from(JSON.stringify({ i }))
            : Buffer.concat([binary, Buffer.from([i])]),
      headers: [
        { key: 'trace-id', value: Buffer.from(`trace-${i}`) },
        { key: 'attempt', value: Buffer.from(String(i)) },
        { key: 'tag', value: Buffer.from('a') },
        { key: 'tag', value: Buffer.from('b') },
        { key: 'empty', value: null },
        // forms SimpleHeaderConverter would normalise (7, true, compact JSON)
        { key: 'padded', value: Buffer.from('007') },
        { key: 'flag', value: Buffer.from('TRUE') },
        { key: 'doc', value: Buffer.from('{ "a": 1 }') },
      ],
    }));
    const converters = await createConverters(
      convertersFromProps({
        'key.converter': 'ByteArrayConverter',
        'value.converter': 'ByteArrayConverter',
        'header.converter': 'ByteArrayConverter',
      }),
    );
    const { records, failures } = convertBatch(raws, converters);
    expect(failures).toEqual([]);
    await task.put(records);
    expect(errant).toEqual([]);

    const read = await readBack(copy, raws.length);
    const byTrace = new Map(read.map((r) => [String(r.headers['trace-id']), r]));
    for (const raw of raws) {
      const got = byTrace.get(`trace-${raw.offset}`)!;
      expect(got.key).toEqual(raw.key);
      expect(got.value).toEqual(raw.value);
      expect(got.timestamp).toBe(String(raw.timestamp));
      expect(got.headers['attempt']).toEqual(Buffer.from(String(raw.offset)));
      expect(got.headers['tag']).toEqual([Buffer.from('a'), Buffer.from('b')]);
      // kafkajs cannot produce a null header value; it arrives empty (documented)
      expect(got.headers['empty']).toEqual(Buffer.alloc(0));
      expect(got.headers['padded']).toEqual(Buffer.from('007'));
      expect(got.headers['flag']).toEqual(Buffer.from('TRUE'));
      expect(got.headers['doc']).toEqual(Buffer.from('{ "a": 1 }'));
    }
    expect(byTrace.size).toBe(30);
  });

  it('objects become JSON, strings UTF-8; partition.preserve keeps partitions; ${topic} routes per source topic', async () => {
    const [a, b] = [uniqueTopic('sink-kafka-a'), uniqueTopic('sink-kafka-b')];
    const [toA, toB] = [
      await target(`${a}-out`, { partitions: 3 }),
      await target(`${b}-out`, { partitions: 3 }),
    ];
    const { task } = await start({
      'consumer.override.bootstrap.servers': testBrokers(),
      topic: '${topic}-out',
      'partition.preserve': 'true',
    });
    const rec = (topic: string, partition: number, key: unknown, value: unknown, headerValue: unknown) =>
      new SinkRecord({
        topic,
        partition,
        offset: 0,
        timestamp: null,
        timestampType: 'NoTimestampType',
        key,
        value,
        headers: new ConnectHeaders([{ key: 'h', value: headerValue, schema: undefined }]),
      });
    await task.put([
      rec(a, 2, 'clé', { n: 1, bytes: Buffer.from('hi'), list: [1, 2] }, Buffer.from([0xff, 0x00])),
      rec(b, 1, 42, 'plain ✓', { nested: true }),
    ]);
    const [gotA] = await readBack(toA, 1);
    const [gotB] = await readBack(toB, 1);
    expect(gotA).toMatchObject({ partition: 2, key: Buffer.from('clé') });
    expect(JSON.parse(gotA!.value!.toString())).toEqual({ n: 1, bytes: 'aGk=', list: [1, 2] });
    expect(gotA!.headers['h']).toEqual(Buffer.from([0xff, 0x00]));
    expect(gotB).toMatchObject({ partition: 1, key: Buffer.from('42'), value: Buffer.from('plain ✓') });
    expect(gotB!.headers['h']).toEqual(Buffer.from('{"nested":true}'));
  });

  it('a record the broker refuses as too large is reported errant; the others are written', async () => {
    const source = uniqueTopic('sink-kafka-big');
    const out = await target(`${source}-out`, { configs: { 'max.message.bytes': '2000' } });
    const { task, errant } = await start({ 'bootstrap.servers': testBrokers(), topic: out });
    const records = Array.from(
      { length: 5 },
      (_, i) =>
        new SinkRecord({
          topic: source,
          partition: 0,
          offset: 10 + i,
          timestamp: 1_700_000_000_000,
          timestampType: 'CreateTime',
          key: `k${i}`,
          value: i === 3 ? 'x'.repeat(5000) : `v${i}`,
        }),
    );
    await task.put(records);
    expect(errant.map((e) => e.record.offset)).toEqual([13]);
    expect(errant[0]!.message).toMatch(/too large|larger than/i);
    const read = await readBack(out, 4);
    expect(read.map((r) => r.value!.toString()).sort()).toEqual(['v0', 'v1', 'v2', 'v4']);
  });

  it('an unreachable target cluster is a RetriableError, not a crash', async () => {
    const { task } = await start({ 'bootstrap.servers': '127.0.0.1:1', topic: 'nowhere', retries: '1' });
    const record = new SinkRecord({
      topic: 't',
      partition: 0,
      offset: 0,
      timestamp: null,
      timestampType: 'NoTimestampType',
      key: null,
      value: 'v',
    });
    const error: unknown = await task.put([record]).catch((e: unknown) => e);
    expect(isRetriableError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'SHARESINK_RETRIABLE' });
  });

  it('connector.class=KafkaSink resolves to this connector, which requires a target cluster', async () => {
    const module = await loadConnectorModule(resolveConnectorModule('KafkaSink'));
    expect(module.task).toBe(KafkaSinkTask);
    const connector = new KafkaSinkConnector();
    expect([...connector.validate({ topic: 'x' }).keys()]).toEqual(['bootstrap.servers']);
    expect(connector.validate({ topic: 'x', 'consumer.override.bootstrap.servers': 'h:9092' }).size).toBe(0);
  });
});
