/**
 * The coded error of a consumer-protocol group (KIP-848) the broker will not let sharesink join: one
 * message that says why and what to do, instead of a heartbeat retried forever.
 */
import { SharesinkError } from '../../errors.js';
import { KafkaErrorCode, kafkaErrorName } from '../errors/kafka-errors.js';

export type ConsumerGroupRefusal =
  /** The group id is held by a classic group (its members use JoinGroup/SyncGroup) the broker will not convert. */
  | 'classic-group'
  /** The broker has no ConsumerGroupHeartbeat (Kafka before 4.0, or `group.coordinator.rebalance.protocols` without `consumer`). */
  | 'no-consumer-protocol'
  /** `group.remote.assignor` names an assignor the broker does not have. */
  | 'unknown-assignor'
  /** `group.instance.id` is used by another member that has not left. */
  | 'instance-id-in-use'
  /** Any other refusal: authorization, the group full, an invalid request. */
  | 'refused';

export class ConsumerGroupRefusedError extends SharesinkError {
  readonly reason: ConsumerGroupRefusal;
  readonly groupId: string;
  readonly kafkaName: string | undefined;
  readonly brokerMessage: string | null;

  constructor(args: {
    reason: ConsumerGroupRefusal;
    groupId: string;
    kafkaCode?: number;
    brokerMessage?: string | null;
  }) {
    const g = `group ${args.groupId}`;
    const said = args.brokerMessage ? ` (broker says: ${args.brokerMessage})` : '';
    const text: Record<ConsumerGroupRefusal, string> = {
      'classic-group':
        `${g} is a classic consumer group, and this task joins it with group.protocol=consumer${said}: ` +
        'stop the classic members (or let the broker convert the group: group.consumer.migration.policy), ' +
        'use another group id, or set consumer.override.group.protocol=classic',
      'no-consumer-protocol':
        `the broker does not speak the consumer group protocol (ConsumerGroupHeartbeat, KIP-848) for ${g}${said}: ` +
        'use Kafka 4.0 or later with group.coordinator.rebalance.protocols including consumer, or set ' +
        'consumer.override.group.protocol=classic',
      'unknown-assignor':
        `the broker has no assignor named by group.remote.assignor for ${g}${said}: use uniform or range ` +
        '(or one listed in the broker’s group.consumer.assignors)',
      'instance-id-in-use':
        `group.instance.id is already used by another member of ${g}${said}: give each task its own ` +
        'group.instance.id, or wait for the other member to leave',
      refused: `the broker refused ${g} with ${args.kafkaCode === undefined ? 'an error' : kafkaErrorName(args.kafkaCode)}${said}`,
    };
    super('SHARESINK_CONSUMER_GROUP_REFUSED', text[args.reason]);
    this.reason = args.reason;
    this.groupId = args.groupId;
    this.kafkaName = args.kafkaCode === undefined ? undefined : kafkaErrorName(args.kafkaCode);
    this.brokerMessage = args.brokerMessage ?? null;
  }
}

/** The refusal a heartbeat error code means, or undefined when the member should retry or rejoin. */
export function refusalOf(code: number): ConsumerGroupRefusal | undefined {
  switch (code) {
    case KafkaErrorCode.GROUP_ID_NOT_FOUND:
    case KafkaErrorCode.INCONSISTENT_GROUP_PROTOCOL:
      return 'classic-group';
    case KafkaErrorCode.UNSUPPORTED_VERSION:
      return 'no-consumer-protocol';
    case KafkaErrorCode.UNSUPPORTED_ASSIGNOR:
      return 'unknown-assignor';
    case KafkaErrorCode.UNRELEASED_INSTANCE_ID:
      return 'instance-id-in-use';
    case KafkaErrorCode.GROUP_AUTHORIZATION_FAILED:
    case KafkaErrorCode.TOPIC_AUTHORIZATION_FAILED:
    case KafkaErrorCode.GROUP_MAX_SIZE_REACHED:
    case KafkaErrorCode.INVALID_REQUEST:
    case KafkaErrorCode.INVALID_GROUP_ID:
      return 'refused';
    default:
      return undefined;
  }
}
