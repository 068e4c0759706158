/**
 * A compacted internal topic read from its beginning and written with acks=all: the config and status
 * topics. kafkajs 2.2 has no consumer without a group, so the reader joins a group of its own (a fresh
 * id per worker start, offsets never committed) and so holds every partition; what matters is the
 * position it has applied up to, which `readToEnd()` compares with the latest offsets.
 */
import { randomUUID } from 'node:crypto';
import { Partitioners, type Admin, type Consumer, type Kafka, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { SharesinkError } from '../../errors.js';

export interface LogRecord {
  readonly key: string;
  readonly value: string | null;
  readonly partition: number;
  readonly offset: bigint;
}

/** What the herder needs of an internal topic; `MemoryTopicLog` (tests) and `KafkaTopicLog` provide it. */
export interface TopicLog {
  /** Reads from the beginning, handing records over in topic order; resolves once read to the end. */
  start(onRecords: (records: readonly LogRecord[]) => void): Promise<void>;
  /** Resolves once every record written before the call has been handed over; rejects after `timeoutMs`. */
  readToEnd(timeoutMs: number): Promise<void>;
  /** Appends one record (null: a tombstone) with acks=all; resolves with its offset once acknowledged. */
  write(key: string, value: string | null): Promise<bigint>;
  close(): Promise<void>;
}

export class LogSyncTimeoutError extends SharesinkError {
  constructor(topic: string, timeoutMs: number) {
    super(
      'SHARESINK_DISTRIBUTED_SYNC_TIMEOUT',
      `The worker did not read topic ${topic} to its end within ${timeoutMs} ms (worker.sync.timeout.ms); the broker is slow or unreachable`,
    );
  }
}

export interface KafkaTopicLogOptions {
  readonly kafka: Kafka;
  readonly topic: string;
  /** Prefix of the reader's own group id (a fresh suffix per start). */
  readonly readerGroupPrefix: string;
  readonly logger: Logger;
}

export class KafkaTopicLog implements TopicLog {
  readonly #o: KafkaTopicLogOptions;
  readonly #consumer: Consumer;
  readonly #producer: Producer;
  readonly #admin: Admin;
  /** Next offset to hand over, by partition. */
  readonly #position = new Map<number, bigint>();
  readonly #waiters = new Set<() => void>();
  #connected = false;

  constructor(o: KafkaTopicLogOptions) {
    this.#o = o;
    this.#consumer = o.kafka.consumer({
      groupId: `${o.readerGroupPrefix}-${randomUUID()}`,
      sessionTimeout: 10_000,
      heartbeatInterval: 3_000,
      maxWaitTimeInMs: 250,
      retry: { retries: 10 },
    });
    this.#producer = o.kafka.producer({
      // Java's partitioner: a status key lands where a Java client would put it
      createPartitioner: Partitioners.DefaultPartitioner,
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
    this.#admin = o.kafka.admin();
  }

  async start(onRecords: (records: readonly LogRecord[]) => void): Promise<void> {
    await Promise.all([this.#consumer.connect(), this.#producer.connect(), this.#admin.connect()]);
    this.#connected = true;
    await this.#consumer.subscribe({ topic: this.#o.topic, fromBeginning: true });
    await this.#consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const partition = batch.partition;
        // kafkajs runs a crashed consumer again (a broker outage) in its group, which commits nothing:
        // it reads the topic from the start once more. Handed over twice, every connector config read
        // as new restarted every connector after each outage; what was handed over is skipped instead.
        const from = this.#position.get(partition) ?? 0n;
        const records: LogRecord[] = [];
        for (const m of batch.messages) {
          const offset = BigInt(m.offset);
          if (offset < from) continue;
          records.push({
            key: m.key?.toString('utf8') ?? '',
            value: m.value === null ? null : m.value.toString('utf8'),
            partition,
            offset,
          });
        }
        if (records.length > 0) onRecords(records);
        const last = BigInt(batch.lastOffset()) + 1n;
        if (last > (this.#position.get(partition) ?? 0n)) this.#position.set(partition, last);
        for (const w of this.#waiters) w();
        await Promise.resolve();
      },
    });
    await this.readToEnd(60_000);
  }

  async readToEnd(timeoutMs: number): Promise<void> {
    const ends = await this.#admin.fetchTopicOffsets(this.#o.topic);
    const caughtUp = () =>
      ends.every((e) => e.high === e.low || (this.#position.get(e.partition) ?? 0n) >= BigInt(e.high));
    if (caughtUp()) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!caughtUp()) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new LogSyncTimeoutError(this.#o.topic, timeoutMs));
      }, timeoutMs);
      this.#waiters.add(check);
    });
  }

  async write(key: string, value: string | null): Promise<bigint> {
    const [meta] = await this.#producer.send({
      topic: this.#o.topic,
      acks: -1,
      messages: [{ key, value }],
    });
    return BigInt(meta?.baseOffset ?? '-1');
  }

  async close(): Promise<void> {
    if (!this.#connected) return;
    this.#connected = false;
    for (const step of [this.#consumer, this.#producer, this.#admin])
      await step
        .disconnect()
        .catch((err: Error) => this.#o.logger.debug({ err }, 'internal topic client close'));
  }
}

/** An in-memory log with the same contract, for unit tests of the herder (several herders may share one). */
export class MemoryTopicLog implements TopicLog {
  readonly #records: LogRecord[] = [];
  readonly #readers = new Set<(records: readonly LogRecord[]) => void>();

  start(onRecords: (records: readonly LogRecord[]) => void): Promise<void> {
    if (this.#records.length > 0) onRecords([...this.#records]);
    this.#readers.add(onRecords);
    return Promise.resolve();
  }

  readToEnd(): Promise<void> {
    return Promise.resolve();
  }

  write(key: string, value: string | null): Promise<bigint> {
    const record: LogRecord = { key, value, partition: 0, offset: BigInt(this.#records.length) };
    this.#records.push(record);
    for (const r of this.#readers) r([record]);
    return Promise.resolve(record.offset);
  }

  /** A view of the log that reads and writes the same records (another worker). */
  reader(): TopicLog {
    let mine: ((records: readonly LogRecord[]) => void) | undefined;
    return {
      start: (onRecords) => {
        mine = onRecords;
        return this.start(onRecords);
      },
      readToEnd: () => Promise.resolve(),
      write: (key, value) => this.write(key, value),
      close: () => {
        if (mine !== undefined) this.#readers.delete(mine);
        return Promise.resolve();
      },
    };
  }

  get records(): readonly LogRecord[] {
    return this.#records;
  }

  close(): Promise<void> {
    this.#readers.clear();
    return Promise.resolve();
  }
}
