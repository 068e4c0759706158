import {
  CompressionTypes,
  Kafka,
  Partitioners,
  logLevel,
  type IHeaders,
  type Message,
  type Producer,
  type TopicMessages,
} from 'kafkajs';
import { SimpleHeaderConverter } from '../../connect/converters/simple-header-converter.js';
import { ConnectError, DataError, RetriableError } from '../../connect/errors.js';
import { SinkConnector } from '../../connect/sink-connector.js';
import type { SinkRecord } from '../../connect/sink-record.js';
import { SinkTask } from '../../connect/sink-task.js';
import { ConfigError } from '../../errors.js';
import '../../kafka/kafkajs/request-queue.js';
import { kafkajsSecurityOptions } from '../../kafka/security/index.js';
import { KAFKA_SINK_CONFIG, kafkaSinkSettings, type KafkaSinkSettings } from './config.js';
import { errorChain, explainTargetError } from './target-errors.js';

const VERSION = '0.1.0';

/** Produces every record to a topic of the same or another Kafka cluster; see docs/sinks.md. */
export class KafkaSinkConnector extends SinkConnector {
  #props: Readonly<Record<string, string>> = {};

  version(): string {
    return VERSION;
  }

  config(): typeof KAFKA_SINK_CONFIG {
    return KAFKA_SINK_CONFIG;
  }

  override validate(props: Readonly<Record<string, string>>): Map<string, string[]> {
    const problems = super.validate(props);
    if (problems.size > 0) return problems;
    try {
      kafkaSinkSettings(props);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // each problem under the key it names (`producer.override.sasl.mechanism: …`)
      for (const problem of error.problems) {
        const key = problem.key ?? 'bootstrap.servers';
        problems.set(key, [...(problems.get(key) ?? []), String(problem)]);
      }
    }
    return problems;
  }

  start(props: Readonly<Record<string, string>>): void {
    kafkaSinkSettings(props);
    this.#props = props;
  }

  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.#props }));
  }

  stop(): void {}
}

// the broker refuses these for what is in the records, so retrying the same records cannot help
const RECORD_ERRORS = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'INVALID_TIMESTAMP',
]);

const HEADERS = new SimpleHeaderConverter();
const EMPTY = Buffer.alloc(0);

/**
 * One idempotent kafkajs producer (acks=all) per task instance. The idempotent producer removes the
 * duplicates its own retries would make; a batch redelivered from the source after a failed or
 * aborted put is produced again, so the target gets at-least-once delivery.
 */
export class KafkaSinkTask extends SinkTask {
  #cfg!: KafkaSinkSettings;
  #producer: Producer | undefined;
  #connected: Promise<void> | undefined;

  version(): string {
    return VERSION;
  }

  async start(props: Readonly<Record<string, string>>): Promise<void> {
    const cfg = kafkaSinkSettings(props);
    await this.#disconnect();
    this.#cfg = cfg;
    const retry = { retries: cfg.retries };
    const kafka = new Kafka({
      ...kafkajsSecurityOptions(cfg.security),
      clientId: cfg['client.id'],
      brokers: cfg.brokers,
      requestTimeout: cfg['request.timeout.ms'],
      retry,
      // tasks run in worker threads, which must not log: failures surface as put() errors
      logLevel: logLevel.NOTHING,
    });
    this.#producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: cfg['max.in.flight.requests.per.connection'],
      retry,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    const producer = this.#producer;
    if (producer === undefined) throw new ConnectError('KafkaSinkTask.put() before start()');
    if (records.length === 0) return;
    try {
      this.#connected ??= producer.connect();
      await this.#connected;
    } catch (error) {
      this.#connected = undefined;
      throw this.#failure(error, 'cannot connect to the target Kafka cluster', records);
    }
    try {
      await this.#send(records);
    } catch (error) {
      if (!isRecordError(error)) throw this.#failure(error, 'producing to Kafka failed', records);
      await this.#isolate(records);
    }
  }

  async stop(): Promise<void> {
    await this.#disconnect();
  }

  #send(records: readonly SinkRecord[]): Promise<unknown> {
    const byTopic = new Map<string, Message[]>();
    for (const record of records) {
      const topic = this.#targetTopic(record);
      const messages = byTopic.get(topic) ?? [];
      messages.push(this.#message(record));
      byTopic.set(topic, messages);
    }
    const topicMessages: TopicMessages[] = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    return this.#producer!.sendBatch({
      topicMessages,
      acks: -1,
      timeout: this.#cfg['request.timeout.ms'],
      compression:
        this.#cfg['compression.type'].toLowerCase() === 'gzip'
          ? CompressionTypes.GZIP
          : CompressionTypes.None,
    });
  }

  /**
   * The broker refused something in the batch: send the records one by one and report those it
   * refuses. Records of the batch that had already been written are written again.
   */
  async #isolate(records: readonly SinkRecord[]): Promise<void> {
    const report = this.context.errantRecordReporter();
    for (const record of records) {
      try {
        await this.#send([record]);
      } catch (error) {
        if (!isRecordError(error)) throw this.#failure(error, 'producing to Kafka failed', [record]);
        const { topic, partition, offset } = record;
        report(
          record,
          new DataError(`Kafka refused ${topic}-${partition}@${offset}: ${messageOf(error)}`, {
            cause: error,
          }),
        );
      }
    }
  }

  #targetTopic(record: SinkRecord): string {
    return this.#cfg.topic.replaceAll('${topic}', record.topic);
  }

  /** What a failed connect or send becomes: the target refusing the producer is retriable (target-errors.ts). */
  #failure(error: unknown, what: string, records: readonly SinkRecord[]): Error {
    const explained = explainTargetError(error, {
      brokers: this.#cfg.brokers,
      security: this.#cfg.security,
      topics: [...new Set(records.map((r) => this.#targetTopic(r)))],
    });
    return explained === undefined
      ? toConnectError(error, what)
      : new RetriableError(explained, { cause: error });
  }

  #message(record: SinkRecord): Message {
    const headers: IHeaders = {};
    for (const h of record.headers) {
      const bytes = HEADERS.fromConnectHeader(record.topic, h.key, h.schema, h.value);
      // kafkajs 2.2.4 cannot size a null header value (Buffer.byteLength(null) throws): send it empty
      const value = bytes === null ? EMPTY : toBuffer(bytes);
      const previous = headers[h.key];
      if (previous === undefined) headers[h.key] = value;
      else headers[h.key] = [...(Array.isArray(previous) ? previous : [previous]), value];
    }
    return {
      key: toBytes(record.key),
      value: toBytes(record.value),
      headers,
      timestamp: record.timestamp === null ? undefined : String(record.timestamp),
      partition: this.#cfg['partition.preserve'] ? record.partition : undefined,
    };
  }

  async #disconnect(): Promise<void> {
    const producer = this.#producer;
    this.#producer = undefined;
    this.#connected = undefined;
    // also after a failed connect: kafkajs may keep sockets to the brokers it did reach
    await producer?.disconnect();
  }
}

/**
 * Bytes for a key or value. Buffers (ByteArrayConverter) pass through untouched, strings
 * (StringConverter) as UTF-8, anything else (JsonConverter's objects, numbers, …) as schemaless JSON.
 */
export function toBytes(value: unknown): Buffer | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) return toBuffer(value);
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  const json = JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    const original = this[key];
    if (original instanceof Uint8Array) return Buffer.from(original).toString('base64');
    if (original instanceof Map) return Object.fromEntries(original);
    return typeof v === 'bigint' ? v.toString() : v;
  });
  return Buffer.from(json, 'utf8');
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function isRecordError(error: unknown): boolean {
  return errorChain(error).some((e) => RECORD_ERRORS.has(String((e as { type?: unknown }).type)));
}

/**
 * kafkajs marks transient errors `retriable`, and wraps them in KafkaJSNumberOfRetriesExceeded (or a
 * non-retriable connect error) once its own retries are spent; the batch may still succeed later.
 */
function isRetriable(error: unknown): boolean {
  return errorChain(error).some((e) => {
    const { name, retriable } = e as { name?: unknown; retriable?: unknown };
    return (
      retriable === true ||
      name === 'KafkaJSNumberOfRetriesExceeded' ||
      name === 'KafkaJSConnectionError' ||
      name === 'KafkaJSConnectionClosedError' ||
      name === 'KafkaJSRequestTimeoutError' ||
      name === 'KafkaJSBrokerNotFound'
    );
  });
}

function toConnectError(error: unknown, what: string): Error {
  const message = `${what}: ${messageOf(error)}`;
  return isRetriable(error)
    ? new RetriableError(message, { cause: error })
    : new ConnectError(message, { cause: error });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
