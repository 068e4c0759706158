/**
 * ShareGroupHeartbeat (key 76), v1 (flexible). Verified against ShareGroupHeartbeatRequest.json /
 * ShareGroupHeartbeatResponse.json of Kafka 4.4.0 (v0 was the 4.0 early-access version, removed in 4.1).
 * Sent to the group coordinator (FindCoordinator key type GROUP).
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface ShareGroupHeartbeatRequest {
  groupId: string;
  /** Made by the client (see `randomUuid()`), kept for the life of the member, sent on every heartbeat. */
  memberId: string;
  /** 0 = join, -1 = leave, otherwise the current member epoch. */
  memberEpoch: number;
  /** null = not given / unchanged. */
  rackId: string | null;
  /** null = unchanged since the last heartbeat. */
  subscribedTopicNames: string[] | null;
}

export interface ShareTopicPartitions {
  topicId: string;
  partitions: number[];
}

export interface ShareGroupHeartbeatResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** null = no change to the assignment; otherwise the full assignment, by topic id. */
  assignment: { topicPartitions: ShareTopicPartitions[] } | null;
}

function readTopicPartitions(r: Reader): ShareTopicPartitions {
  const topicId = r.uuid();
  const partitions = r.compactInt32Array();
  r.taggedFields();
  return { topicId, partitions };
}

export const ShareGroupHeartbeat: ApiDefinition<ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse> = {
  apiKey: ApiKey.ShareGroupHeartbeat,
  name: 'ShareGroupHeartbeat',
  minVersion: 1,
  maxVersion: 1,
  firstFlexibleVersion: 0,

  encodeRequest(w: Writer, req: ShareGroupHeartbeatRequest): void {
    w.compactString(req.groupId);
    w.compactString(req.memberId);
    w.int32(req.memberEpoch);
    w.compactNullableString(req.rackId);
    w.compactNullableArray(req.subscribedTopicNames, (x, s) => x.compactString(s));
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): ShareGroupHeartbeatResponse {
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const errorMessage = r.compactNullableString();
    const memberId = r.compactNullableString();
    const memberEpoch = r.int32();
    const heartbeatIntervalMs = r.int32();
    // A nullable struct is preceded by an int8: -1 (negative) = null, 1 = present.
    let assignment: ShareGroupHeartbeatResponse['assignment'] = null;
    if (r.int8() >= 0) {
      const topicPartitions = r.compactArray(readTopicPartitions, 18);
      r.taggedFields();
      assignment = { topicPartitions };
    }
    r.taggedFields();
    return {
      throttleTimeMs,
      errorCode,
      errorMessage,
      memberId,
      memberEpoch,
      heartbeatIntervalMs,
      assignment,
    };
  },
};
