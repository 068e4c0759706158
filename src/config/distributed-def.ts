/**
 * The worker keys of `sharesink distributed` (Connect's DistributedConfig names and defaults). Standalone
 * keeps listing them as Connect settings with no effect (connect-worker-keys.ts); only the distributed
 * command compiles them, from the same worker file, and lists every problem at once.
 */
import { ConfigDef } from '../connect/config-def.js';
import { atLeast, between, nonEmptyString, oneOf, type Validator } from '../connect/config-validators.js';
import { ConfigError } from '../errors.js';
import { parseListener } from './listener.js';
import { parseValues } from './parse-values.js';
import type { WorkerConfig } from './types.js';
import { MAX_TIMER_MS, optionalTopicName } from './validators.js';

const group = 'distributed';

export const CONNECT_PROTOCOLS = ['eager', 'compatible', 'sessioned'] as const;
export type ConnectProtocol = (typeof CONNECT_PROTOCOLS)[number];

/** Replication factor: a positive count, or -1 for the broker's default. */
function replicationFactor(): Validator<number | null> {
  return {
    check: (v) => (v === null || v === -1 || (v >= 1 && v <= 32767) ? undefined : `is ${v}`),
    describe: () =>
      'a positive number of replicas, or -1 for the broker default (default.replication.factor)',
  };
}

function requiredTopic(): Validator<string | null> {
  const topic = optionalTopicName();
  return {
    check: (v) => (v === null ? undefined : v.trim() === '' ? 'is empty' : topic.check(v)),
    describe: () => topic.describe().replace(/^empty, or /, ''),
  };
}

export const DISTRIBUTED_CONFIG_DEF = new ConfigDef()
  .define({
    name: 'group.id',
    type: 'string',
    validator: nonEmptyString(),
    importance: 'high',
    group,
    documentation:
      'The worker cluster: workers with the same `group.id` (and the same internal topics) form one cluster and share its connectors. Required by `sharesink distributed`. Must not be a consumer or share group a connector uses.',
  })
  .define({
    name: 'config.storage.topic',
    type: 'string',
    validator: requiredTopic(),
    importance: 'high',
    group,
    documentation:
      'The compacted topic, with exactly one partition, that holds connector configs, task counts and target states (the order of its records is the order of config changes). Created when missing. Required.',
  })
  .define({
    name: 'status.storage.topic',
    type: 'string',
    validator: requiredTopic(),
    importance: 'high',
    group,
    documentation:
      "The compacted topic that holds each connector's and task's state, worker and trace, so `GET /connectors/{name}/status` on any worker shows the whole cluster. Created when missing. Required.",
  })
  .define({
    name: 'offset.storage.topic',
    type: 'string',
    default: null,
    importance: 'low',
    group,
    documentation:
      'Accepted for Connect worker files and not used: sink connectors commit their progress to their consumer group (classic) or acknowledge it to their share group (share). sharesink neither creates nor reads it.',
  })
  .define({
    name: 'config.storage.replication.factor',
    type: 'int',
    default: 3,
    validator: replicationFactor(),
    importance: 'low',
    group,
    documentation: 'Replication factor of the config topic when it is created; -1 takes the broker default.',
  })
  .define({
    name: 'status.storage.replication.factor',
    type: 'int',
    default: 3,
    validator: replicationFactor(),
    importance: 'low',
    group,
    documentation: 'Replication factor of the status topic when it is created; -1 takes the broker default.',
  })
  .define({
    name: 'status.storage.partitions',
    type: 'int',
    default: 5,
    validator: atLeast(1),
    importance: 'low',
    group,
    documentation: 'Partitions of the status topic when it is created.',
  })
  .define({
    name: 'rest.advertised.host.name',
    type: 'string',
    default: null,
    importance: 'low',
    group,
    documentation:
      "The host other workers reach this worker's REST API at (writes are forwarded to the leader there). Default: the host of `listeners` (loopback when it binds every interface: set this for workers on several machines, e.g. a pod IP).",
  })
  .define({
    name: 'rest.advertised.port',
    type: 'int',
    default: null,
    validator: between(1, 65535),
    importance: 'low',
    group,
    documentation: "The port other workers reach this worker's REST API at. Default: the port it listens on.",
  })
  .define({
    name: 'rest.advertised.listener',
    type: 'string',
    default: null,
    validator: oneOf(['http', 'https'], { caseInsensitive: true }),
    importance: 'low',
    group,
    documentation: 'The scheme other workers use to reach this worker. Default: the scheme of `listeners`.',
  })
  .define({
    name: 'connect.protocol',
    type: 'string',
    default: 'sessioned',
    validator: oneOf(CONNECT_PROTOCOLS, { caseInsensitive: true }),
    importance: 'low',
    group,
    documentation:
      'Accepted for Connect worker files: sharesink workers always rebalance incrementally (KIP-415: only the tasks that move stop), as Connect does with `compatible` / `sessioned` (default). `eager` is accepted with a warning and has no effect.',
  })
  .define({
    name: 'scheduled.rebalance.max.delay.ms',
    type: 'int',
    // Connect's 300000 keeps partition ownership still through rolling restarts; a share task owns no
    // partition and a classic one's partitions move within its consumer group anyway, so sharesink
    // re-places a dead worker's tasks within the session timeout unless asked to wait (ADR 0010)
    default: 0,
    validator: between(0, MAX_TIMER_MS),
    importance: 'medium',
    group,
    documentation:
      "How long a departed worker's connectors and tasks wait for it to come back before the others take them (KIP-415). sharesink's default `0` re-places them at the next rebalance, within `session.timeout.ms` of a crash; Connect's default is 300000 (set it to let a restarting worker keep its tasks).",
  })
  .define({
    name: 'worker.sync.timeout.ms',
    type: 'int',
    default: 3000,
    validator: between(1, MAX_TIMER_MS),
    importance: 'medium',
    group,
    documentation:
      'How long a worker behind the config offset of its assignment reads the config topic to catch up before it gives the assignment back and rejoins.',
  })
  .define({
    name: 'session.timeout.ms',
    type: 'int',
    default: 10000,
    validator: between(1, MAX_TIMER_MS),
    importance: 'high',
    group,
    documentation:
      "How long the broker waits for a worker's heartbeat before it removes the worker from the cluster (its work is then re-placed). Within the broker's `group.min.session.timeout.ms` .. `group.max.session.timeout.ms`.",
  })
  .define({
    name: 'heartbeat.interval.ms',
    type: 'int',
    default: 3000,
    validator: between(1, MAX_TIMER_MS),
    importance: 'high',
    group,
    documentation:
      'How often a worker heartbeats to the group coordinator; below a third of `session.timeout.ms`.',
  })
  .define({
    name: 'rebalance.timeout.ms',
    type: 'int',
    default: 60000,
    validator: between(1, MAX_TIMER_MS),
    importance: 'medium',
    group,
    documentation:
      'How long the coordinator waits for every worker to rejoin during a rebalance (a worker stops its revoked tasks within it).',
  });

/** The compiled distributed keys. */
export interface DistributedConfig {
  readonly groupId: string;
  readonly configTopic: string;
  readonly statusTopic: string;
  readonly offsetTopic: string | undefined;
  readonly configReplicationFactor: number;
  readonly statusReplicationFactor: number;
  readonly statusPartitions: number;
  readonly advertisedHost: string | undefined;
  readonly advertisedPort: number | undefined;
  readonly advertisedScheme: 'http' | 'https' | undefined;
  readonly protocol: ConnectProtocol;
  readonly scheduledRebalanceMaxDelayMs: number;
  readonly workerSyncTimeoutMs: number;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly rebalanceTimeoutMs: number;
}

/** Every key this file declares: the distributed command does not list them as settings with no effect. */
export const DISTRIBUTED_KEYS: ReadonlySet<string> = new Set(
  DISTRIBUTED_CONFIG_DEF.configKeys().map((k) => k.name),
);

/**
 * Compiles the distributed keys of a worker file (config providers already resolved in `worker.raw`),
 * or throws one ConfigError listing every problem.
 */
export function compileDistributedConfig(worker: Pick<WorkerConfig, 'raw' | 'listeners'>): DistributedConfig {
  const props = worker.raw;
  const { values, problems } = parseValues(DISTRIBUTED_CONFIG_DEF, props);
  if ((worker.listeners ?? []).length === 0 || parseListener(worker.listeners![0]!) === undefined)
    problems.push(
      'listeners: empty; accepted: one http://host:port (a distributed worker serves the REST API: other workers forward writes to it)',
    );
  const configTopic = values['config.storage.topic'];
  const statusTopic = values['status.storage.topic'];
  const offsetTopic = values['offset.storage.topic'] ?? undefined;
  if (configTopic !== null && configTopic === statusTopic)
    problems.push(
      `config.storage.topic and status.storage.topic: both are ${JSON.stringify(configTopic)}; accepted: two different topics`,
    );
  if (offsetTopic !== undefined && (offsetTopic === configTopic || offsetTopic === statusTopic))
    problems.push(
      `offset.storage.topic: ${JSON.stringify(offsetTopic)} is also the config or status topic; accepted: another topic (or leave it unset: sink connectors do not use it)`,
    );
  const session = values['session.timeout.ms'];
  const heartbeat = values['heartbeat.interval.ms'];
  if (heartbeat >= session)
    problems.push(
      `heartbeat.interval.ms: ${heartbeat} is not below session.timeout.ms (${session}); accepted: at most a third of it`,
    );
  if (problems.length > 0) throw new ConfigError(problems);
  const scheme = values['rest.advertised.listener']?.toLowerCase();
  return {
    groupId: values['group.id'],
    configTopic: configTopic!,
    statusTopic: statusTopic!,
    offsetTopic,
    configReplicationFactor: values['config.storage.replication.factor'],
    statusReplicationFactor: values['status.storage.replication.factor'],
    statusPartitions: values['status.storage.partitions'],
    advertisedHost: values['rest.advertised.host.name'] ?? undefined,
    advertisedPort: values['rest.advertised.port'] ?? undefined,
    advertisedScheme: scheme === 'http' || scheme === 'https' ? scheme : undefined,
    protocol: values['connect.protocol'].toLowerCase() as ConnectProtocol,
    scheduledRebalanceMaxDelayMs: values['scheduled.rebalance.max.delay.ms'],
    workerSyncTimeoutMs: values['worker.sync.timeout.ms'],
    sessionTimeoutMs: session,
    heartbeatIntervalMs: heartbeat,
    rebalanceTimeoutMs: values['rebalance.timeout.ms'],
  };
}
