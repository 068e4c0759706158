/**
 * sharesink: Kafka Connect-style sink connectors on Node.js, reading Kafka through share groups
 * (KIP-932, "queues for Kafka") or classic consumer groups. A complete service embedding the runtime,
 * its lifecycle, errors and shutdown: docs/embedding.md.
 *
 * @example Run a connector in share mode from code
 * ```ts
 * import { Worker, compileWorkerConfig, compileConnectorConfig } from 'sharesink';
 *
 * const worker = compileWorkerConfig({ 'bootstrap.servers': 'localhost:9092' });
 * const orders = compileConnectorConfig(
 *   {
 *     name: 'orders-to-file',
 *     'connector.class': 'FileStreamSink',
 *     file: '/tmp/orders.txt',
 *     topics: 'orders',
 *     'tasks.max': '4',
 *     'consumer.override.group.protocol': 'share',
 *   },
 *   worker,
 * );
 * const w = new Worker({ worker, connectors: [orders] });
 * await w.start();
 * process.on('SIGTERM', () => void w.stop());
 * ```
 *
 * @example Serve Connect's REST API, /metrics, /health and the live view of the machines
 * ```ts
 * import { startRestServer } from 'sharesink';
 *
 * const rest = await startRestServer(w, { listener: 'http://127.0.0.1:8083' });
 * // curl 127.0.0.1:8083/connectors/orders-to-file/status; open 127.0.0.1:8083/machines
 * process.on('SIGTERM', () => void rest.close().then(() => w.stop()));
 * ```
 *
 * @example Use the share consumer on its own
 * ```ts
 * import { ShareConsumer } from 'sharesink';
 *
 * const consumer = new ShareConsumer({ brokers: ['localhost:9092'], groupId: 'workers' });
 * await consumer.subscribe(['jobs']);
 * const records = await consumer.poll({ maxWaitMs: 1000 });
 * await consumer.acknowledge(records, 'accept');
 * await consumer.close();
 * ```
 */

// What a library user needs, and nothing of the runtime's inside: the public surface is reviewed in
// api/sharesink.api.md (a unit test fails when it changes without that report: `npm run api:report`).

// errors: every class docs/errors.md names, the code union, and what their fields hold
export { SharesinkError, ConfigError, ConfigProblem, isSharesinkError } from './errors.js';
export type { SharesinkErrorOptions, SharesinkErrorCode } from './errors.js';
export { MissingPackageError } from './optional-package.js';
export {
  UnknownTopicError,
  AckNotAllowedError,
  RenewUnsupportedError,
  SessionResetError,
  ConsumerClosedError,
} from './kafka/share/share-errors.js';
export {
  KafkaError,
  KafkaProtocolError,
  CorruptRecordBatchError,
  UnsupportedVersionError,
  KafkaConnectionError,
  KafkaRequestTimeoutError,
  KafkaErrorCode,
  kafkaErrorName,
} from './kafka/errors/kafka-errors.js';
export {
  KafkaUnreachableError,
  ShareGroupsUnavailableError,
  KafkaAuthorizationError,
} from './kafka/errors/cluster-errors.js';
export type { ShareGroupsUnavailableReason, KafkaResourceType } from './kafka/errors/cluster-errors.js';
export { KafkaAuthenticationError, SaslRequiredError } from './kafka/errors/auth-errors.js';
export { KafkaTlsError } from './kafka/errors/tls-errors.js';
export { ConsumerGroupRefusedError } from './kafka/consumer/group-errors.js';
export type { ConsumerGroupRefusal } from './kafka/consumer/group-errors.js';
export type { TlsFailureReason } from './kafka/errors/tls-errors.js';
export { TaskFailedError } from './actors/errors/task-failed.js';
export { RestError } from './rest/server/errors.js';
export { OffsetsRequestError, GroupNotEmptyError } from './offsets/errors.js';
// the HttpSink's refusal (SHARESINK_HTTP_REFUSED), for connectors that wrap it
export { HttpRequestRefusedError } from './sinks/http/errors.js';
export { InternalTopicError } from './distributed/herder/internal-topics.js';
export { LogSyncTimeoutError } from './distributed/herder/topic-log.js';

// the runtime (docs/embedding.md)
export { Worker } from './actors/worker.js';
export { stopOnSignals, type StopOnSignalsOptions } from './actors/stop-on-signals.js';
export type { WorkerOptions, WorkerSummary, TaskFailure } from './actors/worker.js';
// what `sharesink validate` checks beyond the settings: the connector's own validate() and custom
// transform modules (Worker.start() runs it too, before anything connects)
export { checkConnectorCode } from './actors/connector-checks.js';
// one call that validates worker and connector settings and each connector's own code, without a broker
export {
  validateConfigs,
  validateConnector,
  type ValidationProblem,
  type ConfigValidation,
  type ConnectorValidation,
} from './herder/validate-configs.js';
// what worker.connector(name) hands back; made by the Worker only
export type { ConnectorRuntime } from './actors/connector-runtime.js';
export type {
  ConnectorSummary,
  TaskStatus,
  ConnectState,
  RestartOptions,
  TaskMetrics,
} from './actors/connector-runtime.js';
export type { TaskCountersSnapshot } from './actors/task/core/task-counters.js';
export type { TransitionCount } from './observability/transition-count.js';

// configuration: Connect-style files and properties → compiled shapes
export {
  loadWorkerConfig,
  loadConnectorConfig,
  parseProperties,
  parseConnectorJson,
  compileWorkerConfig,
  compileConnectorConfig,
  validateWorkerConfig,
  validateConnectorConfig,
  WORKER_CONFIG_DEF,
  CONNECTOR_CONFIG_DEF,
} from './config/index.js';
export type { WorkerConfig, ConnectorConfig, ErrorsConfig, GroupProtocol } from './config/types.js';
export type { WorkerCheck, ConnectorCheck, CompileConnectorOptions } from './config/index.js';
export type { ConfigProps } from './config/config-props.js';
export type { ClientSecurities, ClientKind } from './config/client-security.js';
export type { ConvertersConfig } from './connect/converters/registry.js';
// Kafka client security from Connect's keys (security.protocol, sasl.*, ssl.*), for clients built by
// hand (docs/security.md)
export {
  parseKafkaSecurity,
  overlaySecurityProps,
  kafkajsSecurityOptions,
  OAuthTokenError,
} from './kafka/security/index.js';
export type {
  KafkaSecurity,
  SecurityCheck,
  KafkajsSecurityOptions,
  SecurityProtocol,
  SaslMechanism,
} from './kafka/security/index.js';
export { printableConfig } from './config/printable.js';

// the connector contract (docs/connector-authoring.md, docs/transforms.md)
export { SinkConnector, type SinkConnectorContext } from './connect/sink-connector.js';
export { SinkTask, type SinkTaskContext, type ErrantRecordReporter } from './connect/sink-task.js';
export {
  SinkRecord,
  ALL_PARTITIONS,
  type SinkRecordInit,
  type TimestampType,
  type TopicPartition,
  type TopicPartitionOffset,
} from './connect/sink-record.js';
export { ConnectHeaders, type Header } from './connect/headers.js';
export {
  Schemas,
  LOGICAL,
  type Schema,
  type SchemaType,
  type Field,
  type SchemaAndValue,
} from './connect/schema.js';
export {
  ConnectError,
  RetriableError,
  DataError,
  ConverterError,
  isRetriableError,
} from './connect/errors.js';
export {
  ConfigDef,
  Password,
  type ConfigType,
  type Importance,
  type ConfigKey,
  type ConfigValues,
} from './connect/config-def.js';
export {
  atLeast,
  between,
  oneOf,
  nonEmptyString,
  listOf,
  all,
  type Validator,
} from './connect/config-validators.js';
export type { ConnectorModule } from './connect/connector-module.js';
export type { RawRecord, RawHeader } from './connect/raw-record.js';
export type { Converter, HeaderConverter } from './connect/converters/converter.js';
export { StringConverter } from './connect/converters/string-converter.js';
export { ByteArrayConverter } from './connect/converters/byte-array-converter.js';
export { JsonConverter } from './connect/converters/json-converter.js';
export { SimpleHeaderConverter } from './connect/converters/simple-header-converter.js';
// the Schema Registry converters (Confluent's wire format) and the registry's error
export {
  AvroConverter,
  JsonSchemaConverter,
  ProtobufConverter,
} from './connect/converters/schema-registry/converters.js';
export { RegistryUnreachableError } from './connect/converters/schema-registry/client.js';
export type {
  Transformation,
  Predicate,
  TransformationClass,
  PredicateClass,
} from './connect/transforms/transformation.js';
export { TransformError, TransformModuleError } from './connect/transforms/errors.js';
// builds the chain a task uses, to unit-test a transform (docs/transforms.md)
export { TransformChain, type ChainResult } from './connect/transforms/chain.js';
export type { TransformsConfig, TransformSpec, PluginSpec } from './connect/transforms/spec.js';

// the share consumer on its own (docs/share-consumer.md)
export { ShareConsumer } from './kafka/share/share-consumer.js';
export type {
  ShareConsumerOptions,
  ShareRecord,
  PollOptions,
  AckTarget,
  PartitionAckResult,
} from './kafka/share/share-consumer.js';
export type { AcknowledgeType } from './kafka/share/ack-batches.js';
export type { ShareConsumerMetricsSnapshot } from './kafka/share/share-consumer-metrics.js';

// the state machines, to draw (docs/machines.md)
export {
  batchMachine,
  taskMachine,
  connectorMachine,
  toMermaid,
  toDot,
  type MachineDefinition,
} from './diagrams.js';

// observability: diagnostics_channel names and messages; log levels by name (GET/PUT /admin/loggers):
// call logLevelsFor(logger) before new Worker()
export {
  CHANNEL_LOCK_RENEWED,
  CHANNEL_LOCK_RELEASED,
  CHANNEL_LOCK_EXPIRED,
  CHANNEL_BATCH_TRANSITION,
} from './observability/channels.js';
export type {
  LockRenewedMessage,
  LockReleasedMessage,
  LockExpiredMessage,
  BatchTransitionMessage,
} from './observability/channels.js';
export { logLevelsFor, LogLevels } from './observability/log-levels.js';
export type { LoggerLevel } from './observability/log-levels.js';

// the REST API (Connect's endpoints), /metrics, /health and the live view of the machines
export { startRestServer } from './rest/server/server.js';
export type { RestServer, RestServerOptions } from './rest/server/server.js';
export type { RestWorker, RestConnector } from './rest/worker-view.js';
export type { HealthReport } from './actors/health.js';
export type { Router } from './rest/server/router.js';
export type { RestSecurity } from './config/rest-security.js';
// the herder: what manages the connectors behind the REST API (Connect's Herder)
export type { Herder, TargetState, RestartRequest, WorkerHealth } from './herder/herder.js';
export { StandaloneHerder } from './herder/standalone-herder.js';
export { HerderError, NotLeaderError, type HerderErrorKind } from './herder/errors.js';

// distributed mode (`sharesink distributed`): a worker of a cluster coordinated through Kafka; embedders
// start the REST server with `startRestServer(worker, distributedRestOptions(worker))`, then `worker.start()`
export {
  DistributedWorker,
  advertisedUrl,
  type DistributedWorkerOptions,
  type MemberFactory,
} from './distributed/herder/distributed-worker.js';
export { compileDistributedConfig, DISTRIBUTED_CONFIG_DEF } from './config/distributed-def.js';
export type { DistributedConfig } from './config/distributed-def.js';
export { distributedRestOptions } from './rest/distributed.js';
export { ClusterHerder } from './distributed/herder/cluster-herder.js';
export type {
  ClusterView,
  WorkerAssignment,
  WorkerGroupHooks,
  WorkerGroupMember,
  WorkerMetadata,
} from './distributed/group-types.js';
