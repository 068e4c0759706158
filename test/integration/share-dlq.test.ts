// KIP-1191 dead-letter queue for share groups (Kafka 4.4): the BROKER writes records that a consumer
// REJECTed, or that reached share.delivery.count.limit, to the group's DLQ topic. ShareConsumer only
// acknowledges; these tests pin what the broker then does, and which headers it writes.
//
// On Kafka < 4.4 every test asserts the older behaviour explicitly instead (the group config does not
// exist there), so a run against 4.2 is still a real check, never a skip.
import { afterAll, describe, expect, it } from 'vitest';
import type { ShareConsumer, ShareRecord } from '../../src/kafka/share/share-consumer.js';
import {
  createTopic,
  deleteTopics,
  kafkaClient,
  kafkaVersion,
  produce,
  setGroupConfig,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';
import {
  pollFor,
  pollUntil,
  readFromBeginning,
  shareConsumers,
  sleep,
  type RawRecord,
} from './harness/share.js';

const consumers = shareConsumers({ clientId: 'sharesink-dlq' });
const topics: string[] = [];

/** The six headers Kafka 4.4.0 puts on every DLQ record (measured; see docs/share-consumer.md). */
const DLQ_HEADERS = [
  '__dlq.errors.delivery.count',
  '__dlq.errors.group',
  '__dlq.errors.message',
  '__dlq.errors.offset',
  '__dlq.errors.partition',
  '__dlq.errors.topic',
];
const REJECTED_MESSAGE = 'Offset rejected by client.';
const LIMIT_MESSAGE = 'Offset delivery count exceeded the threshold.';

function dlqSupported(): boolean {
  const [major = 0, minor = 0] = kafkaVersion().split('.').map(Number);
  return major > 4 || (major === 4 && minor >= 4);
}

/** Kafka 4.2/4.3: no share-group DLQ; the broker refuses the group config by name. */
async function expectNoDlqConfig(group: string, dlqTopic: string): Promise<void> {
  await expect(setGroupConfig(group, { 'errors.deadletterqueue.topic.name': dlqTopic })).rejects.toThrow(
    /Unknown group config name/,
  );
}

const consumer = (groupId: string): ShareConsumer => consumers.make(groupId);

async function setup(prefix: string): Promise<{ topic: string; group: string; dlq: string }> {
  const topic = uniqueTopic(prefix);
  const group = uniqueGroup(prefix);
  topics.push(topic);
  await createTopic(topic);
  return { topic, group, dlq: `dlq.${group}` };
}

function headerText(r: RawRecord): Record<string, string | undefined> {
  return Object.fromEntries([...r.headers].map(([k, v]) => [k, v?.toString()]));
}

async function topicConfig(topic: string, name: string): Promise<string | undefined> {
  const admin = kafkaClient('sharesink-test-admin').admin();
  await admin.connect();
  try {
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2 /* TOPIC */, name: topic, configNames: [name] }],
    });
    return resources[0]?.configEntries.find((e) => e.configName === name)?.configValue;
  } finally {
    await admin.disconnect();
  }
}

/** Latest offset of partition 0 of `topic`, or undefined when the topic does not exist. */
async function endOffset(topic: string): Promise<number | undefined> {
  const admin = kafkaClient('sharesink-test-admin').admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) return undefined;
    const [p0] = await admin.fetchTopicOffsets(topic);
    return Number(p0!.offset);
  } finally {
    await admin.disconnect();
  }
}

afterAll(async () => {
  await consumers.closeAll();
  if (topics.length > 0) await deleteTopics(topics);
});

describe(`share-group DLQ (KIP-1191) on Kafka ${kafkaVersion()}`, () => {
  it('REJECT, RELEASE up to the delivery limit and lock expiry up to it all land in the DLQ, with full copies', async () => {
    const { topic, group, dlq } = await setup('sd-copy');
    if (!dlqSupported()) return expectNoDlqConfig(group, dlq);
    await setGroupConfig(group, {
      'share.auto.offset.reset': 'earliest',
      'errors.deadletterqueue.topic.name': dlq,
      'errors.deadletterqueue.copy.record.enable': 'true',
      'share.delivery.count.limit': '2',
      'share.record.lock.duration.ms': '1000',
    });
    await produce(topic, [
      { key: 'k0', value: 'reject-me', headers: { app: 'h0' } },
      { key: 'k1', value: 'release-me' },
      { key: 'k2', value: 'expire-me' },
      { key: 'k3', value: 'accept-me' },
    ]);
    const c = consumer(group);
    await c.subscribe([topic]);

    const first = await pollUntil(c, 4, 20_000);
    expect(first.map((r) => [r.value?.toString(), r.deliveryCount])).toEqual([
      ['reject-me', 1],
      ['release-me', 1],
      ['expire-me', 1],
      ['accept-me', 1],
    ]);
    const [rejected, released, accepted] = await Promise.all([
      c.acknowledge(first[0]!, 'reject'),
      c.acknowledge(first[1]!, 'release'),
      c.acknowledge(first[3]!, 'accept'),
      c.commit(),
    ]);
    for (const res of [...rejected, ...released, ...accepted]) expect(res.error).toBeNull();

    // second and last delivery of release-me (released) and expire-me (its 1 s lock ran out). They come
    // ~1 s apart (release-me at once, expire-me when its lock runs out), so release-me is released the
    // moment it arrives: waiting for both would let its own 1 s lock run out first (a CI run saw that).
    const second: ShareRecord[] = [];
    const deadline = Date.now() + 15_000;
    while (second.length < 2 && Date.now() < deadline) {
      const got = await c.poll({ maxWaitMs: 500 });
      second.push(...got);
      const again = got.find((r) => r.value?.toString() === 'release-me');
      if (again) {
        const [releasedAgain] = await Promise.all([c.acknowledge(again, 'release'), c.commit()]);
        expect(releasedAgain[0]!.error).toBeNull();
      }
    }
    expect(second.map((r) => [r.value?.toString(), r.deliveryCount]).sort()).toEqual([
      ['expire-me', 2],
      ['release-me', 2],
    ]);
    // expire-me stays unacknowledged: its lock expires a second time, at the limit

    const dead = await readFromBeginning(dlq, 3, 30_000);
    topics.push(dlq);
    const byValue = new Map(dead.map((r) => [r.value?.toString(), r]));
    console.log(
      `[share-dlq] DLQ records (copy.record.enable=true):\n${dead
        .map((r) => `  ${r.key?.toString()}=${r.value?.toString()} ${JSON.stringify(headerText(r))}`)
        .join('\n')}`,
    );
    expect([...byValue.keys()].sort()).toEqual(['expire-me', 'reject-me', 'release-me']);
    const expected: Record<string, { offset: number; count: number; message: string; key: string }> = {
      'reject-me': { offset: 0, count: 1, message: REJECTED_MESSAGE, key: 'k0' },
      'release-me': { offset: 1, count: 2, message: LIMIT_MESSAGE, key: 'k1' },
      'expire-me': { offset: 2, count: 2, message: LIMIT_MESSAGE, key: 'k2' },
    };
    for (const [value, want] of Object.entries(expected)) {
      const r = byValue.get(value)!;
      expect(r.key?.toString()).toBe(want.key);
      // the original record's own headers are not copied: only the broker's context headers
      expect(headerText(r)).toEqual({
        '__dlq.errors.topic': topic,
        '__dlq.errors.partition': '0',
        '__dlq.errors.offset': String(want.offset),
        '__dlq.errors.group': group,
        '__dlq.errors.delivery.count': String(want.count),
        '__dlq.errors.message': want.message,
      });
    }
    // the broker created the DLQ topic itself (errors.deadletterqueue.auto.create.topics.enable=true) and
    // marked it as a DLQ topic
    expect(await topicConfig(dlq, 'errors.deadletterqueue.group.enable')).toBe('true');
    // none of them comes back to the group
    expect(await pollFor(c, 2000)).toEqual([]);
  });

  it('without copy.record.enable the DLQ record has no key or value, only the context headers', async () => {
    const { topic, group, dlq } = await setup('sd-nocopy');
    if (!dlqSupported()) return expectNoDlqConfig(group, dlq);
    await setGroupConfig(group, {
      'share.auto.offset.reset': 'earliest',
      'errors.deadletterqueue.topic.name': dlq,
    });
    await produce(topic, [{ key: 'k0', value: 'reject-me' }]);
    const c = consumer(group);
    await c.subscribe([topic]);
    const [r] = await pollUntil(c, 1, 20_000);
    const [res] = await Promise.all([c.acknowledge(r!, 'reject'), c.commit()]);
    expect(res[0]!.error).toBeNull();
    const [dead] = await readFromBeginning(dlq, 1, 30_000);
    topics.push(dlq);
    expect(dead!.key).toBeNull();
    expect(dead!.value).toBeNull();
    expect([...dead!.headers.keys()].sort()).toEqual(DLQ_HEADERS);
    expect(headerText(dead!)['__dlq.errors.message']).toBe(REJECTED_MESSAGE);
    expect(headerText(dead!)['__dlq.errors.offset']).toBe('0');
  });

  it('a misconfigured DLQ loses the record: archived, nothing written (topic not DLQ-enabled, or prefix wrong)', async () => {
    const notEnabled = await setup('sd-notenabled');
    const badPrefix = await setup('sd-badprefix');
    const wrongName = `nodlq.${badPrefix.group}`;
    if (!dlqSupported()) return expectNoDlqConfig(notEnabled.group, notEnabled.dlq);
    // a DLQ topic created by hand without errors.deadletterqueue.group.enable=true
    await createTopic(notEnabled.dlq);
    topics.push(notEnabled.dlq);
    const cases = [
      { ...notEnabled, target: notEnabled.dlq },
      { ...badPrefix, target: wrongName },
    ];
    // the broker accepts both group configs: it checks only when it writes
    for (const k of cases) {
      await setGroupConfig(k.group, {
        'share.auto.offset.reset': 'earliest',
        'errors.deadletterqueue.topic.name': k.target,
      });
      await produce(k.topic, ['reject-me', 'after']);
    }
    await Promise.all(
      cases.map(async (k) => {
        const c = consumer(k.group);
        await c.subscribe([k.topic]);
        const got = await pollUntil(c, 2, 20_000);
        const [rej, acc] = await Promise.all([
          c.acknowledge(got[0]!, 'reject'),
          c.acknowledge(got[1]!, 'accept'),
          c.commit(),
        ]);
        expect(rej[0]!.error).toBeNull();
        expect(acc[0]!.error).toBeNull();
        expect(await pollFor(c, 2000)).toEqual([]);
      }),
    );
    await sleep(1000);
    // broker log: "Failed to write to DLQ, proceeding to ARCHIVED regardless." with
    // "DLQ is not enabled on configured DLQ topic …" / "… does not comply with the DLQ topic prefix …"
    expect(await endOffset(notEnabled.dlq)).toBe(0);
    expect(await endOffset(wrongName)).toBeUndefined();
  });
});
