/**
 * OffsetFetch (key 9), v9 (flexible): the first version that carries the member id and epoch of a consumer
 * group member (KIP-848), with topics by name (v10 moves to topic ids). Verified against
 * OffsetFetchRequest.json / OffsetFetchResponse.json of Kafka 4.4.0: from v8 the request and response
 * are batched by group. Sent to the group coordinator.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface OffsetFetchRequest {
  groupId: string;
  /** null = not a member (an admin read); the epoch is then -1. */
  memberId: string | null;
  memberEpoch: number;
  /** null = every partition the group has offsets for. */
  topics: Array<{ name: string; partitionIndexes: number[] }> | null;
  requireStable: boolean;
}

export interface OffsetFetchPartition {
  partitionIndex: number;
  /** -1 = no committed offset. */
  committedOffset: number;
  committedLeaderEpoch: number;
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchResponse {
  throttleTimeMs: number;
  groups: Array<{
    groupId: string;
    topics: Array<{ name: string; partitions: OffsetFetchPartition[] }>;
    errorCode: number;
  }>;
}

function readPartition(r: Reader): OffsetFetchPartition {
  const partitionIndex = r.int32();
  const committedOffset = r.int64();
  const committedLeaderEpoch = r.int32();
  const metadata = r.compactNullableString();
  const errorCode = r.int16();
  r.taggedFields();
  return { partitionIndex, committedOffset, committedLeaderEpoch, metadata, errorCode };
}

function readTopic(r: Reader): OffsetFetchResponse['groups'][number]['topics'][number] {
  const name = r.compactString();
  const partitions = r.compactArray(readPartition, 20);
  r.taggedFields();
  return { name, partitions };
}

function readGroup(r: Reader): OffsetFetchResponse['groups'][number] {
  const groupId = r.compactString();
  const topics = r.compactArray(readTopic, 3);
  const errorCode = r.int16();
  r.taggedFields();
  return { groupId, topics, errorCode };
}

export const OffsetFetch: ApiDefinition<OffsetFetchRequest, OffsetFetchResponse> = {
  apiKey: ApiKey.OffsetFetch,
  name: 'OffsetFetch',
  minVersion: 9,
  maxVersion: 9,
  firstFlexibleVersion: 6,

  encodeRequest(w: Writer, req: OffsetFetchRequest): void {
    w.compactArray([req], (x, g) => {
      x.compactString(g.groupId);
      x.compactNullableString(g.memberId);
      x.int32(g.memberEpoch);
      x.compactNullableArray(g.topics, (y, t) => {
        y.compactString(t.name);
        y.compactInt32Array(t.partitionIndexes);
        y.emptyTaggedFields();
      });
      x.emptyTaggedFields();
    });
    w.bool(req.requireStable);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): OffsetFetchResponse {
    const throttleTimeMs = r.int32();
    const groups = r.compactArray(readGroup, 5);
    r.taggedFields();
    return { throttleTimeMs, groups };
  },
};
