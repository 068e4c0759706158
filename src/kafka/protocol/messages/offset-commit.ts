/**
 * OffsetCommit (key 8), v9 (flexible): the first version a consumer group member (KIP-848) may send, its
 * GenerationIdOrMemberEpoch being the member epoch; topics by name (v10 moves to topic ids). Verified
 * against OffsetCommitRequest.json / OffsetCommitResponse.json of Kafka 4.4.0 (v9's body is v8's).
 * Sent to the group coordinator; STALE_MEMBER_EPOCH (113) answers an epoch the member no longer has.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface OffsetCommitRequest {
  groupId: string;
  /** The member epoch (-1 for a commit from outside the group). */
  memberEpoch: number;
  memberId: string;
  groupInstanceId: string | null;
  topics: Array<{
    name: string;
    partitions: Array<{
      partitionIndex: number;
      /** The next offset to read. */
      committedOffset: number;
      committedLeaderEpoch: number;
      committedMetadata: string | null;
    }>;
  }>;
}

export interface OffsetCommitResponse {
  throttleTimeMs: number;
  topics: Array<{ name: string; partitions: Array<{ partitionIndex: number; errorCode: number }> }>;
}

function readTopic(r: Reader): OffsetCommitResponse['topics'][number] {
  const name = r.compactString();
  const partitions = r.compactArray((x) => {
    const partitionIndex = x.int32();
    const errorCode = x.int16();
    x.taggedFields();
    return { partitionIndex, errorCode };
  }, 7);
  r.taggedFields();
  return { name, partitions };
}

export const OffsetCommit: ApiDefinition<OffsetCommitRequest, OffsetCommitResponse> = {
  apiKey: ApiKey.OffsetCommit,
  name: 'OffsetCommit',
  minVersion: 9,
  maxVersion: 9,
  firstFlexibleVersion: 8,

  encodeRequest(w: Writer, req: OffsetCommitRequest): void {
    w.compactString(req.groupId);
    w.int32(req.memberEpoch);
    w.compactString(req.memberId);
    w.compactNullableString(req.groupInstanceId);
    w.compactArray(req.topics, (x, t) => {
      x.compactString(t.name);
      x.compactArray(t.partitions, (y, p) => {
        y.int32(p.partitionIndex);
        y.int64(p.committedOffset);
        y.int32(p.committedLeaderEpoch);
        y.compactNullableString(p.committedMetadata);
        y.emptyTaggedFields();
      });
      x.emptyTaggedFields();
    });
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): OffsetCommitResponse {
    const throttleTimeMs = r.int32();
    const topics = r.compactArray(readTopic, 3);
    r.taggedFields();
    return { throttleTimeMs, topics };
  },
};
