// Foundation: share groups (KIP-932) are on. Kafka's own Java console share consumer reads the
// records we produce with kafkajs, as a member of a share group, and the share-group admin tool
// sees that group.
import { afterAll, describe, expect, it } from 'vitest';
import {
  createTopic,
  deleteTopics,
  produce,
  runJavaToolOk,
  setShareAutoOffsetReset,
  testBrokers,
  Tools,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';

describe('foundation: Java share consumer on the test broker', () => {
  const topic = uniqueTopic('foundation-share');
  const group = uniqueGroup('foundation-share');

  afterAll(async () => {
    await deleteTopics([topic]);
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
});
