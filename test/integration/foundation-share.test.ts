// Foundation: share groups (KIP-932) are on. Kafka's own Java console share consumer reads the
// records we produce with kafkajs, as a member of a share group, and the share-group admin tool
// sees that group.
import { afterAll, describe, expect, it } from 'vitest';
import {
  consumeClassic,
  createTopic,
  deleteTopics,
  kafkaVersion,
  produce,
  runJavaToolOk,
  setGroupConfig,
  setShareAutoOffsetReset,
  testBrokers,
  Tools,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';

describe('foundation: Java share consumer on the test broker', () => {
  const topic = uniqueTopic('foundation-share');
  const group = uniqueGroup('foundation-share');
  const dlqSource = uniqueTopic('foundation-dlq-source');
  const dlqGroup = uniqueGroup('foundation-dlq');
  const dlqTopic = `dlq.${dlqGroup}`;

  afterAll(async () => {
    await deleteTopics([topic, dlqSource]);
  });

  it('delivers kafkajs-produced records to ConsoleShareConsumer in a share group', async () => {
    await createTopic(topic, { partitions: 1 });
    // default is latest: a share group that starts after the data was produced would see nothing
    await setShareAutoOffsetReset(group, 'earliest');
    const values = Array.from({ length: 10 }, (_, i) => `share-${i}`);
    await produce(
      topic,
      values.map((value, i) => ({ key: `k${i}`, value })),
    );

    const consumed = await runJavaToolOk(
      Tools.ConsoleShareConsumer,
      [
        '--bootstrap-server',
        testBrokers(),
        '--topic',
        topic,
        '--group',
        group,
        '--max-messages',
        String(values.length),
        '--timeout-ms',
        '30000',
        '--formatter-property',
        'print.key=true',
        '--formatter-property',
        'print.delivery=true',
      ],
      { timeoutMs: 90_000 },
    );
    const lines = consumed.stdout.trim().split('\n');
    // DefaultMessageFormatter with print.delivery and print.key: "Delivery:1\tk0\tshare-0"
    const rows = lines.map((line) => line.split('\t'));
    expect(rows.map((r) => r.at(-1)).sort()).toEqual([...values].sort());
    for (const r of rows) expect(r[0]).toBe('Delivery:1');
    expect(consumed.stderr).toContain(`Processed a total of ${values.length} messages`);

    const described = await runJavaToolOk(Tools.ShareGroupCommand, [
      '--bootstrap-server',
      testBrokers(),
      '--describe',
      '--group',
      group,
      '--offsets',
    ]);
    expect(described.stdout).toContain(group);
    expect(described.stdout).toContain(topic);
  });

  it('sends records the share consumer rejects to the group dead-letter topic (4.4+: share.version 2)', async () => {
    await createTopic(dlqSource, { partitions: 1 });
    const configs = {
      'share.auto.offset.reset': 'earliest',
      'errors.deadletterqueue.topic.name': dlqTopic,
      'errors.deadletterqueue.copy.record.enable': 'true',
    };
    const [major = 0, minor = 0] = kafkaVersion().split('.').map(Number);
    if (major === 4 && minor < 4) {
      // 4.2/4.3 have no share-group DLQ: the group config does not exist there
      await expect(setGroupConfig(dlqGroup, configs)).rejects.toThrow(/Unknown group config name/);
      return;
    }
    await setGroupConfig(dlqGroup, configs);
    await produce(dlqSource, ['bad-0', 'bad-1', 'bad-2']);

    await runJavaToolOk(
      Tools.ConsoleShareConsumer,
      [
        '--bootstrap-server',
        testBrokers(),
        '--topic',
        dlqSource,
        '--group',
        dlqGroup,
        '--max-messages',
        '3',
        '--timeout-ms',
        '30000',
        '--reject',
      ],
      { timeoutMs: 90_000 },
    );

    // the broker creates the DLQ topic itself (errors.deadletterqueue.auto.create.topics.enable=true)
    const dead = await consumeClassic(dlqTopic, 3, { timeoutMs: 60_000 });
    expect(dead.map((r) => r.value).sort()).toEqual(['bad-0', 'bad-1', 'bad-2']);
    for (const r of dead) {
      expect(r.headers['__dlq.errors.topic']).toBe(dlqSource);
      expect(r.headers['__dlq.errors.group']).toBe(dlqGroup);
      expect(r.headers['__dlq.errors.delivery.count']).toBe('1');
    }
    await deleteTopics([dlqTopic]);
  });
});
