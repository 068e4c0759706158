/**
 * Where a share-mode connector's group starts reading a partition it has not read yet.
 *
 * Connect starts a sink's consumer group at the earliest offset; a new share group starts at the
 * broker default of the group config `share.auto.offset.reset`, which is `latest`. Without this step,
 * switching a connector to share mode would silently skip every record already in its topics. So,
 * once per connector start and before any task joins the group:
 *
 * - the user chose (`share.group.share.auto.offset.reset`, `consumer.override.auto.offset.reset`, or the
 *   worker's `consumer.auto.offset.reset`): that value was already written with the connector's other
 *   group configs, just before this step (`applyShareGroupConfigs` in connector/instance.ts, which
 *   fails the start when it cannot); this step writes nothing and only says so;
 * - otherwise, when the group has no members and no value of its own, `earliest` is written;
 * - a value already set on the group (by an operator, another tool, or an earlier start) is never
 *   overwritten, nor is the default of a group that other members are reading with.
 *
 * "Has the group started this topic?" is not asked of DescribeShareGroupOffsets (`src/offsets/`): the
 * broker writes a partition's share state lazily, so an unstarted and a just-started partition look
 * alike there. ShareGroupDescribe (does the group exist, does it have members) and
 * DescribeConfigs (is the value set on the group, or the broker default) answer it closely enough:
 * the config only matters for partitions the group has not started, so writing `earliest` on an idle
 * group that has started some partitions changes nothing for those.
 *
 * One INFO line per start says what was applied and why. One WARN line instead when the id belongs to
 * a group of another type (a classic-mode run of the same connector: the tasks cannot join it, and
 * the line says what to do), or when the broker cannot be asked or refuses the write (it says what that
 * means for the backlog and how to set the value by hand). The connector starts anyway: the tasks meet
 * the same broker and report their own errors.
 */
import type { Logger } from 'pino';
import { notice } from '../logger.js';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import { kafkajsSecurityOptions } from '../kafka/security/index.js';
import { KafkaCluster } from '../kafka/cluster.js';
import { KafkaError, KafkaErrorCode } from '../kafka/errors/kafka-errors.js';
import { DescribeConfigs } from '../kafka/protocol/messages/describe-configs.js';
import { ConfigResourceType } from '../kafka/protocol/messages/incremental-alter-configs.js';
import { ShareGroupDescribe } from '../kafka/protocol/messages/share-group-describe.js';

export const START_CONFIG = 'share.auto.offset.reset';
/** Connect's start position for a sink connector's group. */
const CONNECT_START = 'earliest';
/** The broker's default for {@link START_CONFIG}, assumed when DescribeConfigs does not list it. */
const BROKER_DEFAULT = 'latest';

/** DescribeConfigs ConfigSource values (DescribeConfigsResponse.json; 8 seen from Kafka 4.4 for a group config). */
const ConfigSource = { UNKNOWN: 0, DEFAULT_CONFIG: 5, GROUP_CONFIG: 8 } as const;

/** The setting through which the user chose a start position. */
export interface ExplicitStart {
  /** The key as the user wrote it, e.g. `consumer.override.auto.offset.reset`. */
  readonly key: string;
  readonly value: string;
}

/** The group as ShareGroupDescribe shows it. */
export type GroupPresence =
  | { readonly kind: 'absent' }
  /** The id belongs to a group of another type (e.g. the consumer group of a classic-mode run). */
  | { readonly kind: 'notShare'; readonly brokerMessage: string }
  | { readonly kind: 'empty' }
  | { readonly kind: 'active'; readonly members: number };

/** `share.auto.offset.reset` as DescribeConfigs shows it for the group. */
export interface GroupStartConfig {
  /** The value in effect (the broker default when nothing is set). */
  readonly value: string;
  /** False when the value is the broker's default: only then may sharesink write its own. */
  readonly setOnGroup: boolean;
}

/** The user chose, or sharesink chooses from what the broker says of the group. */
export type StartPositionInput =
  | {
      readonly groupId: string;
      readonly explicit: ExplicitStart;
      /** undefined: it could not be read (it only makes the line more precise). */
      readonly group: GroupPresence | undefined;
    }
  | {
      readonly groupId: string;
      readonly explicit: undefined;
      readonly group: GroupPresence;
      readonly config: GroupStartConfig;
    };

export interface StartPositionDecision {
  /** The start position in effect for partitions the group has not started. */
  readonly value: string;
  /** What this step writes; undefined when it writes nothing. */
  readonly write: string | undefined;
  /**
   * Who wrote `value` on the group at this start: this step (`write`), the connector's group configs
   * before it (the user's choice), or nobody (the value was left as the group has it).
   */
  readonly writtenBy: 'start position' | 'group configs' | undefined;
  /** The line to log, and at which level: `warn` when the group cannot be used as it is. */
  readonly message: string;
  readonly level: 'info' | 'warn';
}

/**
 * The user's own choice, if any, in the order share mode lets one win over another: the group config
 * key, then the connector's consumer override, then the worker's consumer default. `none` is not a
 * choice here: share mode ignores it (config compilation warns), so it leaves no group config.
 */
export function explicitStart(config: ConnectorConfig): ExplicitStart | undefined {
  const value = config.shareGroupConfigs[START_CONFIG];
  if (value === undefined) return undefined;
  const groupKey = `share.group.${START_CONFIG}`;
  const overrideKey = 'consumer.override.auto.offset.reset';
  if (groupKey in config.raw) return { key: groupKey, value };
  if (overrideKey in config.raw) return { key: overrideKey, value };
  return { key: "the worker's consumer.auto.offset.reset", value };
}

/** What the position means for records already in the topic, in the user's terms. */
function effect(value: string): string {
  if (value === 'earliest') return 'records already in the topic are written';
  if (value === 'latest') return 'records already in the topic are skipped, only new ones are written';
  return `records from the last ${value.slice('by_duration:'.length)} are written`;
}

const LATEST_HINT = 'set consumer.override.auto.offset.reset=latest to start at the end';
const EARLIEST_HINT = 'set consumer.override.auto.offset.reset=earliest to start at the beginning';

/** The decision, pure: which value applies, whether this step writes it, and the line that says so. */
export function decideStartPosition(input: StartPositionInput): StartPositionDecision {
  const g = `share group ${input.groupId}`;

  if (input.explicit !== undefined) {
    const v = input.explicit.value;
    const group = input.group;
    if (group?.kind === 'notShare')
      return { ...notAShareGroup(input.groupId, group.brokerMessage, v), writtenBy: 'group configs' };
    // written by the group-config step before this one (module comment): said as done, not as to do
    const asked = `${START_CONFIG}=${v} was written with the connector's group configs, as ${input.explicit.key}=${v} asks (${effect(v)})`;
    const message =
      group === undefined
        ? `${g}: ${asked}`
        : group.kind === 'absent'
          ? `${g} is new: ${asked}`
          : `${g} exists: ${asked}; it applies only to partitions the group has not read yet`;
    return { value: v, write: undefined, writtenBy: 'group configs', level: 'info', message };
  }

  const config = input.config;
  if (input.group.kind === 'notShare')
    return notAShareGroup(input.groupId, input.group.brokerMessage, config.value);
  if (config.setOnGroup) {
    const v = config.value;
    return {
      value: v,
      write: undefined,
      writtenBy: undefined,
      level: 'info',
      message: `${g} has ${START_CONFIG}=${v} set on the group (by an earlier start, or by hand): left as is, as sharesink never overwrites it, so partitions the group has not read yet start at the ${v} offset; ${v === 'latest' ? EARLIEST_HINT : LATEST_HINT}`,
    };
  }

  const because = `as Connect starts sink consumers at the earliest offset (${effect(CONNECT_START)})`;
  switch (input.group.kind) {
    case 'absent':
      return {
        value: CONNECT_START,
        write: CONNECT_START,
        writtenBy: 'start position',
        level: 'info',
        message: `${g} is new: set ${START_CONFIG}=${CONNECT_START}, ${because}; ${LATEST_HINT}`,
      };
    case 'empty':
      return {
        value: CONNECT_START,
        write: CONNECT_START,
        writtenBy: 'start position',
        level: 'info',
        message: `${g} has no members and no ${START_CONFIG} of its own: set ${START_CONFIG}=${CONNECT_START}, ${because}; partitions it has read before keep their position; ${LATEST_HINT}`,
      };
    case 'active':
      return {
        value: config.value,
        write: undefined,
        writtenBy: undefined,
        level: 'info',
        message: `${g} already has ${input.group.members} member(s) and no ${START_CONFIG} of its own: left at the broker default ${config.value}, as its members read with it, so partitions it has not read yet start at the ${config.value} offset; ${config.value === 'latest' ? EARLIEST_HINT : LATEST_HINT}`,
      };
  }
}

/** The tasks' heartbeats will fail on this group, so writing its start position would change nothing. */
function notAShareGroup(groupId: string, brokerMessage: string, value: string): StartPositionDecision {
  return {
    value,
    write: undefined,
    writtenBy: undefined,
    level: 'warn',
    message: `group ${groupId} is not a share group (broker says: ${brokerMessage}): the broker keeps one group per id, so a connector moved to share mode needs a group of its own; set consumer.override.group.id to a new name, or delete the old group (kafka-consumer-groups.sh --bootstrap-server … --delete --group ${groupId}) if it is no longer needed`,
  };
}

/** What this step needs of a cluster (a {@link KafkaCluster}; narrowed so tests can stand in). */
export type StartPositionCluster = Pick<
  KafkaCluster,
  'findGroupCoordinator' | 'connectionTo' | 'anyConnection' | 'alterGroupConfigs'
>;

const READ_ATTEMPTS = 10;
const READ_BACKOFF_MS = 500;

/** Retries what a coordinator says while it moves or loads (normal on a freshly started broker). */
async function retrying<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof KafkaError && err.retriable) || n >= READ_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, READ_BACKOFF_MS));
    }
  }
}

export function readGroupPresence(cluster: StartPositionCluster, groupId: string): Promise<GroupPresence> {
  return retrying(async () => {
    const coordinator = await cluster.findGroupCoordinator(groupId);
    const conn = await cluster.connectionTo(coordinator.nodeId);
    const res = await conn.call(ShareGroupDescribe, {
      groupIds: [groupId],
      includeAuthorizedOperations: false,
    });
    const described = res.groups.find((x) => x.groupId === groupId);
    if (described === undefined) return { kind: 'absent' };
    if (described.errorCode === KafkaErrorCode.GROUP_ID_NOT_FOUND) {
      // the same code answers "no such group" and "a group of another type": only the text tells them apart
      const text = described.errorMessage ?? '';
      return /not a share group/i.test(text) ? { kind: 'notShare', brokerMessage: text } : { kind: 'absent' };
    }
    if (described.errorCode !== 0)
      throw new KafkaError(described.errorCode, {
        api: 'ShareGroupDescribe',
        subject: `group ${groupId}`,
        brokerMessage: described.errorMessage,
      });
    if (described.groupState === 'Dead') return { kind: 'absent' };
    if (described.members.length === 0) return { kind: 'empty' };
    return { kind: 'active', members: described.members.length };
  });
}

export function readGroupStartConfig(
  cluster: StartPositionCluster,
  groupId: string,
): Promise<GroupStartConfig> {
  return retrying(async () => {
    const conn = await cluster.anyConnection();
    const res = await conn.call(DescribeConfigs, {
      resources: [
        { resourceType: ConfigResourceType.GROUP, resourceName: groupId, configurationKeys: [START_CONFIG] },
      ],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    const result = res.results[0];
    if (result !== undefined && result.errorCode !== 0)
      throw new KafkaError(result.errorCode, {
        api: 'DescribeConfigs',
        subject: `group ${groupId}`,
        brokerMessage: result.errorMessage,
      });
    const entry = result?.configs.find((c) => c.name === START_CONFIG);
    if (entry === undefined || entry.value === null) return { value: BROKER_DEFAULT, setOnGroup: false };
    const byDefault =
      entry.configSource === ConfigSource.DEFAULT_CONFIG || entry.configSource === ConfigSource.UNKNOWN;
    return { value: entry.value, setOnGroup: !byDefault };
  });
}

/**
 * Reads the group, decides, writes `earliest` when that is the decision, and logs the one line.
 * Returns the decision, or undefined when the broker could not be asked or refused (logged as WARN).
 */
export async function chooseStartPosition(
  cluster: StartPositionCluster,
  config: ConnectorConfig,
  logger: Logger,
): Promise<StartPositionDecision | undefined> {
  const groupId = config.groupId;
  const explicit = explicitStart(config);
  let decision: StartPositionDecision;
  try {
    if (explicit !== undefined) {
      // the group's state only makes the line more precise: not worth a warning when it cannot be read
      const group = await readGroupPresence(cluster, groupId).catch(() => undefined);
      decision = decideStartPosition({ groupId, explicit, group });
    } else {
      const [group, startConfig] = await Promise.all([
        readGroupPresence(cluster, groupId),
        readGroupStartConfig(cluster, groupId),
      ]);
      decision = decideStartPosition({ groupId, explicit, group, config: startConfig });
      const write = decision.write;
      if (write !== undefined)
        await retrying(() => cluster.alterGroupConfigs(groupId, { [START_CONFIG]: write }));
    }
  } catch (err) {
    const byHand = `kafka-configs.sh --bootstrap-server … --alter --entity-type groups --entity-name ${groupId} --add-config ${START_CONFIG}=earliest`;
    // setting the value in the connector file needs the same ACLs as this step: say which
    const refused = err instanceof KafkaError && err.kafkaCode === KafkaErrorCode.GROUP_AUTHORIZATION_FAILED;
    const principal = config.security?.admin?.principal ?? 'User:<name>';
    const fix = refused
      ? `grant ${principal} DESCRIBE_CONFIGS and ALTER_CONFIGS on the group (kafka-acls.sh --bootstrap-server … --add --allow-principal ${principal} --operation DescribeConfigs --operation AlterConfigs --group ${groupId}) and start again, or have an administrator run: ${byHand}`
      : `set share.group.${START_CONFIG}=earliest in the connector, or run: ${byHand}`;
    logger.warn(
      { err, groupId },
      `share group ${groupId}: could not check or set ${START_CONFIG} (${(err as Error).message}); a new share group starts at the broker default, latest, and skips the records already in the topic. To start at the earliest offset as Connect does, ${fix}`,
    );
    return undefined;
  }
  // `written`: the value was written on the group at this start, by this step or just before it
  const { writtenBy } = decision;
  const fields = {
    groupId,
    [START_CONFIG]: decision.value,
    written: writtenBy !== undefined,
    ...(writtenBy === undefined ? {} : { writtenBy }),
    ...(explicit === undefined ? {} : { chosenBy: explicit.key }),
  };
  // a person starting a connector at a terminal should read where it starts: notice, not info
  if (decision.level === 'info') notice(logger, fields, decision.message);
  else logger.warn(fields, decision.message);
  return decision;
}

/** {@link chooseStartPosition} on a cluster client of its own, for one connector start. */
export async function applyShareStartPosition(
  config: ConnectorConfig,
  worker: WorkerConfig,
  logger: Logger,
): Promise<StartPositionDecision | undefined> {
  // the client's own per-attempt warnings would repeat what the one WARN line of this step says
  const clientLogger = logger.isLevelEnabled('debug') ? logger : logger.child({}, { level: 'error' });
  const cluster = new KafkaCluster({
    ...kafkajsSecurityOptions(config.security?.admin),
    brokers: worker.bootstrapServers,
    clientId: `${worker.clientId}-admin`,
    logger: clientLogger,
  });
  try {
    return await chooseStartPosition(cluster, config, logger);
  } finally {
    await cluster.close();
  }
}
