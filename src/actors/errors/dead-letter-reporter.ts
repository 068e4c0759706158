/**
 * The dead-letter reporter of classic mode: Connect's dead-letter queue (`errors.deadletterqueue.topic.name`): the original
 * record's key, value, timestamp and headers, plus — with `errors.deadletterqueue.context.headers.enable`
 * — the `__connect.errors.*` headers that Connect's DeadLetterQueueReporter writes, under its exact names
 * and with every value a UTF-8 string, so existing DLQ tooling reads ours unchanged.
 */
import { Partitioners, type IHeaders, type Kafka, type Message, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { createClassicKafka } from '../../kafka/kafkajs/classic-consumer.js';
import type { KafkajsSecurityOptions } from '../../kafka/security/index.js';
import type { RawRecord } from '../../connect/raw-record.js';
import type { DeadLetterReason } from './reasons.js';
import type { ClassicErrorsOptions } from './tolerance.js';
import { KafkaAuthorizationError } from '../../kafka/errors/cluster-errors.js';
import { KafkaError, KafkaErrorCode } from '../../kafka/errors/kafka-errors.js';

export const DLQ_HEADERS = {
  topic: '__connect.errors.topic',
  partition: '__connect.errors.partition',
  offset: '__connect.errors.offset',
  connectorName: '__connect.errors.connector.name',
  taskId: '__connect.errors.task.id',
  stage: '__connect.errors.stage',
  executingClass: '__connect.errors.class.name',
  exceptionClass: '__connect.errors.exception.class.name',
  exceptionMessage: '__connect.errors.exception.message',
  exceptionStacktrace: '__connect.errors.exception.stacktrace',
} as const;

export interface DeadLetterQueueOptions {
  readonly topic: string;
  /** Who the dead-letter clients authenticate as (`User:alice`), when known: for messages. */
  readonly principal?: string | undefined;
  readonly contextHeaders: boolean;
  readonly connector: string;
  readonly taskId: number;
  /** Replication factor when the topic has to be created. Default: min(3, brokers), as Connect's 3 fits no smaller cluster. */
  readonly replicationFactor?: number;
  readonly logger: Logger;
}

export class ClassicDeadLetterQueue {
  private readonly kafka: Kafka;
  private readonly o: DeadLetterQueueOptions;
  private readonly producer: Producer;
  private readonly taskId: string;

  /** `kafka` produces; `admin` (default: the same client) creates the topic when it is missing. */
  constructor(
    kafka: Kafka,
    options: DeadLetterQueueOptions,
    private readonly adminKafka: Kafka = kafka,
  ) {
    this.kafka = kafka;
    this.o = options;
    this.taskId = String(options.taskId);
    this.producer = kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
    });
  }

  get topic(): string {
    return this.o.topic;
  }

  /** Creates the topic when it is missing (one partition, as Connect does) and connects the producer. */
  async start(): Promise<void> {
    const admin = this.adminKafka.admin();
    await admin.connect();
    try {
      const existing = await admin.listTopics();
      if (!existing.includes(this.o.topic)) {
        const replicationFactor =
          this.o.replicationFactor ?? Math.min(3, (await admin.describeCluster()).brokers.length);
        const created = await admin
          .createTopics({
            waitForLeaders: true,
            topics: [{ topic: this.o.topic, numPartitions: 1, replicationFactor }],
          })
          .catch((err: unknown) => {
            throw topicCreationFailure(err, this.o) ?? err;
          });
        if (created)
          this.o.logger.info({ topic: this.o.topic, replicationFactor }, 'created dead letter topic');
      }
    } finally {
      await admin.disconnect();
    }
    await this.producer.connect();
  }

  /** Writes `records[i]` for every index in `indexes`; resolves once the broker has them all (acks=all). */
  async send(
    records: readonly RawRecord[],
    indexes: Iterable<number>,
    reasonOf: (index: number) => DeadLetterReason,
  ): Promise<number> {
    const messages: Message[] = [];
    for (const i of indexes) {
      const r = records[i];
      if (r !== undefined) messages.push(this.message(r, reasonOf(i)));
    }
    if (messages.length === 0) return 0;
    try {
      await this.producer.send({ topic: this.o.topic, acks: -1, messages });
    } catch (err) {
      throw writeRefusal(err, this.o) ?? err;
    }
    return messages.length;
  }

  async close(): Promise<void> {
    await this.producer.disconnect();
  }

  private message(r: RawRecord, reason: DeadLetterReason): Message {
    const headers: IHeaders = {};
    // appends, as Connect's Headers.add does: a record dead-lettered twice keeps both contexts
    const add = (key: string, value: Buffer | string): void => {
      const seen = headers[key];
      if (seen === undefined) headers[key] = value;
      else if (Array.isArray(seen)) seen.push(value);
      else headers[key] = [seen, value];
    };
    // kafkajs cannot write a null header value; an empty one is the closest it can
    for (const h of r.headers) add(h.key, h.value === null ? EMPTY : toBuffer(h.value));
    if (this.o.contextHeaders) {
      add(DLQ_HEADERS.topic, r.topic);
      add(DLQ_HEADERS.partition, String(r.partition));
      add(DLQ_HEADERS.offset, String(r.offset));
      add(DLQ_HEADERS.connectorName, this.o.connector);
      add(DLQ_HEADERS.taskId, this.taskId);
      add(DLQ_HEADERS.stage, reason.stage);
      add(DLQ_HEADERS.executingClass, reason.executingClass);
      add(DLQ_HEADERS.exceptionClass, reason.exceptionClass);
      add(DLQ_HEADERS.exceptionMessage, reason.message);
      if (reason.stack !== undefined) add(DLQ_HEADERS.exceptionStacktrace, reason.stack);
    }
    return {
      key: r.key === null ? null : toBuffer(r.key),
      value: r.value === null ? null : toBuffer(r.value),
      timestamp: r.timestamp === null ? undefined : String(r.timestamp),
      headers,
    };
  }
}

/** The task's dead letter queue, when errors.tolerance=all names a topic (Connect ignores it otherwise). */
export function deadLetterQueueFor(
  kafka: Kafka,
  task: {
    connector: string;
    taskId: number;
    errors?: ClassicErrorsOptions | undefined;
    brokers?: readonly string[] | undefined;
    clientId?: string | undefined;
  },
  logger: Logger,
): ClassicDeadLetterQueue | undefined {
  const errors = task.errors ?? {};
  const topic = errors.deadLetterQueueTopic;
  if (topic === undefined || topic === '' || errors.tolerance !== 'all') return undefined;
  const own = errors.deadLetterQueueSecurity;
  // the creating client's SASL user, for the grant a refusal names (a certificate's subject is not known here)
  const user = (own?.admin.sasl as { username?: unknown } | undefined)?.username;
  const options: DeadLetterQueueOptions = {
    topic,
    contextHeaders: errors.deadLetterQueueContextHeaders ?? false,
    connector: task.connector,
    taskId: task.taskId,
    replicationFactor: errors.deadLetterQueueReplicationFactor,
    logger,
    principal: typeof user === 'string' && user !== '' ? `User:${user}` : undefined,
  };
  if (own === undefined || task.brokers === undefined) return new ClassicDeadLetterQueue(kafka, options);
  // Connect's dead-letter producer is a producer: producer.override.* and admin.override.* apply, not the consumer's
  const client = (security: KafkajsSecurityOptions, suffix: string): Kafka =>
    createClassicKafka({
      ...security,
      brokers: task.brokers!,
      clientId: `${task.clientId ?? 'sharesink'}-${suffix}`,
      logger,
    });
  return new ClassicDeadLetterQueue(client(own.producer, 'dlq'), options, client(own.admin, 'dlq-admin'));
}

/**
 * kafkajs's `Topic creation errors` (an aggregate whose message names neither the topic nor the cause)
 * as what the broker said: a refusal is the grant to add, anything else its Kafka error and the topic.
 */
export function topicCreationFailure(
  err: unknown,
  o: Pick<DeadLetterQueueOptions, 'topic' | 'connector' | 'principal'>,
): Error | undefined {
  const errors = (err as { errors?: unknown }).errors;
  if (!(err instanceof Error) || !Array.isArray(errors)) return undefined;
  const first = errors.find((e: { topic?: unknown }) => e?.topic === o.topic) ?? errors[0];
  const type = (first as { type?: unknown })?.type;
  const code = (first as { code?: unknown })?.code;
  if (typeof type !== 'string' || typeof code !== 'number') return undefined;
  if (type === 'TOPIC_AUTHORIZATION_FAILED' || type === 'CLUSTER_AUTHORIZATION_FAILED')
    return new KafkaAuthorizationError({
      kafkaCode: code,
      kafkaName: type,
      resourceType: 'topic',
      resourceName: o.topic,
      usedBy: `the dead-letter topic of connector ${o.connector}: it does not exist and may not be created, or this principal may not see it`,
      principal: o.principal,
      needs: { operations: 'WRITE and CREATE', acl: '--operation Write --operation Create --topic' },
      alternative: `or create the topic beforehand (kafka-topics.sh --bootstrap-server … --create --topic ${o.topic} --partitions 1) and grant WRITE alone`,
      cause: err,
    });
  return new KafkaError(code, {
    api: 'CreateTopics',
    subject: `dead-letter topic ${o.topic} of connector ${o.connector}`,
    brokerMessage: (first as { message?: string }).message ?? null,
  });
}

/** kafkajs's `Not authorized to access topics: [Topic authorization failed]` as the grant to add. */
export function writeRefusal(
  err: unknown,
  o: Pick<DeadLetterQueueOptions, 'topic' | 'connector' | 'principal'>,
): Error | undefined {
  const type = (err as { type?: unknown } | null)?.type;
  if (type !== 'TOPIC_AUTHORIZATION_FAILED') return undefined;
  return new KafkaAuthorizationError({
    kafkaCode: KafkaErrorCode.TOPIC_AUTHORIZATION_FAILED,
    kafkaName: type,
    resourceType: 'topic',
    resourceName: o.topic,
    usedBy: `the dead-letter topic of connector ${o.connector}`,
    principal: o.principal,
    needs: { operations: 'WRITE', acl: '--operation Write --topic' },
    cause: err,
  });
}

const EMPTY = Buffer.alloc(0);

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
