/**
 * The kit's own Kafka clients for a check (never through the relays): the run's topic, its records,
 * and what the broker says was done: the share group's start offsets or the consumer group's
 * committed offsets, read the way `GET /connectors/{name}/offsets` reads them.
 */
import type { Admin, Kafka, Message, Producer, RecordMetadata } from 'kafkajs';
import type { Logger } from 'pino';
import type { ConnectorConfig, WorkerConfig } from '../../config/types.js';
import { createClassicKafka } from '../../kafka/kafkajs/classic-consumer.js';
import { kafkajsSecurityOptions } from '../../kafka/security/index.js';
import { ConnectorOffsetsService } from '../../offsets/connector-offsets.js';
import { countIds } from './observers/types.js';
import { readTopic } from './topic-reader.js';

/** A produced record: its id and where it landed. */
export interface ProducedRecord {
  readonly id: string;
  readonly partition: number;
  readonly offset: number;
}

/** How a record's value is written: a JSON object, in JsonConverter's envelope when schemas are on. */
export type ValueShape = 'json' | 'json-with-schema';

export function valueShape(
  worker: Readonly<Record<string, string>>,
  connector: Readonly<Record<string, string>>,
): ValueShape {
  const get = (k: string) => connector[k] ?? worker[k];
  const converter = get('value.converter') ?? '';
  const schemas = (get('value.converter.schemas.enable') ?? 'true').trim().toLowerCase();
  return converter.endsWith('JsonConverter') && schemas !== 'false' ? 'json-with-schema' : 'json';
}

function encodeValue(id: string, n: number, shape: ValueShape): string {
  const payload = { id, n };
  if (shape === 'json') return JSON.stringify(payload);
  return JSON.stringify({
    schema: {
      type: 'struct',
      optional: false,
      fields: [
        { field: 'id', type: 'string', optional: false },
        { field: 'n', type: 'int32', optional: false },
      ],
    },
    payload,
  });
}

/** Retries a call failing with a broker error for up to 10 s (a new topic's partitions, a moving coordinator). */
async function retried<T>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

export class CheckCluster {
  readonly #admin: Admin;
  readonly #kafka: Kafka;
  /**
   * One producer per run's topic (runs overlap with `parallel`): kafkajs refreshes the metadata of
   * every topic a producer sent to, deleted ones too. release() ends a run's.
   */
  readonly #producers = new Map<string, Promise<Producer>>();
  readonly #offsets: ConnectorOffsetsService;

  constructor(
    private readonly worker: WorkerConfig,
    logger: Logger,
  ) {
    const kafka = createClassicKafka({
      ...kafkajsSecurityOptions(worker.security?.admin),
      brokers: worker.bootstrapServers,
      clientId: 'sharesink-check',
      // the kit's own clients say nothing a person checking a connector needs (kafkajs's partitioner notice)
      logger: logger.child({}, { level: 'error' }),
    });
    this.#kafka = kafka;
    this.#admin = kafka.admin();
    this.#offsets = new ConnectorOffsetsService(worker, logger);
  }

  async connect(): Promise<void> {
    await this.#admin.connect();
  }

  /** Every broker's advertised address, as the worker's clients will dial it. */
  async brokers(): Promise<Array<{ host: string; port: number }>> {
    const { brokers } = await this.#admin.describeCluster();
    const seen = new Map<string, { host: string; port: number }>();
    for (const b of brokers) seen.set(`${b.host}:${b.port}`, { host: b.host, port: b.port });
    for (const s of this.worker.bootstrapServers) {
      const i = s.lastIndexOf(':');
      const host = s.slice(0, i);
      const port = Number(s.slice(i + 1));
      seen.set(`${host}:${port}`, { host, port });
    }
    return [...seen.values()];
  }

  async createTopic(topic: string, partitions: number): Promise<void> {
    await this.#withAdmin((a) =>
      a.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true }),
    );
  }

  async deleteTopic(topic: string): Promise<void> {
    await this.#withAdmin((a) => a.deleteTopics({ topics: [topic] })).catch(() => undefined);
  }

  /**
   * A short-lived admin client: kafkajs's admin refreshes the metadata of every topic it waited for,
   * so one client that created and deleted an earlier run's topic fails on the next.
   */
  async #withAdmin<T>(job: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = this.#kafka.admin();
    await admin.connect();
    try {
      return await job(admin);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  /** Produces records `first`…`first+count-1`, round robin over the partitions; acks=all. */
  async produce(
    topic: string,
    partitions: number,
    idPrefix: string,
    first: number,
    count: number,
    shape: ValueShape,
  ): Promise<ProducedRecord[]> {
    const out: ProducedRecord[] = [];
    // one send per partition: kafkajs answers with the batch's base offset, the rest follow in order
    for (let p = 0; p < partitions; p++) {
      const ns: number[] = [];
      for (let n = first; n < first + count; n++) if (n % partitions === p) ns.push(n);
      if (ns.length === 0) continue;
      const messages = ns.map((n) => ({
        partition: p,
        key: String(n),
        value: encodeValue(`${idPrefix}${n}`, n, shape),
      }));
      const [meta] = await this.#send(topic, messages);
      const base = Number(meta!.baseOffset);
      ns.forEach((n, i) => out.push({ id: `${idPrefix}${n}`, partition: p, offset: base + i }));
    }
    return out;
  }

  /**
   * Per partition of `topic`: the offset below which the group is done with every record. Classic:
   * the committed offset. Share: the start offset, or every offset when the broker reports no lag
   * (records acknowledged beyond the start offset are not behind it: the start offset is persisted
   * lazily, the lag of Kafka 4.2+ counts them).
   */
  async doneOffsets(connector: ConnectorConfig, topic: string): Promise<Map<number, number>> {
    const body = await retried(() => this.#offsets.read(connector));
    const done = new Map<number, number>();
    for (const o of body.offsets)
      if (o.partition.kafka_topic === topic)
        done.set(
          o.partition.kafka_partition,
          o.offset.lag === 0 ? Number.MAX_SAFE_INTEGER : o.offset.kafka_offset,
        );
    return done;
  }

  /** A new topic's partitions can take a moment to be known to every broker. */
  async #send(topic: string, messages: Message[]): Promise<RecordMetadata[]> {
    let connected = this.#producers.get(topic);
    if (connected === undefined) {
      const producer = this.#kafka.producer({ allowAutoTopicCreation: false, idempotent: false });
      connected = producer.connect().then(() => producer);
      this.#producers.set(topic, connected);
    }
    const producer = await connected;
    return retried(() => producer.send({ topic, acks: -1, messages }));
  }

  /** Ends the producer of a run's topic (the run is over). */
  async release(topic: string): Promise<void> {
    const connected = this.#producers.get(topic);
    this.#producers.delete(topic);
    await connected?.then((p) => p.disconnect()).catch(() => undefined);
  }

  /**
   * The ids of a run found in a dead-letter topic's records (values, keys and headers as text), read
   * from the beginning up to the end offsets of now. Empty when the topic does not exist.
   */
  async idsInTopic(topic: string, idPrefix: string): Promise<Set<string>> {
    const { messages } = await readTopic(this.#kafka, topic, `sharesink-check-dlq-${idPrefix}`);
    const found = new Set<string>();
    for (const message of messages) {
      const headers = Object.values(message.headers ?? {}).map((h) => String(h));
      const text = [message.value?.toString() ?? '', message.key?.toString() ?? '', ...headers].join('\n');
      for (const id of countIds(text, idPrefix).keys()) found.add(id);
    }
    return found;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#producers.keys()].map((t) => this.release(t)));
    await this.#admin.disconnect().catch(() => undefined);
  }
}
