/**
 * What both herders' offsets calls (KIP-875) share: the group a connector's config names, and the
 * offsets module's failures as herder errors. The offsets module's refusals (OffsetsRequestError,
 * GroupNotEmptyError) pass unchanged; a topic or partition that does not exist is the caller's mistake;
 * anything else (the broker unreachable, an authorisation error) says which group could not be reached.
 */
import type { ConnectorConfig } from '../config/types.js';
import { SharesinkError } from '../errors.js';
import { KafkaError, KafkaErrorCode } from '../kafka/errors/kafka-errors.js';
import { GroupNotEmptyError, OffsetsRequestError } from '../offsets/errors.js';
import { HerderError } from './errors.js';

type OffsetsConfigSource = Pick<ConnectorConfig, 'name' | 'groupProtocol'> &
  Partial<Pick<ConnectorConfig, 'groupId' | 'security'>>;

/** What the offsets calls read of a compiled connector config (a runtime's, or one from the config topic). */
export function offsetsConfigOf(config: OffsetsConfigSource) {
  return {
    name: config.name,
    groupProtocol: config.groupProtocol,
    groupId: config.groupId ?? `connect-${config.name}`,
    security: config.security,
  };
}

export async function answering<T>(groupId: string, job: () => Promise<T>): Promise<T> {
  try {
    return await job();
  } catch (err) {
    if (err instanceof OffsetsRequestError || err instanceof GroupNotEmptyError) throw err;
    if (err instanceof KafkaError && err.kafkaCode === KafkaErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
      throw new HerderError('bad-request', err.code, err.message);
    const code = err instanceof SharesinkError ? err.code : 'SHARESINK_OFFSETS_KAFKA';
    throw new HerderError(
      'internal',
      code,
      `The offsets of group ${groupId} could not be read or changed: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}
