import { SHARE_CONFIG_DEF, SHARE_GROUP_PREFIX } from './share-def.js';
import { isShareAutoOffsetReset, SHARE_DLQ_PREFIX } from './validators.js';

/** A consumer setting after the worker/connector overlay, with the key as the user wrote it. */
export interface ConsumerSetting {
  /** `consumer.<name>` (worker) or `consumer.override.<name>` (connector). */
  readonly key: string;
  readonly value: string;
}

export interface ShareModeRule {
  /** The group config that takes the consumer setting's place, when one does. */
  readonly groupConfig?: string;
  readonly note: string;
}

/**
 * Consumer settings a Connect user may carry over that a share consumer does not have (KIP-932: the
 * matching controls live at group level). Mapped ones become group configs; the rest are reported.
 */
export const SHARE_MODE_CONSUMER_RULES: Readonly<Record<string, ShareModeRule>> = {
  'auto.offset.reset': {
    groupConfig: 'share.auto.offset.reset',
    note: 'earliest, latest and by_duration:... become the group config share.auto.offset.reset; unset (or none), a new share group starts at earliest, as Connect does (see "Where a connector starts reading")',
  },
  'isolation.level': {
    groupConfig: 'share.isolation.level',
    note: 'becomes the group config share.isolation.level',
  },
  'enable.auto.commit': { note: 'share consumers acknowledge each record; there are no offsets to commit' },
  'auto.commit.interval.ms': {
    note: 'share consumers acknowledge each record; there are no offsets to commit',
  },
  'partition.assignment.strategy': { note: 'the broker assigns partitions to share-group members' },
  'group.remote.assignor': { note: 'the broker assigns partitions to share-group members' },
  'group.instance.id': { note: 'share groups have no static membership' },
  'session.timeout.ms': {
    note: `the group config share.session.timeout.ms applies instead; set ${SHARE_GROUP_PREFIX}share.session.timeout.ms`,
  },
  'heartbeat.interval.ms': {
    note: `the group config share.heartbeat.interval.ms applies instead; set ${SHARE_GROUP_PREFIX}share.heartbeat.interval.ms`,
  },
  'max.poll.interval.ms': {
    note: `membership does not depend on put() returning; record locks (${SHARE_GROUP_PREFIX}share.record.lock.duration.ms) and put.timeout.ms bound a slow put`,
  },
};

const DECLARED_GROUP_KEYS = new Map(
  SHARE_CONFIG_DEF.configKeys()
    .filter((key) => key.name.startsWith(SHARE_GROUP_PREFIX))
    .map((key) => [key.name, key]),
);

export interface ShareModeInput {
  readonly props: Readonly<Record<string, string>>;
  /** Parsed values of the connector's declared keys (broken ones excluded). */
  readonly values: Readonly<Record<string, unknown>>;
  readonly broken: ReadonlySet<string>;
  readonly consumer: ReadonlyMap<string, ConsumerSetting>;
  readonly dlqTopic: string | undefined;
}

export interface ShareModeResult {
  readonly groupConfigs: Record<string, string>;
  readonly warnings: string[];
  readonly problems: string[];
}

/** The `share.group.*` keys as group configs (prefix removed); unknown names pass through with a warning. */
export function collectGroupConfigs(input: ShareModeInput, warnings: string[]): Record<string, string> {
  const configs = new Map<string, string>();
  for (const [key, raw] of Object.entries(input.props)) {
    if (!key.startsWith(SHARE_GROUP_PREFIX) || input.broken.has(key)) continue;
    const name = key.slice(SHARE_GROUP_PREFIX.length);
    if (DECLARED_GROUP_KEYS.has(key)) {
      configs.set(name, String(input.values[key]));
    } else {
      configs.set(name, raw.trim());
      warnings.push(
        `${key}: ${name} is not a group config sharesink knows; it is set as written, and brokers refuse group config names they do not know`,
      );
    }
  }
  return Object.fromEntries(configs);
}

/**
 * What share mode makes of a Connect connector: `share.group.*` keys and mapped consumer settings
 * become group configs; consumer settings without a share meaning and Connect's worker-side DLQ and
 * retry settings become warnings or, where silently ignoring them would lose records, problems.
 */
export function applyShareMode(input: ShareModeInput): ShareModeResult {
  const warnings: string[] = [];
  const problems: string[] = [];
  const groupConfigs = collectGroupConfigs(input, warnings);
  const explicit = new Set(Object.keys(groupConfigs));

  for (const [name, setting] of input.consumer) {
    const rule = SHARE_MODE_CONSUMER_RULES[name];
    if (rule === undefined) continue;
    const shown = `${setting.key}=${setting.value}`;
    if (rule.groupConfig === undefined) {
      warnings.push(`${shown}: has no meaning in share mode (${rule.note}); ignored`);
      continue;
    }
    const value = setting.value.trim();
    if (explicit.has(rule.groupConfig)) {
      warnings.push(
        `${shown}: ignored in share mode; ${SHARE_GROUP_PREFIX}${rule.groupConfig}=${groupConfigs[rule.groupConfig]} is set and wins`,
      );
    } else if (name === 'auto.offset.reset' && value === 'none') {
      warnings.push(
        `${shown}: has no share-mode equivalent (a share group always starts somewhere); ignored, so the start position is chosen as when it is unset: a new share group starts at the earliest offset`,
      );
    } else if (name === 'auto.offset.reset' ? isShareAutoOffsetReset(value) : isIsolationLevel(value)) {
      groupConfigs[rule.groupConfig] = value;
      warnings.push(
        `${shown}: share consumers have no ${name}; mapped to the group config ${rule.groupConfig}=${value}${name === 'auto.offset.reset' ? ', which applies only to partitions the group has not read yet' : ''}`,
      );
    } else {
      problems.push(
        `${setting.key}: ${JSON.stringify(setting.value)} cannot become the group config ${rule.groupConfig}; accepted: ${name === 'auto.offset.reset' ? 'earliest, latest, none (ignored) or by_duration: and an ISO-8601 duration (e.g. by_duration:PT1H)' : 'read_committed or read_uncommitted'}`,
      );
    }
  }

  mapDeadLetterQueue(input, groupConfigs, warnings, problems);
  connectErrorSettings(input, warnings);
  checkGroupConfigs(input, groupConfigs, warnings, problems);
  return { groupConfigs, warnings, problems };
}

function isIsolationLevel(value: string): boolean {
  return value === 'read_committed' || value === 'read_uncommitted';
}

const DLQ_KEY = 'errors.deadletterqueue.topic.name';
const COPY_KEY = 'errors.deadletterqueue.copy.record.enable';

/** Connect's DLQ name moves to the broker's group DLQ, which only writes under the `dlq.` prefix. */
function mapDeadLetterQueue(
  input: ShareModeInput,
  groupConfigs: Record<string, string>,
  warnings: string[],
  problems: string[],
): void {
  const topic = input.dlqTopic;
  if (topic === undefined) return;
  if (!topic.startsWith(SHARE_DLQ_PREFIX)) {
    problems.push(
      `${DLQ_KEY}: ${JSON.stringify(topic)} cannot be a share group's dead-letter topic; accepted: in share mode, a topic name starting with "${SHARE_DLQ_PREFIX}" (the broker writes the group's dead-letter queue itself, Kafka 4.4, and only to topics with its errors.deadletterqueue.topic.name.prefix, "${SHARE_DLQ_PREFIX}" by default; other names are accepted but nothing is ever written to them)`,
    );
    return;
  }
  const groupTopic = groupConfigs[DLQ_KEY];
  if (groupTopic !== undefined && groupTopic !== topic) {
    problems.push(
      `${DLQ_KEY}: ${JSON.stringify(topic)} differs from ${SHARE_GROUP_PREFIX}${DLQ_KEY} (${JSON.stringify(groupTopic)}); accepted: one of the two, or the same topic in both`,
    );
    return;
  }
  groupConfigs[DLQ_KEY] = topic;
  const copy =
    COPY_KEY in groupConfigs
      ? ''
      : ` and ${COPY_KEY}=true (Connect's dead-letter records carry the original key and value)`;
  if (copy !== '') groupConfigs[COPY_KEY] = 'true';
  warnings.push(
    `${DLQ_KEY}=${topic}: share mode uses the broker's group dead-letter queue (Kafka 4.4): mapped to the group config ${DLQ_KEY}=${topic}${copy}; the broker writes rejected records and those past the delivery limit there, sharesink writes none itself`,
  );
}

/**
 * Connect settings the share runtime has no use for: say so instead of ignoring them silently.
 * (`errors.retry.timeout` is not one: it bounds retries in place in share mode too, ADR 0004.)
 */
function connectErrorSettings(input: ShareModeInput, warnings: string[]): void {
  if (input.values['errors.deadletterqueue.context.headers.enable'] === true)
    warnings.push(
      'errors.deadletterqueue.context.headers.enable=true: not used in share mode; the broker adds its own __dlq.errors.* headers to dead-letter records',
    );
}

function checkGroupConfigs(
  input: ShareModeInput,
  groupConfigs: Readonly<Record<string, string>>,
  warnings: string[],
  problems: string[],
): void {
  const session = groupConfigs['share.session.timeout.ms'];
  const heartbeat = groupConfigs['share.heartbeat.interval.ms'];
  if (session !== undefined && heartbeat !== undefined && Number(session) <= Number(heartbeat))
    problems.push(
      `${SHARE_GROUP_PREFIX}share.session.timeout.ms: "${session}" is not greater than ${SHARE_GROUP_PREFIX}share.heartbeat.interval.ms ("${heartbeat}"); accepted: a session timeout greater than the heartbeat interval (the broker refuses the pair otherwise)`,
    );
  if (
    input.values['share.lock.renewal'] === 'auto' &&
    groupConfigs['share.renew.acknowledge.enable'] === 'false'
  )
    warnings.push(
      `${SHARE_GROUP_PREFIX}share.renew.acknowledge.enable=false: the group refuses lock renewals, so share.lock.renewal=auto cannot renew; a put that outlives its locks is aborted and its records released`,
    );
}

/** In classic mode every share setting the user wrote is ignored: list each one. */
export function classicModeWarnings(props: Readonly<Record<string, string>>): string[] {
  const shareKeys = new Set(SHARE_CONFIG_DEF.configKeys().map((key) => key.name));
  return Object.keys(props)
    .filter((key) => key.startsWith(SHARE_GROUP_PREFIX) || shareKeys.has(key))
    .map(
      (key) =>
        `${key}: ignored in classic mode (it applies only with consumer.override.group.protocol=share)`,
    );
}
