/**
 * The response both KIP-848 heartbeats share: ConsumerGroupHeartbeatResponse (v0–v1) and
 * ShareGroupHeartbeatResponse (v1) have the same fields in Kafka 4.4.0's schemas, so one decoder serves
 * both protocols.
 */
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

/** Partitions of one topic, by topic id. */
export interface GroupTopicPartitions {
  topicId: string;
  partitions: number[];
}

export interface GroupHeartbeatResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** null = no change to the assignment; otherwise the whole target assignment, by topic id. */
  assignment: { topicPartitions: GroupTopicPartitions[] } | null;
}

export function writeTopicPartitions(w: Writer, t: GroupTopicPartitions): void {
  w.uuid(t.topicId);
  w.compactInt32Array(t.partitions);
  w.emptyTaggedFields();
}

function readTopicPartitions(r: Reader): GroupTopicPartitions {
  const topicId = r.uuid();
  const partitions = r.compactInt32Array();
  r.taggedFields();
  return { topicId, partitions };
}

export function decodeGroupHeartbeatResponse(r: Reader): GroupHeartbeatResponse {
  const throttleTimeMs = r.int32();
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const memberId = r.compactNullableString();
  const memberEpoch = r.int32();
  const heartbeatIntervalMs = r.int32();
  // a nullable struct is preceded by an int8: -1 (negative) = null, 1 = present
  let assignment: GroupHeartbeatResponse['assignment'] = null;
  if (r.int8() >= 0) {
    const topicPartitions = r.compactArray(readTopicPartitions, 18);
    r.taggedFields();
    assignment = { topicPartitions };
  }
  r.taggedFields();
  return { throttleTimeMs, errorCode, errorMessage, memberId, memberEpoch, heartbeatIntervalMs, assignment };
}
