// A classic connector's dead-letter topic on a cluster with ACLs: kafkajs says `Topic creation errors`
// (naming nothing) when the topic may not be created, and `Not authorized to access topics` when it may
// not be written. Each becomes one SHARESINK_KAFKA_AUTHORIZATION error naming the topic, the connector,
// the principal and the grant.
import * as kafkajs from 'kafkajs';
import type { Kafka } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  ClassicDeadLetterQueue,
  topicCreationFailure,
  writeRefusal,
} from '../../src/actors/errors/dead-letter-reporter.js';
import type { RawRecord } from '../../src/connect/raw-record.js';
import { KafkaAuthorizationError } from '../../src/kafka/errors/cluster-errors.js';

type ErrorClass = new (...args: unknown[]) => Error;
// kafkajs's own classes (the types leave KafkaJSCreateTopicError out; the module exports it)
const errors = kafkajs as unknown as Record<string, ErrorClass>;
const ProtocolError = errors['KafkaJSProtocolError']!;
const CreateTopicError = errors['KafkaJSCreateTopicError']!;
const AggregateError = errors['KafkaJSAggregateError']!;

const protocol = (type: string, code: number) =>
  ({ type, code, retriable: false, message: `${type} message` }) as const;

/** What kafkajs's admin.createTopics throws when the broker refuses CreateTopics for the topic. */
const creationRefused = (topic: string) =>
  new AggregateError('Topic creation errors', [
    new CreateTopicError(protocol('TOPIC_AUTHORIZATION_FAILED', 29), topic),
  ]);

const options = {
  topic: 'orders-dlq',
  contextHeaders: false,
  connector: 'orders-to-db',
  taskId: 0,
  logger: pino({ level: 'silent' }),
  principal: 'User:sharesink',
};

/** A kafkajs client whose admin lists no topic and whose createTopics / producer.send fail as given. */
function kafka(o: { createTopics?: () => Promise<boolean>; send?: () => Promise<unknown> }): Kafka {
  return {
    admin: () => ({
      connect: async () => undefined,
      disconnect: async () => undefined,
      listTopics: async () => [],
      describeCluster: async () => ({ brokers: [{}] }),
      createTopics: o.createTopics ?? (async () => true),
    }),
    producer: () => ({
      connect: async () => undefined,
      disconnect: async () => undefined,
      send: o.send ?? (async () => []),
    }),
  } as unknown as Kafka;
}

describe('the dead-letter topic on a cluster with ACLs', () => {
  it('may not be created: the topic, the connector, the principal and the grant (not "Topic creation errors")', async () => {
    const queue = new ClassicDeadLetterQueue(
      kafka({ createTopics: () => Promise.reject(creationRefused('orders-dlq')) }),
      options,
    );
    const err = await queue.start().then(
      () => expect.fail('it started'),
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(KafkaAuthorizationError);
    expect(err).toMatchObject({ code: 'SHARESINK_KAFKA_AUTHORIZATION', resourceName: 'orders-dlq' });
    expect(err.message).toBe(
      'not authorized: TOPIC_AUTHORIZATION_FAILED for topic orders-dlq (the dead-letter topic of connector orders-to-db: it does not exist and may not be created, or this principal may not see it); User:sharesink needs WRITE and CREATE on topic orders-dlq (an ALLOW ACL, and no DENY ACL, which wins), e.g. kafka-acls.sh --bootstrap-server … --add --allow-principal User:sharesink --operation Write --operation Create --topic orders-dlq; or create the topic beforehand (kafka-topics.sh --bootstrap-server … --create --topic orders-dlq --partitions 1) and grant WRITE alone',
    );
  });

  it('another creation error names the topic and the Kafka error', () => {
    const err = topicCreationFailure(
      new AggregateError('Topic creation errors', [
        new CreateTopicError(protocol('INVALID_REPLICATION_FACTOR', 38), 'orders-dlq'),
      ]),
      options,
    );
    expect(err?.message).toMatch(
      /^CreateTopics failed with INVALID_REPLICATION_FACTOR \(38\) for dead-letter topic orders-dlq of connector orders-to-db/,
    );
    expect(topicCreationFailure(new Error('Connection error'), options)).toBeUndefined();
  });

  it('may not be written: WRITE on the topic', async () => {
    const queue = new ClassicDeadLetterQueue(
      kafka({ send: () => Promise.reject(new ProtocolError(protocol('TOPIC_AUTHORIZATION_FAILED', 29))) }),
      options,
    );
    await queue.start();
    const record = { topic: 'orders', partition: 0, offset: 0, key: null, value: null, headers: [] };
    const err = await queue
      .send([record as unknown as RawRecord], [0], () => ({
        stage: 'VALUE_CONVERTER',
        executingClass: 'x',
        exceptionClass: 'y',
        message: 'z',
      }))
      .then(
        () => expect.fail('it was written'),
        (e: unknown) => e as Error,
      );
    expect(err.message).toBe(
      'not authorized: TOPIC_AUTHORIZATION_FAILED for topic orders-dlq (the dead-letter topic of connector orders-to-db); User:sharesink needs WRITE on topic orders-dlq (an ALLOW ACL, and no DENY ACL, which wins), e.g. kafka-acls.sh --bootstrap-server … --add --allow-principal User:sharesink --operation Write --topic orders-dlq',
    );
    expect(writeRefusal(new Error('Connection error'), options)).toBeUndefined();
  });
});
