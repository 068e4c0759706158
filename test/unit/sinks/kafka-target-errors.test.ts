import * as kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { HiddenValue, type KafkaSecurity } from '../../../src/kafka/security/index.js';
import { explainTargetError } from '../../../src/sinks/kafka/target-errors.js';

const SCRAM: KafkaSecurity = {
  protocol: 'SASL_SSL',
  sasl: { mechanism: 'SCRAM-SHA-512', username: 'writer', password: new HiddenValue('s3cret') },
  principal: 'User:writer',
};
const target = { brokers: ['kafka-b:9094', 'kafka-c:9094'], security: SCRAM, topics: ['orders.mirror'] };

// kafkajs's classes, made as kafkajs makes them (its typings declare narrower constructors)
type ErrorClass = new (e: unknown, options?: { cause?: unknown }) => Error;
const KafkaJSProtocolError = kafkajs.KafkaJSProtocolError as unknown as ErrorClass;
const KafkaJSNonRetriableError = kafkajs.KafkaJSNonRetriableError as unknown as ErrorClass;
const KafkaJSSASLAuthenticationError = kafkajs.KafkaJSSASLAuthenticationError as unknown as ErrorClass;
const protocolError = (type: string, code: number) =>
  new KafkaJSProtocolError({ type, code, retriable: false, message: `${type} message` });

describe('KafkaSink: the target refusing the producer', () => {
  it('a SASL failure names the target, the mechanism and the user, the keys to check, never the password', () => {
    const sasl = new KafkaJSSASLAuthenticationError(
      'SASL SCRAM SHA512 authentication failed: Authentication failed during authentication due to invalid credentials',
    );
    const message = explainTargetError(sasl, target);
    expect(message).toContain(
      'the target cluster (kafka-b:9094,kafka-c:9094) refused SCRAM-SHA-512 user "writer"',
    );
    expect(message).toContain('invalid credentials');
    expect(message).toContain('producer.override.sasl.jaas.config');
    expect(message).toContain('not rejected');
    expect(message).not.toContain('s3cret');
  });

  it('SASL_AUTHENTICATION_FAILED answered as a Kafka error code counts too', () => {
    expect(explainTargetError(protocolError('SASL_AUTHENTICATION_FAILED', 58), target)).toContain(
      'refused SCRAM-SHA-512 user "writer"',
    );
  });

  it('a missing topic ACL gives the kafka-acls.sh line for every target topic, also when kafkajs wraps the error', () => {
    // as kafkajs's retrier wraps a non-retriable error
    const denied = protocolError('TOPIC_AUTHORIZATION_FAILED', 29);
    const wrapped = new KafkaJSNonRetriableError(denied, { cause: denied });
    const message = explainTargetError(wrapped, { ...target, topics: ['a.mirror', 'b.mirror'] });
    expect(message).toContain('refused User:writer WRITE on a.mirror, b.mirror (TOPIC_AUTHORIZATION_FAILED)');
    for (const t of ['a.mirror', 'b.mirror'])
      expect(message).toContain(
        `kafka-acls.sh --bootstrap-server kafka-b:9094 --add --allow-principal User:writer --operation Write --topic ${t}`,
      );
    expect(message).toContain('without a restart');
  });

  it('CLUSTER_AUTHORIZATION_FAILED (the idempotent producer id) says WRITE on a topic is enough', () => {
    const message = explainTargetError(protocolError('CLUSTER_AUTHORIZATION_FAILED', 31), target);
    expect(message).toContain('an idempotent producer id (CLUSTER_AUTHORIZATION_FAILED)');
    expect(message).toContain('--operation Write --topic orders.mirror');
  });

  it('a missing target topic is named, with the command that creates it', () => {
    const missing = new KafkaJSNonRetriableError(protocolError('UNKNOWN_TOPIC_OR_PARTITION', 3), {
      cause: protocolError('UNKNOWN_TOPIC_OR_PARTITION', 3),
    });
    const message = explainTargetError(missing, target);
    expect(message).toContain('the target cluster (kafka-b:9094,kafka-c:9094) has no topic orders.mirror');
    expect(message).toContain(
      'kafka-topics.sh --bootstrap-server kafka-b:9094 --create --topic orders.mirror',
    );
  });

  it('anything else is not explained here: a refused record, a lost connection, a plain error', () => {
    expect(explainTargetError(protocolError('MESSAGE_TOO_LARGE', 10), target)).toBeUndefined();
    expect(explainTargetError(new Error('Connection error: ECONNREFUSED'), target)).toBeUndefined();
    expect(explainTargetError('boom', target)).toBeUndefined();
  });
});
