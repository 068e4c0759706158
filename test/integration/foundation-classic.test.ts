// Foundation: the broker works for plain Kafka clients. Records produced with kafkajs come back
// through kafkajs's classic consumer group, with keys, values and headers intact.
import { afterAll, describe, expect, it } from 'vitest';
import {
  createTopic,
  deleteTopics,
  kafkaClient,
  produce,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';

describe('foundation: kafkajs produce and classic consume', () => {
  const topic = uniqueTopic('foundation-classic');

  afterAll(async () => {
    await deleteTopics([topic]);
  });

  it('reads back every record produced to a 2-partition topic', async () => {
    await createTopic(topic, { partitions: 2 });
    const records = Array.from({ length: 20 }, (_, i) => ({
      key: `k${i % 4}`,
      value: `v${i}`,
      headers: { idx: String(i) },
    }));
    await produce(topic, records);

    const consumer = kafkaClient('foundation-classic').consumer({
      groupId: uniqueGroup('foundation-classic'),
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
    });
    const seen: { key: string; value: string; idx: string; partition: number }[] = [];
    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${seen.length}/20 records within 60 s`)),
          60_000,
        );
        consumer
          .run({
            eachMessage: async ({ partition, message }) => {
              seen.push({
                key: message.key!.toString(),
                value: message.value!.toString(),
                idx: message.headers!.idx!.toString(),
                partition,
              });
              if (seen.length === records.length) {
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

    expect(seen.map((r) => r.value).sort()).toEqual(records.map((r) => r.value).sort());
    for (const r of seen) expect(r.idx).toBe(r.value.slice(1));
    // the default partitioner keeps one key on one partition
    const partitionOfKey = new Map<string, Set<number>>();
    for (const r of seen)
      partitionOfKey.set(r.key, (partitionOfKey.get(r.key) ?? new Set()).add(r.partition));
    for (const parts of partitionOfKey.values()) expect(parts.size).toBe(1);
  });
});
