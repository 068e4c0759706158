/**
 * Lag for `/metrics`, read off the hot path, at most once per `metrics.lag.poll.interval.ms` per
 * connector and only while `/metrics` is scraped: share mode, one DescribeShareGroupOffsets at the
 * group coordinator (the broker computes the lag); classic mode, the committed offsets and each topic's
 * end offsets through kafkajs's admin (lag = end - committed, partitions with a commit only). A scrape shows the last reading and, when that is older than the interval,
 * starts the next one in the background, so a scrape never waits for the broker: the lag series appear
 * from the scrape after the first reading. Nobody scraping means no requests at all.
 */
import type { Logger } from 'pino';
import type { Admin } from 'kafkajs';
import { createClassicKafka } from '../kafka/kafkajs/classic-consumer.js';
import { KafkaCluster } from '../kafka/cluster.js';
import { kafkajsSecurityOptions } from '../kafka/security/index.js';
import type { PartitionOffset } from './connect-shape.js';
import type { OffsetsConnectorConfig, OffsetsWorkerConfig } from './connector-offsets.js';
import { readClassicOffsets } from './classic-offsets.js';
import { describeShareOffsets } from './share-offsets.js';

export interface LagReading {
  /** Unix ms of the reading. */
  readonly at: number;
  readonly partitions: readonly PartitionOffset[];
}

export interface ConnectorLag {
  readonly reading: LagReading | undefined;
  readonly errors: number;
}

interface Entry {
  cluster: KafkaCluster | undefined;
  admin: Admin | undefined;
  reading: LagReading | undefined;
  errors: number;
  running: Promise<void> | undefined;
  /** When the last reading started, successful or not: failures wait an interval too. */
  startedAt: number;
}

/** Classic lag: end offset minus committed offset, per partition the group has committed. */
async function readClassicLag(admin: Admin, groupId: string): Promise<PartitionOffset[]> {
  const committed = await readClassicOffsets(admin, groupId);
  const ends = new Map<string, Map<number, number>>();
  for (const topic of new Set(committed.map((p) => p.topic)))
    ends.set(
      topic,
      new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, Number(o.high)])),
    );
  return committed.map((p) => {
    const end = ends.get(p.topic)?.get(p.partition);
    return { ...p, lag: end === undefined ? undefined : Math.max(0, end - p.offset) };
  });
}

export class LagPoller {
  readonly #entries = new Map<string, Entry>();
  #closed = false;

  constructor(
    private readonly worker: OffsetsWorkerConfig,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Called by each scrape with the connectors: starts the readings that are due, in the background, and
   * returns the last reading per connector at once.
   */
  scrape(connectors: readonly OffsetsConnectorConfig[]): Map<string, ConnectorLag> {
    for (const c of connectors) {
      let e = this.#entries.get(c.name);
      if (e === undefined)
        this.#entries.set(
          c.name,
          (e = {
            cluster: undefined,
            admin: undefined,
            reading: undefined,
            errors: 0,
            running: undefined,
            startedAt: -Infinity,
          }),
        );
      if (e.running === undefined && this.now() - e.startedAt >= this.intervalMs) this.#read(c, e);
    }
    const out = new Map<string, ConnectorLag>();
    for (const c of connectors) {
      const e = this.#entries.get(c.name);
      if (e !== undefined) out.set(c.name, { reading: e.reading, errors: e.errors });
    }
    return out;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(
      entries.flatMap((e) => [
        e.cluster?.close().catch(() => undefined),
        e.admin?.disconnect().catch(() => undefined),
      ]),
    );
  }

  #read(c: OffsetsConnectorConfig, e: Entry): void {
    e.startedAt = this.now();
    const security = kafkajsSecurityOptions(c.security?.admin ?? this.worker.security?.admin);
    const clientId = `${this.worker.clientId}-lag`;
    const { bootstrapServers: brokers } = this.worker;
    let read: () => Promise<PartitionOffset[]>;
    if (c.groupProtocol === 'share') {
      const cluster = (e.cluster ??= new KafkaCluster({
        ...security,
        brokers,
        clientId,
        logger: this.logger,
      }));
      read = () => describeShareOffsets(cluster, c.groupId);
    } else {
      const admin = (e.admin ??= createClassicKafka({
        ...security,
        brokers,
        clientId,
        logger: this.logger,
      }).admin());
      read = async () => {
        await admin.connect(); // kafkajs: a no-op once connected
        return readClassicLag(admin, c.groupId);
      };
    }
    e.running = (async () => {
      try {
        const partitions = await read();
        if (!this.#closed) e.reading = { at: this.now(), partitions };
      } catch (err) {
        e.errors++;
        this.logger.warn(
          { connector: c.name, groupId: c.groupId, err: (err as Error).message },
          'lag reading failed; /metrics keeps the previous one',
        );
      } finally {
        e.running = undefined;
      }
    })();
  }
}
