/**
 * `group.protocol=consumer` (KIP-848) as a {@link ClassicSource}: sharesink's own consumer-protocol member
 * (src/kafka/consumer) under the classic task runner, so converters, SMTs, `errors.*` with the dead-letter
 * topic, `max.poll.records`, pause / resume and the counters behave as in classic mode. Java consumer
 * settings map as the Java client reads them with this protocol: `group.remote.assignor`,
 * `group.instance.id`, `max.poll.interval.ms` (the rebalance timeout), `auto.offset.reset`, the fetch
 * sizes; the session and heartbeat are the broker's (`group.consumer.*`), so the client's are not used.
 */
import type { Logger } from 'pino';
import { GroupConsumer } from '../../../kafka/consumer/group-consumer.js';
import type { ClassicClientOptions } from '../../../kafka/kafkajs/classic-consumer.js';
import type { ClassicSource, SourceFetch } from './source.js';

/** The Java consumer settings this source reads; the rest are listed once as not used. */
export const CONSUMER_PROTOCOL_KEYS: ReadonlySet<string> = new Set([
  'group.remote.assignor',
  'group.instance.id',
  'max.poll.interval.ms',
  'auto.offset.reset',
  'fetch.max.wait.ms',
  'fetch.min.bytes',
  'fetch.max.bytes',
  'max.partition.fetch.bytes',
  'max.poll.records',
  'group.protocol',
  'group.id',
  'client.id',
  'bootstrap.servers',
]);

/** The consumer settings given that this source does not read, for the task's one WARN. */
export function unusedConsumerSettings(props: Readonly<Record<string, string>> = {}): string[] {
  return Object.keys(props).filter((k) => !CONSUMER_PROTOCOL_KEYS.has(k));
}

export interface ConsumerProtocolSourceOptions extends Omit<ClassicClientOptions, 'logger'> {
  readonly groupId: string;
  readonly consumer: Readonly<Record<string, string>>;
  readonly logger: Logger;
  /** Partitions with the runner at once. Default 4. */
  readonly maxInFlightBatches?: number;
}

function int(props: Readonly<Record<string, string>>, key: string): number | undefined {
  const raw = props[key];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new TypeError(`consumer setting ${key}=${raw} is not a count`);
  return n;
}

export function consumerProtocolSource(o: ConsumerProtocolSourceOptions): ClassicSource {
  const p = o.consumer;
  const reset = (p['auto.offset.reset'] ?? 'earliest').toLowerCase();
  if (reset !== 'earliest' && reset !== 'latest' && reset !== 'none')
    throw new TypeError(`consumer setting auto.offset.reset=${reset}: accepted earliest, latest or none`);
  const consumer = new GroupConsumer({
    brokers: o.brokers,
    clientId: o.clientId,
    ssl: o.ssl,
    sasl: o.sasl,
    connectionTimeoutMs: o.connectionTimeoutMs,
    requestTimeoutMs: o.requestTimeoutMs,
    logger: o.logger,
    groupId: o.groupId,
    instanceId: p['group.instance.id'] ?? null,
    serverAssignor: p['group.remote.assignor'] ?? null,
    rebalanceTimeoutMs: int(p, 'max.poll.interval.ms') ?? 300_000,
    autoOffsetReset: reset,
    fetchMaxWaitMs: int(p, 'fetch.max.wait.ms'),
    fetchMinBytes: int(p, 'fetch.min.bytes'),
    fetchMaxBytes: int(p, 'fetch.max.bytes'),
    maxPartitionFetchBytes: int(p, 'max.partition.fetch.bytes'),
    concurrency: o.maxInFlightBatches,
    // the runner puts a fetch in chunks of max.poll.records (its default as classicConsumerSettings reads it)
    maxPollRecords: Math.max(1, int(p, 'max.poll.records') ?? 500),
  });
  let topics: string[] = [];
  let stopped: Promise<void> | undefined;
  const close = () => (stopped ??= consumer.close());
  return {
    onAssignment: (listener) =>
      consumer.onAssignment((owned) => {
        const byTopic: Record<string, number[]> = {};
        for (const tp of owned) (byTopic[tp.topic] ??= []).push(tp.partition);
        listener(byTopic);
      }),
    onCrash: (listener) => consumer.onCrash(listener),
    connect: () => Promise.resolve(),
    subscribe: (wanted) => {
      if (wanted.some((t) => typeof t !== 'string'))
        throw new TypeError(
          'group.protocol=consumer takes topics by name; topics.regex is not supported yet',
        );
      topics = wanted as string[];
      return Promise.resolve();
    },
    run: (eachFetch) =>
      consumer.start(topics, (f) => {
        const fetch: SourceFetch = {
          batch: { topic: f.topic, partition: f.partition, messages: [] },
          rawRecords: f.records,
          lastOffset: f.lastOffset,
          resolveOffset: (offset) => f.resolveOffset(offset),
          uncommittedOffsets: () => f.uncommittedOffsets(),
          commitOffsetsIfNecessary: () => f.commitOffsetsIfNecessary(),
          heartbeat: () => f.heartbeat(),
          isRunning: () => f.isRunning(),
          isStale: () => f.isStale(),
        };
        return eachFetch(fetch);
      }),
    pause: (t) => consumer.pause(t),
    resume: (t) => consumer.resume(t),
    stop: close,
    disconnect: close,
  };
}
