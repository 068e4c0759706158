/**
 * Share lag for `/metrics`, read off the hot path: one DescribeShareGroupOffsets per share-mode
 * connector at its group coordinator, at most once per `metrics.lag.poll.interval.ms`, and only while
 * `/metrics` is scraped. A scrape shows the last reading and, when that is older than the interval,
 * starts the next one in the background, so a scrape never waits for the broker: the lag series appear
 * from the scrape after the first reading. Nobody scraping means no requests at all.
 */
import type { Logger } from 'pino';
import { KafkaCluster } from '../kafka/cluster.js';
import { kafkajsSecurityOptions } from '../kafka/security/index.js';
import type { PartitionOffset } from './connect-shape.js';
import type { OffsetsConnectorConfig, OffsetsWorkerConfig } from './connector-offsets.js';
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
  reading: LagReading | undefined;
  errors: number;
  running: Promise<void> | undefined;
  /** When the last reading started, successful or not: failures wait an interval too. */
  startedAt: number;
}

export class ShareLagPoller {
  readonly #entries = new Map<string, Entry>();
  #closed = false;

  constructor(
    private readonly worker: OffsetsWorkerConfig,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Called by each scrape with the connectors (those in share mode are read): starts the readings that
   * are due, in the background, and returns the last reading per connector at once.
   */
  scrape(connectors: readonly OffsetsConnectorConfig[]): Map<string, ConnectorLag> {
    for (const c of connectors) {
      if (c.groupProtocol !== 'share') continue;
      let e = this.#entries.get(c.name);
      if (e === undefined)
        this.#entries.set(
          c.name,
          (e = {
            cluster: undefined,
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
    await Promise.all(entries.map((e) => e.cluster?.close().catch(() => undefined)));
  }

  #read(c: OffsetsConnectorConfig, e: Entry): void {
    e.startedAt = this.now();
    e.cluster ??= new KafkaCluster({
      ...kafkajsSecurityOptions(c.security?.admin ?? this.worker.security?.admin),
      brokers: this.worker.bootstrapServers,
      clientId: `${this.worker.clientId}-lag`,
      logger: this.logger,
    });
    const cluster = e.cluster;
    e.running = (async () => {
      try {
        const partitions = await describeShareOffsets(cluster, c.groupId);
        if (!this.#closed) e.reading = { at: this.now(), partitions };
      } catch (err) {
        e.errors++;
        this.logger.warn(
          { connector: c.name, groupId: c.groupId, err: (err as Error).message },
          'share lag reading failed; /metrics keeps the previous one',
        );
      } finally {
        e.running = undefined;
      }
    })();
  }
}
