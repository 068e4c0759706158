/**
 * The share-group offset admin APIs (KIP-932): DescribeShareGroupOffsets (key 90, v0–v1),
 * AlterShareGroupOffsets (key 91, v0) and DeleteShareGroupOffsets (key 92, v0), all flexible and sent to
 * the group coordinator. Verified against the `*ShareGroupOffsets{Request,Response}.json` files inside
 * kafka-clients-4.4.0.jar: v1 of Describe adds the per-partition `Lag` (KIP-1226, Kafka 4.2; -1 when
 * the broker cannot tell); Alter answers a top-level error plus one per partition; Delete takes whole
 * topics and answers one error per topic. Alter and Delete answer NON_EMPTY_GROUP while the group has
 * members.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

// ── DescribeShareGroupOffsets ─────────────────────────────────────────────────────────────────────────

export interface DescribeShareGroupOffsetsRequest {
  groups: Array<{
    groupId: string;
    /** null: every topic-partition the group has state for. */
    topics: Array<{ topicName: string; partitions: number[] }> | null;
  }>;
}

export interface DescribedShareOffsetPartition {
  partitionIndex: number;
  /** The share-partition start offset (SPSO); -1 when the group has no state for the partition. */
  startOffset: number;
  leaderEpoch: number;
  /** v1+: records from the start offset to the end of the log not yet delivered to completion; -1 unknown (and in v0). */
  lag: number;
  errorCode: number;
  errorMessage: string | null;
}

export interface DescribedShareOffsetTopic {
  topicName: string;
  topicId: string;
  partitions: DescribedShareOffsetPartition[];
}

export interface DescribedShareGroupOffsets {
  groupId: string;
  topics: DescribedShareOffsetTopic[];
  errorCode: number;
  errorMessage: string | null;
}

export interface DescribeShareGroupOffsetsResponse {
  throttleTimeMs: number;
  groups: DescribedShareGroupOffsets[];
}

function readDescribedPartition(r: Reader, version: number): DescribedShareOffsetPartition {
  const partitionIndex = r.int32();
  const startOffset = r.int64();
  const leaderEpoch = r.int32();
  const lag = version >= 1 ? r.int64() : -1;
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  r.taggedFields();
  return { partitionIndex, startOffset, leaderEpoch, lag, errorCode, errorMessage };
}

function readDescribedTopic(r: Reader, version: number): DescribedShareOffsetTopic {
  const topicName = r.compactString();
  const topicId = r.uuid();
  const partitions = r.compactArray((rr) => readDescribedPartition(rr, version), 18);
  r.taggedFields();
  return { topicName, topicId, partitions };
}

function readDescribedGroup(r: Reader, version: number): DescribedShareGroupOffsets {
  const groupId = r.compactString();
  const topics = r.compactArray((rr) => readDescribedTopic(rr, version), 19);
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  r.taggedFields();
  return { groupId, topics, errorCode, errorMessage };
}

export const DescribeShareGroupOffsets: ApiDefinition<
  DescribeShareGroupOffsetsRequest,
  DescribeShareGroupOffsetsResponse
> = {
  apiKey: ApiKey.DescribeShareGroupOffsets,
  name: 'DescribeShareGroupOffsets',
  minVersion: 0,
  maxVersion: 1,
  firstFlexibleVersion: 0,

  encodeRequest(w: Writer, req: DescribeShareGroupOffsetsRequest): void {
    w.compactArray(req.groups, (gw, g) => {
      gw.compactString(g.groupId);
      gw.compactNullableArray(g.topics, (tw, t) => {
        tw.compactString(t.topicName);
        tw.compactInt32Array(t.partitions);
        tw.emptyTaggedFields();
      });
      gw.emptyTaggedFields();
    });
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader, version: number): DescribeShareGroupOffsetsResponse {
    const throttleTimeMs = r.int32();
    const groups = r.compactArray((rr) => readDescribedGroup(rr, version), 5);
    r.taggedFields();
    return { throttleTimeMs, groups };
  },
};

// ── AlterShareGroupOffsets ────────────────────────────────────────────────────────────────────────────

export interface AlterShareGroupOffsetsRequest {
  groupId: string;
  topics: Array<{ topicName: string; partitions: Array<{ partitionIndex: number; startOffset: number }> }>;
}

export interface PartitionResult {
  partitionIndex: number;
  errorCode: number;
  errorMessage: string | null;
}

export interface AlterShareGroupOffsetsResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  responses: Array<{ topicName: string; topicId: string; partitions: PartitionResult[] }>;
}

function readPartitionResult(r: Reader): PartitionResult {
  const partitionIndex = r.int32();
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  r.taggedFields();
  return { partitionIndex, errorCode, errorMessage };
}

export const AlterShareGroupOffsets: ApiDefinition<
  AlterShareGroupOffsetsRequest,
  AlterShareGroupOffsetsResponse
> = {
  apiKey: ApiKey.AlterShareGroupOffsets,
  name: 'AlterShareGroupOffsets',
  minVersion: 0,
  maxVersion: 0,
  firstFlexibleVersion: 0,

  encodeRequest(w: Writer, req: AlterShareGroupOffsetsRequest): void {
    w.compactString(req.groupId);
    w.compactArray(req.topics, (tw, t) => {
      tw.compactString(t.topicName);
      tw.compactArray(t.partitions, (pw, p) => {
        pw.int32(p.partitionIndex);
        pw.int64(p.startOffset);
        pw.emptyTaggedFields();
      });
      tw.emptyTaggedFields();
    });
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): AlterShareGroupOffsetsResponse {
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const errorMessage = r.compactNullableString();
    const responses = r.compactArray((rr) => {
      const topicName = rr.compactString();
      const topicId = rr.uuid();
      const partitions = rr.compactArray(readPartitionResult, 8);
      rr.taggedFields();
      return { topicName, topicId, partitions };
    }, 19);
    r.taggedFields();
    return { throttleTimeMs, errorCode, errorMessage, responses };
  },
};

// ── DeleteShareGroupOffsets ───────────────────────────────────────────────────────────────────────────

export interface DeleteShareGroupOffsetsRequest {
  groupId: string;
  /** Whole topics: the broker deletes the group's state for every partition of each. */
  topics: Array<{ topicName: string }>;
}

export interface DeleteShareGroupOffsetsResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  responses: Array<{ topicName: string; topicId: string; errorCode: number; errorMessage: string | null }>;
}

export const DeleteShareGroupOffsets: ApiDefinition<
  DeleteShareGroupOffsetsRequest,
  DeleteShareGroupOffsetsResponse
> = {
  apiKey: ApiKey.DeleteShareGroupOffsets,
  name: 'DeleteShareGroupOffsets',
  minVersion: 0,
  maxVersion: 0,
  firstFlexibleVersion: 0,

  encodeRequest(w: Writer, req: DeleteShareGroupOffsetsRequest): void {
    w.compactString(req.groupId);
    w.compactArray(req.topics, (tw, t) => {
      tw.compactString(t.topicName);
      tw.emptyTaggedFields();
    });
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): DeleteShareGroupOffsetsResponse {
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const errorMessage = r.compactNullableString();
    const responses = r.compactArray((rr) => {
      const topicName = rr.compactString();
      const topicId = rr.uuid();
      const code = rr.int16();
      const message = rr.compactNullableString();
      rr.taggedFields();
      return { topicName, topicId, errorCode: code, errorMessage: message };
    }, 21);
    r.taggedFields();
    return { throttleTimeMs, errorCode, errorMessage, responses };
  },
};
