/**
 * The compiled configuration the runtime sees: strict, fully defaulted, durations in ms. Users write
 * Connect-style `.properties` / JSON (loose strings); `compileWorkerConfig` / `compileConnectorConfig`
 * turn them into these shapes or throw one ConfigError listing every problem.
 */
import type { ConvertersConfig } from '../connect/converters/registry.js';
import type { TransformsConfig } from '../connect/transforms/spec.js';
import type { UnusedSetting } from './connect-worker-keys.js';
import type { ClientSecurities } from './client-security.js';
import type { ConfigProviders } from './config-providers.js';
import type { OverridePolicy } from './override-policy.js';
import type { RestSecurity } from './rest-security.js';

/**
 * How a connector reads Kafka: a share group (KIP-932), a classic consumer group (kafkajs), or a consumer
 * group on the consumer protocol (KIP-848, sharesink's own client). `classic` and `consumer` share the
 * classic task runner: exclusive partitions, offsets committed after successful puts.
 */
export type GroupProtocol = 'share' | 'classic' | 'consumer';

export interface WorkerConfig {
  /** `bootstrap.servers`, split on commas. */
  readonly bootstrapServers: readonly string[];
  /** `client.id` prefix for every Kafka client the worker makes. Default `sharesink`. */
  readonly clientId: string;
  /** `consumer.group.protocol`: default for connectors that do not override it. Default `classic` (as Connect). */
  readonly groupProtocol: GroupProtocol;
  /** `key.converter`, `value.converter`, `header.converter` (+ their `.`-prefixed props). */
  readonly converters: ConvertersConfig;
  /** Every `consumer.*` setting with the prefix removed (worker-wide consumer defaults). */
  readonly consumer: Readonly<Record<string, string>>;
  /** `pool.threads`: worker threads for puts. Default: available parallelism. */
  readonly poolThreads: number;
  /** `pool.puts.per.thread`: puts one thread runs at once. Optional for hand-built configs; default 16. */
  readonly poolPutsPerThread?: number;
  /** `pool.abort.grace.ms`: how long an aborted put may run on before its thread is terminated. Default 1000. */
  readonly poolAbortGraceMs?: number;
  /** `metrics.lag.poll.interval.ms`: how often `/metrics` reads share lag while scraped. Default 30000. */
  readonly lagPollIntervalMs?: number;
  /** `task.shutdown.graceful.timeout.ms` (Connect's name). Default 5000. */
  readonly shutdownGraceMs: number;
  /**
   * `bootstrap.timeout.ms`: how long the start keeps trying to reach `bootstrap.servers`. Default 30000.
   * Optional so that hand-built WorkerConfigs in tests need not list it.
   */
  readonly bootstrapTimeoutMs?: number;
  /**
   * `listeners`: where the REST API listens (`http://host:port`); empty (the default) means no server.
   * Optional so that hand-built WorkerConfigs in tests need not list it.
   */
  readonly listeners?: readonly string[];
  /**
   * The REST API's TLS (`listeners.https.ssl.*`) and authentication (`rest.auth.*`), files already
   * read. Optional so that hand-built WorkerConfigs in tests need not list it: absent means no TLS,
   * no authentication.
   */
  readonly rest?: RestSecurity;
  /**
   * `plugin.path`: directories whose connector modules a REST request may name as `connector.class`.
   * Optional so that hand-built WorkerConfigs in tests need not list it: absent means none.
   */
  readonly pluginPath?: readonly string[];
  /**
   * `topic.tracking.enable` (KIP-558): keep each connector's active topics. Optional so that hand-built
   * WorkerConfigs in tests need not list it: absent means true, Connect's default.
   */
  readonly topicTrackingEnable?: boolean;
  /** `topic.tracking.allow.reset`: `PUT /connectors/{name}/topics/reset` is allowed. Absent means true. */
  readonly topicTrackingAllowReset?: boolean;
  /** `log.level`, lower-cased; undefined leaves the choice to the embedder (the CLI: its own default). */
  readonly logLevel?: string;
  /** The raw properties, for connectors that read worker settings (config provider references resolved). */
  readonly raw: Readonly<Record<string, string>>;
  /**
   * `security.protocol`, `sasl.*`, `ssl.*` compiled for each kind of client (see client-security.ts).
   * Optional so that hand-built WorkerConfigs in tests need not list it: undefined is PLAINTEXT.
   */
  readonly security?: ClientSecurities | undefined;
  /**
   * `connector.client.config.override.policy` and its allowlist: which `*.override.*` and `share.group.*`
   * keys connector files may set. Optional so that hand-built WorkerConfigs in tests need not list it:
   * absent means `All`, Connect's default.
   */
  readonly overridePolicy?: OverridePolicy | undefined;
  /** `config.providers`: what resolves `${file:…}` / `${env:…}` in this worker's connector files. */
  readonly configProviders?: ConfigProviders | undefined;
  /**
   * Notes for the operator (settings sharesink does not read, `consumer` read as classic). Always set
   * by compileWorkerConfig; optional so that hand-built WorkerConfigs in tests need not list it.
   */
  readonly warnings?: readonly string[];
  /**
   * Kafka Connect settings in the file that have no effect here, each with why: the worker lists them
   * in one info line at start. Optional so that hand-built WorkerConfigs in tests need not list it.
   */
  readonly unused?: readonly UnusedSetting[];
}

export interface ErrorsConfig {
  /** `errors.tolerance`: `none` (default) fails the task on a fatal error; `all` skips the bad records. */
  readonly tolerance: 'none' | 'all';
  /**
   * `errors.retry.timeout` (ms; Connect default 0). Classic mode: > 0 bounds how long a retriable put()
   * is retried; 0 and -1 retry until it succeeds, as Connect's sink tasks do. Share mode: unused.
   */
  readonly retryTimeoutMs: number;
  /** `errors.retry.delay.max.ms`. Default 60000. */
  readonly retryDelayMaxMs: number;
  /** `errors.log.enable`. Default false. */
  readonly logEnable: boolean;
  /** `errors.log.include.messages`. Default false. */
  readonly logIncludeMessages: boolean;
  /** `errors.deadletterqueue.topic.name` (classic mode; share mode uses the group's broker-side DLQ). */
  readonly deadLetterQueueTopic: string | undefined;
  /** `errors.deadletterqueue.context.headers.enable`. Default false. */
  readonly deadLetterQueueContextHeaders: boolean;
}

export interface ConnectorConfig {
  /** `name`. */
  readonly name: string;
  /** `connector.class` as written. */
  readonly connectorClass: string;
  /** What `import()` takes in any thread (built-in alias resolved, paths made file URLs). */
  readonly connectorModule: string;
  /** `tasks.max`. Default 1. */
  readonly tasksMax: number;
  /** `topics` (one of topics / topics.regex is required). */
  readonly topics: readonly string[];
  /** `topics.regex`. */
  readonly topicsRegex: RegExp | undefined;
  /** `consumer.override.group.protocol`, else the worker's `consumer.group.protocol`. */
  readonly groupProtocol: GroupProtocol;
  /** `consumer.override.group.id`, else `connect-<name>` (Connect's default). */
  readonly groupId: string;
  /** Connector-level converters override the worker's. */
  readonly converters: ConvertersConfig;
  readonly errors: ErrorsConfig;
  /** `transforms`, `predicates` and their settings, checked; what each worker thread builds its chain from. */
  readonly transforms: TransformsConfig;
  /** `put.placement` (ours): `pool` (default) runs puts on worker threads, `event-loop` on the main thread. */
  readonly putPlacement: 'pool' | 'event-loop';
  /** `put.timeout.ms` (ours; Connect has none). Default: none (Infinity). */
  readonly putTimeoutMs: number;
  /** `share.lock.renewal`: `auto` (default) renews locks on Kafka ≥ 4.2, `off` never does. */
  readonly lockRenewal: 'auto' | 'off';
  /** `share.member.scope`: one share-group member per connector on each worker, or one per task. */
  readonly shareMemberScope: 'connector' | 'task';
  /** `share.retriable.action`: `retry` in place with locks held (default) or `release` at once (KIP-1302). */
  readonly retriableAction: 'retry' | 'release';
  /** `share.lock.renew.fraction`: renew when this fraction of the lock has passed. Default 0.5. */
  readonly renewFraction: number;
  /** `max.inflight.batches` per task. Default 4. */
  readonly maxInFlightBatches: number;
  /** Share-group configs to apply at start, from `share.group.<config>` keys (prefix removed). */
  readonly shareGroupConfigs: Readonly<Record<string, string>>;
  /** Consumer settings: worker `consumer.*` overlaid by `consumer.override.*` (prefixes removed). */
  readonly consumer: Readonly<Record<string, string>>;
  /** Notes for the operator about settings that mean nothing in share mode, or were mapped. */
  readonly warnings: readonly string[];
  /**
   * Every connector property, config provider references resolved; what `SinkConnector.start()` and
   * the tasks receive. Print {@link printableConfig} instead: this holds secrets.
   */
  readonly raw: Readonly<Record<string, string>>;
  /** The properties as written (`${file:…}` references unresolved), when they differ from `raw`. */
  readonly written?: Readonly<Record<string, string>> | undefined;
  /** The connector's Kafka clients' security: the worker's, overlaid by `*.override.*` keys. Undefined: PLAINTEXT. */
  readonly security?: ClientSecurities | undefined;
}
