import { ConfigDef, type ConfigValues } from '../../connect/config-def.js';
import { atLeast, between, nonEmptyString, oneOf } from '../../connect/config-validators.js';
import { ConfigError } from '../../errors.js';
import { overlaySecurityProps, parseKafkaSecurity, type KafkaSecurity } from '../../kafka/security/index.js';

/** Where the source cluster is, when the connector names it; the task's props are the connector's. */
export const SOURCE_BOOTSTRAP = 'consumer.override.bootstrap.servers';

export const KAFKA_SINK_CONFIG = new ConfigDef()
  .define({
    name: 'bootstrap.servers',
    type: 'list',
    default: null,
    importance: 'high',
    documentation:
      `host:port list of the target cluster. Unset means the source cluster as given by ${SOURCE_BOOTSTRAP}; ` +
      "connectors do not see the worker's bootstrap.servers, so one of the two is required.",
  })
  .define({
    name: 'topic',
    type: 'string',
    validator: nonEmptyString(),
    importance: 'high',
    documentation: 'Target topic; every ${topic} is replaced by the source topic (e.g. ${topic}.mirror).',
  })
  .define({
    name: 'partition.preserve',
    type: 'boolean',
    default: false,
    importance: 'medium',
    documentation:
      'true: write each record to the partition number it came from (the target topic needs at least as ' +
      "many partitions). false: Kafka's default partitioner (murmur2 of the key, as Java clients).",
  })
  .define({
    name: 'client.id',
    type: 'string',
    default: 'sharesink-kafka-sink',
    validator: nonEmptyString(),
    importance: 'low',
    documentation: 'client.id of the producer.',
  })
  .define({
    name: 'compression.type',
    type: 'string',
    default: 'none',
    validator: oneOf(['none', 'gzip'], { caseInsensitive: true }),
    importance: 'low',
    documentation: 'Compression of produced batches (kafkajs ships gzip only).',
  })
  .define({
    name: 'max.in.flight.requests.per.connection',
    type: 'int',
    default: 1,
    validator: between(1, 5),
    importance: 'low',
    documentation: 'Unacknowledged requests per broker connection; the idempotent producer allows at most 5.',
  })
  .define({
    name: 'request.timeout.ms',
    type: 'int',
    default: 30_000,
    validator: atLeast(1),
    importance: 'low',
    documentation: 'How long a produce request may take before it is retried.',
  })
  .define({
    name: 'retries',
    type: 'int',
    default: 5,
    validator: atLeast(1),
    importance: 'low',
    documentation:
      'Retries of a failing send inside one put (exponential backoff from 300 ms) before the put fails with ' +
      'a RetriableError and the batch is redelivered.',
  });

export type KafkaSinkSettings = ConfigValues<typeof KAFKA_SINK_CONFIG> & {
  brokers: string[];
  /** The producer's TLS / SASL, from `producer.override.*` (Connect's keys). */
  security: KafkaSecurity;
};

export function kafkaSinkSettings(props: Readonly<Record<string, string | undefined>>): KafkaSinkSettings {
  const cfg = KAFKA_SINK_CONFIG.parse(props);
  const brokers = cfg['bootstrap.servers'] ?? splitList(props[SOURCE_BOOTSTRAP]);
  if (brokers.length === 0) {
    throw new ConfigError([
      `bootstrap.servers: is required unless ${SOURCE_BOOTSTRAP} names the source cluster; accepted: a comma-separated list of host:port`,
    ]);
  }
  const defined = Object.fromEntries(
    Object.entries(props).filter((e): e is [string, string] => e[1] !== undefined),
  );
  // writing back to the source cluster: the consumer's credentials are the producer's unless it overrides them
  const layers =
    cfg['bootstrap.servers'] === null
      ? [
          { props: defined, prefix: 'consumer.override.' },
          { props: defined, prefix: 'producer.override.' },
        ]
      : [{ props: defined, prefix: 'producer.override.' }];
  const check = parseKafkaSecurity(overlaySecurityProps(layers));
  if (check.security === undefined) throw new ConfigError(check.problems);
  return { ...cfg, brokers, security: check.security };
}

function splitList(raw: string | undefined): string[] {
  const trimmed = raw?.trim() ?? '';
  return trimmed === '' ? [] : trimmed.split(/\s*,\s*/);
}
