// Foundation: the broker works for plain Kafka clients. Records produced with kafkajs come back
// through kafkajs's classic consumer group, with keys, values and headers intact.
import { afterAll, describe, expect, it } from 'vitest';
import { consumeClassic, createTopic, deleteTopics, produce, uniqueTopic } from './harness/kafka.js';

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

    const seen = await consumeClassic(topic, records.length);

    expect(seen.map((r) => r.value).sort()).toEqual(records.map((r) => r.value).sort());
    for (const r of seen) expect(r.headers.idx).toBe(r.value!.slice(1));
    // the default partitioner keeps one key on one partition, and both partitions get keys
    const partitionsOfKey = new Map<string, Set<number>>();
    for (const r of seen)
      partitionsOfKey.set(r.key!, (partitionsOfKey.get(r.key!) ?? new Set()).add(r.partition));
    for (const parts of partitionsOfKey.values()) expect(parts.size).toBe(1);
  });
});
