// What ShareConsumer makes of real record batches: batches the Java producer compressed with every
// codec, and transactional batches with commit/abort markers under share.isolation.level.
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { ShareConsumer, type ShareRecord } from '../../src/kafka/share/share-consumer.js';
import {
  Tools,
  createTopic,
  deleteTopics,
  produce,
  runJavaToolOk,
  setGroupConfig,
  testBrokers,
  uniqueGroup,
  uniqueName,
  uniqueTopic,
} from './harness/kafka.js';
import { javaProducedValue, pollFor, runJavaProducer, shareConsumers, testLogger } from './harness/share.js';
import { until } from './harness/wait.js';

const logger = testLogger;
const consumers = shareConsumers();
const topics: string[] = [];

const consumer = (groupId: string): ShareConsumer => consumers.make(groupId);

afterAll(async () => {
  await consumers.closeAll();
  if (topics.length > 0) await deleteTopics(topics);
});

/** Polls until `want` records came, accepting each batch; fails on any acknowledgement error. */
async function consumeAccepting(c: ShareConsumer, want: number, timeoutMs: number): Promise<ShareRecord[]> {
  const got: ShareRecord[] = [];
  const deadline = Date.now() + timeoutMs;
  while (got.length < want && Date.now() < deadline) {
    const batch = await c.poll({ maxWaitMs: 500 });
    if (batch.length === 0) continue;
    got.push(...batch);
    const [results] = await Promise.all([c.acknowledge(batch, 'accept'), c.commit()]);
    for (const r of results) expect(r.error).toBeNull();
  }
  return got;
}

/** START-OFFSET and LAG of partition 0 as `kafka-share-groups --describe --offsets` prints them. */
async function shareGroupOffsets(group: string, topic: string): Promise<{ start: number; lag: number }> {
  const { stdout } = await runJavaToolOk(Tools.ShareGroupCommand, [
    '--bootstrap-server',
    testBrokers(),
    '--describe',
    '--offsets',
    '--group',
    group,
  ]);
  // 4.4.0 prints: GROUP TOPIC PARTITION START-OFFSET LAG
  const header = stdout.split('\n').find((l) => l.includes('START-OFFSET'));
  const row = stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((cols) => cols[0] === group && cols[1] === topic && cols[2] === '0');
  if (!header || !row) throw new Error(`unexpected ShareGroupCommand output:\n${stdout}`);
  const names = header.trim().split(/\s+/);
  return {
    start: Number(row[names.indexOf('START-OFFSET')]),
    lag: Number(row[names.indexOf('LAG')]),
  };
}

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const PER_CODEC = 40;

describe('ShareConsumer decodes real record batches', () => {
  const topic = uniqueTopic('sr-codecs');
  const total = CODECS.length * PER_CODEC;
  let produced: Promise<void> | undefined;

  /** One JVM: 40 records per codec to partition 0, in codec order (offsets 0-39 none, 40-79 gzip, …). */
  function produceCodecs(): Promise<void> {
    produced ??= (async () => {
      topics.push(topic);
      await createTopic(topic);
      const stats = await runJavaProducer({ topic, codecs: CODECS, count: PER_CODEC });
      for (const codec of CODECS) {
        const s = stats.get(codec)!;
        // the producer itself says it batched (and compressed, except for none)
        expect(s['record-send-total']).toBe(PER_CODEC);
        expect(s['records-per-request-avg'], codec).toBeGreaterThan(1);
        if (codec === 'none') expect(s['compression-rate-avg']).toBe(1);
        else expect(s['compression-rate-avg'], codec).toBeLessThan(0.5);
      }
    })();
    return produced;
  }

  function expectExact(got: readonly ShareRecord[]): void {
    expect(got).toHaveLength(total);
    expect(got.map((r) => r.offset)).toEqual(Array.from({ length: total }, (_, i) => i));
    got.forEach((r, n) => {
      const codec = CODECS[Math.floor(n / PER_CODEC)]!;
      const i = n % PER_CODEC;
      expect(r.value?.toString()).toBe(javaProducedValue(codec, i));
      expect(r.key?.toString()).toBe(`k${i}`);
      expect(r.headers.map((h) => [h.key, h.value?.toString()])).toEqual([['i', String(i)]]);
      expect(r.deliveryCount).toBe(1);
    });
  }

  it('decodes Java-produced batches of every compression codec, values and counts exact', async () => {
    await produceCodecs();
    const group = uniqueGroup('sr-codecs');
    await setGroupConfig(group, { 'share.auto.offset.reset': 'earliest' });
    const c = consumer(group);
    await c.subscribe([topic]);
    expectExact(await consumeAccepting(c, total, 30_000));
    expect(c.metrics.recordsAccepted).toBe(total);
    expect(c.metrics.gapOffsets).toBe(0);
    expect(await pollFor(c, 1500)).toEqual([]);
  });

  it('record_limit acquires parts of compressed batches; only the acquired records come out', async () => {
    await produceCodecs();
    const group = uniqueGroup('sr-codecs-part');
    await setGroupConfig(group, { 'share.auto.offset.reset': 'earliest' });
    const c = new ShareConsumer({
      brokers: testBrokers().split(','),
      groupId: group,
      logger,
      clientId: 'sharesink-it',
      maxRecords: 7,
      acquireMode: 'record_limit',
    });
    consumers.track(c);
    await c.subscribe([topic]);
    const sizes: number[] = [];
    const got: ShareRecord[] = [];
    const deadline = Date.now() + 30_000;
    while (got.length < total && Date.now() < deadline) {
      const batch = await c.poll({ maxWaitMs: 500 });
      if (batch.length === 0) continue;
      sizes.push(batch.length);
      got.push(...batch);
      const [results] = await Promise.all([c.acknowledge(batch, 'accept'), c.commit()]);
      for (const r of results) expect(r.error).toBeNull();
    }
    console.log(`[share-records] record_limit(7): ${sizes.length} polls, sizes ${sizes.join(',')}`);
    // each 40-record batch (one per codec) was handed out 7 records at a time
    expect(Math.max(...sizes)).toBeLessThanOrEqual(7);
    expect(sizes.length).toBeGreaterThanOrEqual(Math.ceil(total / 7));
    expectExact(got);
    expect(c.metrics.gapOffsets).toBe(0);
  });
});

describe('ShareConsumer and transactions', () => {
  // offsets: 0-4 committed (c0-c4), 5 COMMIT marker, 6-10 aborted (a0-a4), 11 ABORT marker,
  // 12-16 committed (c5-c9), 17 COMMIT marker, 18-22 plain records (p0-p4)
  const topic = uniqueTopic('sr-txn');
  const committed = Array.from({ length: 10 }, (_, i) => `c${i}`);
  const aborted = Array.from({ length: 5 }, (_, i) => `a${i}`);
  const plain = Array.from({ length: 5 }, (_, i) => `p${i}`);
  const endOffset = 23;
  let produced: Promise<void> | undefined;

  function produceTransactions(): Promise<void> {
    produced ??= (async () => {
      topics.push(topic);
      await createTopic(topic);
      // kafkajs logs (and retries) CONCURRENT_TRANSACTIONS between back-to-back transactions: keep it quiet
      const kafka = new Kafka({
        clientId: 'sharesink-test-txn',
        brokers: testBrokers().split(','),
        logLevel: logLevel.NOTHING,
      });
      const producer = kafka.producer({
        transactionalId: uniqueName('sr-txn'),
        idempotent: true,
        maxInFlightRequests: 1,
      });
      await producer.connect();
      try {
        const send = async (values: string[], outcome: 'commit' | 'abort') => {
          const txn = await producer.transaction();
          await txn.send({ topic, messages: values.map((value) => ({ value, partition: 0 })) });
          await txn[outcome]();
        };
        await send(committed.slice(0, 5), 'commit');
        await send(aborted, 'abort');
        await send(committed.slice(5), 'commit');
      } finally {
        await producer.disconnect();
      }
      // commit() returns once the coordinator decided; it writes the marker after that, so plain records
      // sent at once could land before it (seen: the marker at 22, not 17). Wait for it at offset 17.
      const admin = kafka.admin();
      await admin.connect();
      try {
        await until(
          'the last COMMIT marker at offset 17',
          async () => Number((await admin.fetchTopicOffsets(topic))[0]?.high ?? 0),
          (high) => high >= endOffset - plain.length,
          20_000,
        );
      } finally {
        await admin.disconnect();
      }
      await produce(
        topic,
        plain.map((value) => ({ value, partition: 0 })),
      );
    })();
    return produced;
  }

  it('read_committed: aborted records never arrive, markers are acknowledged as gaps, nothing sticks', async () => {
    await produceTransactions();
    const group = uniqueGroup('sr-rc');
    await setGroupConfig(group, {
      'share.auto.offset.reset': 'earliest',
      'share.isolation.level': 'read_committed',
    });
    const c = consumer(group);
    await c.subscribe([topic]);
    const got = await consumeAccepting(c, committed.length + plain.length, 30_000);
    expect(got.map((r) => r.value?.toString())).toEqual([...committed, ...plain]);
    expect(got.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 12, 13, 14, 15, 16, 18, 19, 20, 21, 22]);
    expect(await pollFor(c, 2000)).toEqual([]);
    console.log(`[share-records] read_committed metrics: ${JSON.stringify(c.metrics.snapshot())}`);
    // the three markers (offsets 5, 11, 17) came inside acquired ranges; the aborted records did not
    expect(c.metrics.gapOffsets).toBe(3);
    expect(c.metrics.recordsAckFailed).toBe(0);

    // not stuck: records produced after the transactions arrive, and the share-partition start offset
    // moves past every marker and aborted record to the log end
    await produce(topic, [{ value: 'after', partition: 0 }]);
    const [after] = await consumeAccepting(c, 1, 15_000);
    expect(after?.value?.toString()).toBe('after');
    expect(after?.offset).toBe(endOffset);
    await c.close();
    // The broker reports the share-partition start offset past every marker and aborted record, with no
    // lag. (Measured on 4.4.0: when the last acquired batch is fully acknowledged the reported START-OFFSET
    // stays at that batch's first offset, LAG 0 — the Java KafkaShareConsumer shows the same.)
    const offsets = await shareGroupOffsets(group, topic);
    console.log(`[share-records] read_committed share-group offsets: ${JSON.stringify(offsets)}`);
    expect(offsets.lag).toBe(0);
    expect(offsets.start).toBeGreaterThan(17);
    expect(offsets.start).toBeLessThanOrEqual(endOffset + 1);
  });

  it('read_uncommitted (the default) delivers the aborted records too', async () => {
    await produceTransactions();
    const group = uniqueGroup('sr-ru');
    await setGroupConfig(group, { 'share.auto.offset.reset': 'earliest' });
    const c = consumer(group);
    await c.subscribe([topic]);
    const want = committed.length + aborted.length + plain.length;
    const got = [...(await consumeAccepting(c, want, 30_000)), ...(await pollFor(c, 1500))];
    expect(got.slice(0, want).map((r) => r.value?.toString())).toEqual([
      ...committed.slice(0, 5),
      ...aborted,
      ...committed.slice(5),
      ...plain,
    ]);
    // the read_committed test may have added one more record
    expect(got.slice(want).map((r) => r.value?.toString())).toEqual(got.length > want ? ['after'] : []);
    console.log(`[share-records] read_uncommitted metrics: ${JSON.stringify(c.metrics.snapshot())}`);
    expect(c.metrics.recordsAckFailed).toBe(0);
  });
});
