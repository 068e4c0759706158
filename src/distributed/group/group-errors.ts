/** How the worker-group member sorts the coordinator's error codes, and the advice for those a user fixes. */
import { KafkaConnectionError, KafkaError, KafkaErrorCode } from '../../kafka/errors/kafka-errors.js';

/** The group has gone on without this member: stop everything, join afresh. */
export const LOST_ERRORS: ReadonlySet<number> = new Set([
  KafkaErrorCode.UNKNOWN_MEMBER_ID,
  KafkaErrorCode.ILLEGAL_GENERATION,
]);

export function isRetriable(err: unknown): boolean {
  if (err instanceof KafkaConnectionError) return true;
  return (err as { retriable?: boolean }).retriable === true;
}

/** The error for a refused JoinGroup / SyncGroup, naming the setting to change where there is one. */
export function groupError(
  code: number,
  api: string,
  settings: { groupId: string; sessionTimeoutMs: number },
): KafkaError {
  const { groupId, sessionTimeoutMs } = settings;
  const hint: Partial<Record<number, string>> = {
    [KafkaErrorCode.INCONSISTENT_GROUP_PROTOCOL]: `group.id ${groupId} is in use by a group of another kind (a consumer group or a Kafka Connect cluster); give the sharesink workers a group.id of their own`,
    [KafkaErrorCode.INVALID_SESSION_TIMEOUT]: `session.timeout.ms=${sessionTimeoutMs} is outside the broker's group.min.session.timeout.ms … group.max.session.timeout.ms; change session.timeout.ms`,
    [KafkaErrorCode.GROUP_MAX_SIZE_REACHED]: `the worker group ${groupId} has reached the broker's group.max.size`,
  };
  const advice = hint[code];
  return new KafkaError(code, {
    api,
    subject: advice === undefined ? `worker group ${groupId}` : `worker group ${groupId}: ${advice}`,
  });
}
