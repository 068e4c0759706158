// CreateTopics on our wire layer against the real broker: the topic is created with the configs asked
// for, a second create answers TOPIC_ALREADY_EXISTS as data, and a bad config is refused with the broker's
// own message.
import { describe, expect, it } from 'vitest';
import { KafkaCluster } from '../../src/kafka/cluster.js';
import { createTopics } from '../../src/kafka/admin/create-topics.js';
import { KafkaErrorCode } from '../../src/kafka/errors/kafka-errors.js';
import { kafkaClient, testBrokers, uniqueName } from './harness/kafka.js';

describe('createTopics', () => {
  it('creates a compacted one-partition topic, then reports it exists', async () => {
    const cluster = new KafkaCluster({ brokers: testBrokers().split(',') });
    const name = uniqueName('configs');
    try {
      const spec = { name, partitions: 1, replicationFactor: -1, configs: { 'cleanup.policy': 'compact' } };
      const [created] = await createTopics(cluster, [spec]);
      expect(created).toMatchObject({
        name,
        errorCode: 0,
        numPartitions: 1,
        replicationFactor: 1,
        error: undefined,
      });
      expect(created!.topicId).not.toBe('AAAAAAAAAAAAAAAAAAAAAA');
      expect(created!.configs?.find((c) => c.name === 'cleanup.policy')?.value).toBe('compact');

      const admin = kafkaClient().admin();
      await admin.connect();
      try {
        const meta = await admin.fetchTopicMetadata({ topics: [name] });
        expect(meta.topics[0]!.partitions).toHaveLength(1);
      } finally {
        await admin.disconnect();
      }

      const [again] = await createTopics(cluster, [spec]);
      expect(again!.errorCode).toBe(KafkaErrorCode.TOPIC_ALREADY_EXISTS);
      expect(again!.error?.message).toMatch(
        new RegExp(`CreateTopics failed with TOPIC_ALREADY_EXISTS \\(36\\) for topic ${name}`),
      );
    } finally {
      await cluster.close();
    }
  });

  it('refuses an invalid config value, naming it', async () => {
    const cluster = new KafkaCluster({ brokers: testBrokers().split(',') });
    try {
      const [r] = await createTopics(cluster, [
        {
          name: uniqueName('bad'),
          partitions: 1,
          replicationFactor: -1,
          configs: { 'cleanup.policy': 'sometimes' },
        },
      ]);
      expect(r!.errorCode).toBe(KafkaErrorCode.INVALID_CONFIG);
      expect(r!.error?.message).toMatch(/cleanup\.policy/);
    } finally {
      await cluster.close();
    }
  });
});
