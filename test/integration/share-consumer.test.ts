// The TypeScript share consumer against the real broker: acquisition, every acknowledgement type, lock
// expiry, renewal, delivery limits and closing.
import { afterAll, describe, expect, it } from 'vitest';
import type { ShareConsumer } from '../../src/kafka/share/share-consumer.js';
import {
  createTopic,
  deleteTopics,
  produce,
  setGroupConfig,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';
import { pollFor, pollUntil, shareConsumers } from './harness/share.js';

const consumers = shareConsumers();
const topics: string[] = [];

const consumer = (groupId: string): ShareConsumer => consumers.make(groupId);

async function setup(
  prefix: string,
  opts: { partitions?: number; records?: number; group?: Record<string, string> } = {},
): Promise<{ topic: string; group: string }> {
  const topic = uniqueTopic(prefix);
  const group = uniqueGroup(prefix);
  topics.push(topic);
  await createTopic(topic, { partitions: opts.partitions ?? 1 });
  await setGroupConfig(group, { 'share.auto.offset.reset': 'earliest', ...opts.group });
  const n = opts.records ?? 0;
  if (n > 0) {
    await produce(
      topic,
      Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
    );
  }
  return { topic, group };
}

afterAll(async () => {
  await consumers.closeAll();
  if (topics.length > 0) await deleteTopics(topics);
});

describe('ShareConsumer against Kafka', () => {
  it('consumes and accepts 10,000 records exactly once, none redelivered after the lock', async () => {
    const { topic, group } = await setup('sc-10k', {
      partitions: 3,
      records: 10_000,
      group: { 'share.record.lock.duration.ms': '4000' },
    });
    const c = consumer(group);
    await c.subscribe([topic]);
    const seen = new Map<string, number>();
    const deadline = Date.now() + 60_000;
    while (seen.size < 10_000 && Date.now() < deadline) {
      const batch = await c.poll({ maxWaitMs: 1000 });
      for (const r of batch) {
        const id = `${r.partition}:${r.offset}`;
        seen.set(id, (seen.get(id) ?? 0) + 1);
        expect(r.deliveryCount).toBe(1);
      }
      if (batch.length > 0) {
        const results = await c.acknowledge(batch, 'accept');
        await c.commit();
        for (const res of results) expect(res.error).toBeNull();
      }
    }
    expect(seen.size).toBe(10_000);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(c.acquisitionLockTimeoutMs).toBe(4000);
    // past the lock duration nothing comes back: every acceptance stuck
    expect(await pollFor(c, 5000)).toEqual([]);
    expect(c.metrics.recordsAccepted).toBe(10_000);
  });

  it('RELEASE redelivers with deliveryCount 2; REJECT never comes back', async () => {
    const { topic, group } = await setup('sc-release', { records: 2 });
    const c = consumer(group);
    await c.subscribe([topic]);
    const first = await pollUntil(c, 2, 20_000);
    expect(first.map((r) => r.value?.toString())).toEqual(['v0', 'v1']);
    const [released, rejected] = await Promise.all([
      c.acknowledge(first[0]!, 'release'),
      c.acknowledge(first[1]!, 'reject'),
      c.commit(),
    ]);
    expect(released[0]!.error).toBeNull();
    expect(rejected[0]!.error).toBeNull();

    const again = await pollUntil(c, 1, 10_000);
    expect(again.map((r) => [r.value?.toString(), r.deliveryCount])).toEqual([['v0', 2]]);
    await Promise.all([c.acknowledge(again, 'accept'), c.commit()]);
    expect(await pollFor(c, 2500)).toEqual([]);
  });

  it('an unacknowledged record comes back after the lock duration', async () => {
    const { topic, group } = await setup('sc-expiry', {
      records: 1,
      group: { 'share.record.lock.duration.ms': '2000' },
    });
    const c = consumer(group);
    await c.subscribe([topic]);
    const [first] = await pollUntil(c, 1, 20_000);
    const acquiredAt = Date.now();
    expect(first!.deliveryCount).toBe(1);
    expect(c.acquisitionLockTimeoutMs).toBe(2000);
    const [again] = await pollUntil(c, 1, 10_000);
    expect(Date.now() - acquiredAt).toBeGreaterThanOrEqual(1500);
    expect(again!.offset).toBe(first!.offset);
    expect(again!.deliveryCount).toBe(2);
    // acknowledging the first delivery's copy is no longer possible: the lock moved on to the second
    const [res] = await Promise.all([c.acknowledge(again!, 'accept'), c.commit()]);
    expect(res[0]!.error).toBeNull();
  });

  it('archives a record after the group delivery limit', async () => {
    const { topic, group } = await setup('sc-limit', {
      records: 1,
      group: { 'share.delivery.count.limit': '2' },
    });
    const c = consumer(group);
    await c.subscribe([topic]);
    for (let delivery = 1; delivery <= 2; delivery++) {
      const [r] = await pollUntil(c, 1, 20_000);
      expect(r!.deliveryCount).toBe(delivery);
      await Promise.all([c.acknowledge(r!, 'release'), c.commit()]);
    }
    expect(await pollFor(c, 2500)).toEqual([]);
  });

  it('RENEW keeps a record acquired past its lock; the later ACCEPT succeeds', async () => {
    const { topic, group } = await setup('sc-renew', {
      records: 1,
      group: { 'share.record.lock.duration.ms': '2000' },
    });
    const holder = consumer(group);
    const other = consumer(group);
    await holder.subscribe([topic]);
    const [r] = await pollUntil(holder, 1, 20_000);
    expect(await holder.renewSupported()).toBe(true);
    await other.subscribe([topic]);
    const competitor = pollFor(other, 5000);
    // renew every 800 ms for 5 s: well past the 2 s lock
    const until = Date.now() + 5000;
    while (Date.now() < until) {
      const [res] = await Promise.all([holder.acknowledge(r!, 'renew'), holder.commit()]);
      expect(res[0]!.error).toBeNull();
      await new Promise((ok) => setTimeout(ok, 800));
    }
    expect(await competitor).toEqual([]);
    const [accepted] = await Promise.all([holder.acknowledge(r!, 'accept'), holder.commit()]);
    expect(accepted[0]!.error).toBeNull();
    expect(holder.metrics.recordsRenewed).toBeGreaterThanOrEqual(6);
  });

  it('closing a consumer releases its records to the others at once', async () => {
    const { topic, group } = await setup('sc-close', { records: 5 });
    const first = consumer(group);
    await first.subscribe([topic]);
    const held = await pollUntil(first, 5, 20_000);
    expect(held).toHaveLength(5);
    const second = consumer(group);
    await second.subscribe([topic]);
    const closedAt = Date.now();
    await first.close();
    const got = await pollUntil(second, 5, 10_000);
    // well before the broker default lock of 15 s
    expect(Date.now() - closedAt).toBeLessThan(8000);
    expect(got.map((r) => r.offset).sort()).toEqual(held.map((r) => r.offset).sort());
    expect(got.every((r) => r.deliveryCount === 2)).toBe(true);
    await Promise.all([second.acknowledge(got, 'accept'), second.commit()]);
  });

  it('refuses to acknowledge a record it did not hand out', async () => {
    const { topic, group } = await setup('sc-badack', { records: 1 });
    const c = consumer(group);
    await c.subscribe([topic]);
    const [r] = await pollUntil(c, 1, 20_000);
    expect(() => c.acknowledge({ topic, partition: 0, offsets: [r!.offset + 100] }, 'accept')).toThrow(
      /SHARESINK|not delivered to this consumer/,
    );
    await Promise.all([c.acknowledge(r!, 'accept'), c.commit()]);
    expect(() => c.acknowledge(r!, 'accept')).toThrow(/already acknowledged/);
  });

  it('rejects subscribe() to a topic that does not exist, naming it', async () => {
    const c = consumer(uniqueGroup('sc-missing'));
    const missing = uniqueTopic('does-not-exist');
    await expect(c.subscribe([missing])).rejects.toMatchObject({ code: 'SHARESINK_UNKNOWN_TOPIC' });
    await expect(c.subscribe([missing])).rejects.toThrow(missing);
  });
});
