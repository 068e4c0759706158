/**
 * The classic-group source: kafkajs's own client, consumer and producer, configured the way a Connect
 * user expects (Java consumer property names and defaults), logging through our pino logger, with every
 * compression codec the share path reads. Nothing here knows about connectors.
 */
import { Kafka, logLevel, type ConsumerConfig } from 'kafkajs';
import type { Logger } from 'pino';
import { pinoLogCreator } from './pino-log.js';
import { registerKafkajsCompressionCodecs, type SaslConfig, type SslConfig } from './internals.js';

export interface ClassicClientOptions {
  /** Bootstrap addresses, `host:port`. */
  readonly brokers: readonly string[];
  /** Default `sharesink`. */
  readonly clientId?: string;
  readonly logger: Logger;
  readonly ssl?: SslConfig;
  readonly sasl?: SaslConfig;
  /** Default 10 000. */
  readonly connectionTimeoutMs?: number;
  /** Default 30 000. */
  readonly requestTimeoutMs?: number;
}

/** A kafkajs client whose logs go to `logger` and which reads snappy, lz4 and zstd batches. */
export function createClassicKafka(options: ClassicClientOptions): Kafka {
  registerKafkajsCompressionCodecs();
  const { logger } = options;
  return new Kafka({
    clientId: options.clientId ?? 'sharesink',
    brokers: [...options.brokers],
    ssl: options.ssl,
    sasl: options.sasl as ConstructorParameters<typeof Kafka>[0]['sasl'],
    connectionTimeout: options.connectionTimeoutMs ?? 10_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    // kafkajs filters by level before it formats anything, so its per-request DEBUG lines are asked
    // for only when pino keeps them; INFO always, few as they are, because "joined the group" is what
    // ends a coordinator wait (classic-log.ts)
    logLevel: logger.isLevelEnabled('trace') ? logLevel.DEBUG : logLevel.INFO,
    logCreator: pinoLogCreator(logger),
  });
}

export interface ClassicConsumerSettings {
  readonly config: ConsumerConfig;
  /** `auto.offset.reset`: where a partition without a committed offset starts. */
  readonly fromBeginning: boolean;
  /** Keys the kafkajs consumer has no equivalent for; the caller logs them once. */
  readonly ignored: readonly string[];
  /** `max.poll.records`: the most records one put carries (a kafkajs fetch is cut into puts of this size). */
  readonly maxPollRecords: number;
}

const IGNORED_QUIETLY = new Set(['group.protocol', 'group.id', 'client.id', 'bootstrap.servers']);

/**
 * Maps Java consumer settings (`consumer.*` / `consumer.override.*` with the prefix removed) onto the
 * kafkajs consumer, with the Java client's defaults where they differ from kafkajs's: Connect users tune
 * these by their Java names and expect Java behaviour (e.g. read_uncommitted, a 45 s session, and
 * `earliest` for sink connectors, which Connect sets by default).
 */
export function classicConsumerSettings(
  groupId: string,
  props: Readonly<Record<string, string>> = {},
): ClassicConsumerSettings {
  const ignored: string[] = [];
  const int = (key: string, fallback: number): number => {
    const raw = props[key];
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < 0)
      throw new TypeError(`consumer setting ${key}=${raw} is not a count`);
    return n;
  };
  const reset = (props['auto.offset.reset'] ?? 'earliest').toLowerCase();
  if (reset !== 'earliest' && reset !== 'latest')
    throw new TypeError(
      `consumer setting auto.offset.reset=${reset}: classic mode supports earliest or latest`,
    );
  const isolation = (props['isolation.level'] ?? 'read_uncommitted').toLowerCase();
  const known = new Set([
    'auto.offset.reset',
    'isolation.level',
    'session.timeout.ms',
    'heartbeat.interval.ms',
    'max.poll.interval.ms',
    'max.partition.fetch.bytes',
    'fetch.max.bytes',
    'fetch.min.bytes',
    'fetch.max.wait.ms',
    'max.poll.records',
  ]);
  for (const key of Object.keys(props)) if (!known.has(key) && !IGNORED_QUIETLY.has(key)) ignored.push(key);
  return {
    fromBeginning: reset === 'earliest',
    maxPollRecords: Math.max(1, int('max.poll.records', 500)),
    ignored,
    config: {
      groupId,
      sessionTimeout: int('session.timeout.ms', 45_000),
      heartbeatInterval: int('heartbeat.interval.ms', 3_000),
      // the Java consumer uses max.poll.interval.ms as its rebalance timeout
      rebalanceTimeout: int('max.poll.interval.ms', 300_000),
      maxBytesPerPartition: int('max.partition.fetch.bytes', 1_048_576),
      maxBytes: int('fetch.max.bytes', 52_428_800),
      minBytes: int('fetch.min.bytes', 1),
      maxWaitTimeInMs: int('fetch.max.wait.ms', 500),
      readUncommitted: isolation !== 'read_committed',
      allowAutoTopicCreation: false,
    },
  };
}

/** Errors after which the member must rejoin the group; kafkajs rejoins when eachBatch throws one. */
export { messageTimestampType } from './internals.js';

/** Errors after which the member must rejoin the group; kafkajs rejoins when eachBatch throws one. */
export function isRejoinError(err: unknown): boolean {
  const type = (err as { type?: unknown } | null)?.type;
  return (
    type === 'REBALANCE_IN_PROGRESS' ||
    type === 'ILLEGAL_GENERATION' ||
    type === 'NOT_COORDINATOR_FOR_GROUP' ||
    type === 'UNKNOWN_MEMBER_ID'
  );
}
