/**
 * What the start-up check of the cluster ({@link checkKafkaCluster}) reports: conditions that no retry
 * inside a task will fix, each said once, naming what the broker named, with what to do.
 */
import { SharesinkError } from '../../errors.js';

/** `5 s`, `30 s`, `1.5 s`, `250 ms`: how long, as a person reads it. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/** Each bootstrap address with the socket error it gave: `a:1 (connect ECONNREFUSED), b:2 (…)`, or one shared error once. */
export function describeAttempts(failures: ReadonlyMap<string, string>): { where: string; why: string } {
  const errors = new Set(failures.values());
  const addresses = [...failures.keys()].join(', ');
  if (errors.size === 1) return { where: addresses, why: [...errors][0]! };
  return {
    where: [...failures].map(([address, error]) => `${address} (${error})`).join(', '),
    why: 'none answered',
  };
}

/** No bootstrap broker could be reached within `bootstrap.timeout.ms`. */
export class KafkaUnreachableError extends SharesinkError {
  /** The bootstrap addresses tried, with the last socket error of each. */
  readonly failures: ReadonlyMap<string, string>;
  readonly timeoutMs: number;

  constructor(failures: ReadonlyMap<string, string>, timeoutMs: number, attempts: number) {
    const { where, why } = describeAttempts(failures);
    super(
      'SHARESINK_KAFKA_UNREACHABLE',
      `cannot reach the Kafka cluster at ${where} (bootstrap.servers): ${why}; gave up after ${formatDuration(timeoutMs)} ` +
        `and ${attempts} attempt${attempts === 1 ? '' : 's'} (bootstrap.timeout.ms). Check that a broker runs there and that ` +
        'bootstrap.servers names one of its listeners, or raise bootstrap.timeout.ms to wait longer',
    );
    this.failures = failures;
    this.timeoutMs = timeoutMs;
  }
}

/** Why a broker cannot serve share groups. */
export type ShareGroupsUnavailableReason =
  /** The share-group APIs are missing (Kafka before 4.1) or in versions sharesink does not speak. */
  | 'no-share-apis'
  /** The APIs are there but the broker refuses them: `share.version` is 0 (Kafka 4.1 preview, or disabled). */
  | 'share-version-0';

/** A share-mode connector on a cluster without share groups. */
export class ShareGroupsUnavailableError extends SharesinkError {
  readonly reason: ShareGroupsUnavailableReason;
  /** The broker that said so, `host:port`. */
  readonly broker: string;
  /** The share-mode readers that cannot run, as named to the check (`connector s1`). */
  readonly connectors: readonly string[];

  constructor(args: {
    reason: ShareGroupsUnavailableReason;
    broker: string;
    connectors: readonly string[];
    /** What the broker lacks, for `no-share-apis`, e.g. `ShareGroupHeartbeat, ShareFetch`. */
    detail?: string;
  }) {
    const which =
      args.reason === 'no-share-apis'
        ? `the broker at ${args.broker} has no share groups: it does not offer ${args.detail ?? 'the share-group APIs'} in a version sharesink speaks (share groups need Kafka 4.1 or later, GA in 4.2)`
        : `the broker at ${args.broker} has share groups turned off: the cluster's share.version feature is 0`;
    const fix =
      args.reason === 'no-share-apis'
        ? 'upgrade the cluster to Kafka 4.2 or later'
        : `enable share groups with \`kafka-features.sh --bootstrap-server ${args.broker} upgrade --feature share.version=1\``;
    const one = args.connectors.length === 1;
    super(
      'SHARESINK_SHARE_GROUPS_UNAVAILABLE',
      `${which}, and ${args.connectors.join(', ')} read${one ? 's' : ''} through a share group ` +
        `(consumer.override.group.protocol=share): ${fix}, or run ${one ? 'it' : 'them'} as a classic consumer group with consumer.override.group.protocol=classic`,
    );
    this.reason = args.reason;
    this.broker = args.broker;
    this.connectors = args.connectors;
  }
}

export type KafkaResourceType = 'topic' | 'group';

const NEEDS: Readonly<Record<KafkaResourceType, { operations: string; acl: string }>> = {
  topic: { operations: 'READ (and DESCRIBE)', acl: '--operation Read --topic' },
  group: { operations: 'READ', acl: '--operation Read --group' },
};

/**
 * The broker refused access to a topic or group (TOPIC_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED).
 * The broker's answer names the resource, not the principal; sharesink says which principal it used
 * when it knows (its worker connects without SASL: User:ANONYMOUS).
 */
export class KafkaAuthorizationError extends SharesinkError {
  /** `TOPIC_AUTHORIZATION_FAILED` or `GROUP_AUTHORIZATION_FAILED`. */
  readonly kafkaName: string;
  readonly kafkaCode: number;
  readonly resourceType: KafkaResourceType;
  readonly resourceName: string;
  readonly principal: string | undefined;
  readonly brokerMessage: string | null;

  constructor(args: {
    kafkaCode: number;
    kafkaName: string;
    resourceType: KafkaResourceType;
    resourceName: string;
    /** Who needs the grant, e.g. `connector s1`. */
    usedBy?: string;
    /** The principal the client authenticated as, e.g. `User:ANONYMOUS`, when known. */
    principal?: string;
    brokerMessage?: string | null;
    /** What to grant, where it is not what reading needs (a dead-letter topic is written, and maybe created). */
    needs?: { operations: string; acl: string };
    /** Another way out, said after the grant. */
    alternative?: string;
    cause?: unknown;
  }) {
    const need = args.needs ?? NEEDS[args.resourceType];
    const who = args.principal ?? 'the principal sharesink connects as';
    const parts = [
      `not authorized: ${args.kafkaName} for ${args.resourceType} ${args.resourceName}` +
        (args.usedBy !== undefined ? ` (${args.usedBy})` : ''),
    ];
    if (args.brokerMessage) parts.push(`broker says: ${args.brokerMessage}`);
    parts.push(
      `${who} needs ${need.operations} on ${args.resourceType} ${args.resourceName} (an ALLOW ACL, and no DENY ACL, which wins), e.g. ` +
        `kafka-acls.sh --bootstrap-server … --add --allow-principal ${args.principal ?? 'User:<name>'} ${need.acl} ${args.resourceName}` +
        (args.alternative !== undefined ? `; ${args.alternative}` : ''),
    );
    super('SHARESINK_KAFKA_AUTHORIZATION', parts.join('; '), { cause: args.cause });
    this.kafkaCode = args.kafkaCode;
    this.kafkaName = args.kafkaName;
    this.resourceType = args.resourceType;
    this.resourceName = args.resourceName;
    this.principal = args.principal;
    this.brokerMessage = args.brokerMessage ?? null;
  }
}
