import { describe, expect, it } from 'vitest';
import { kafkaSinkSettings } from '../../../src/sinks/kafka/config.js';
import { KafkaSinkConnector } from '../../../src/sinks/kafka/kafka-sink.js';
import { kafkajsSecurityOptions } from '../../../src/kafka/security/index.js';

const scram = (u: string) =>
  `org.apache.kafka.common.security.scram.ScramLoginModule required username="${u}" password="${u}-pw";`;

describe('KafkaSink: the producer’s security from producer.override.*', () => {
  it('uses producer.override.* for another cluster', () => {
    const cfg = kafkaSinkSettings({
      topic: 'out',
      'bootstrap.servers': 'target:9093',
      'consumer.override.security.protocol': 'SASL_SSL',
      'producer.override.security.protocol': 'SASL_PLAINTEXT',
      'producer.override.sasl.mechanism': 'SCRAM-SHA-256',
      'producer.override.sasl.jaas.config': scram('writer'),
    });
    expect(kafkajsSecurityOptions(cfg.security)).toEqual({
      sasl: { mechanism: 'scram-sha-256', username: 'writer', password: 'writer-pw' },
    });
  });

  it('writing back to the source cluster, takes the consumer’s settings unless producer.override.* replaces them', () => {
    const cfg = kafkaSinkSettings({
      topic: 'out',
      'consumer.override.bootstrap.servers': 'source:9093',
      'consumer.override.security.protocol': 'SASL_PLAINTEXT',
      'consumer.override.sasl.mechanism': 'SCRAM-SHA-512',
      'consumer.override.sasl.jaas.config': scram('reader'),
      'producer.override.sasl.jaas.config': scram('writer'),
    });
    expect(kafkajsSecurityOptions(cfg.security).sasl).toMatchObject({
      mechanism: 'scram-sha-512',
      username: 'writer',
    });
  });

  it('validate() files each security problem under its key', () => {
    const problems = new KafkaSinkConnector().validate({
      topic: 'out',
      'bootstrap.servers': 'target:9093',
      'producer.override.security.protocol': 'SASL_SSL',
    });
    expect([...problems.keys()]).toEqual(['producer.override.sasl.mechanism']);
  });
});
