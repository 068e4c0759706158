/**
 * ShareFetch (key 78), v1–v2 (flexible). Verified against ShareFetchRequest.json / ShareFetchResponse.json of
 * Kafka 4.4.0: v1 is the first stable version (KIP-932; MaxRecords, BatchSize, AcquisitionLockTimeoutMs;
 * Records not nullable); v2 adds ShareAcquireMode and IsRenewAck, in that order, after BatchSize
 * (KIP-1206, KIP-1222) and allows acknowledge type 4 (Renew). Sent to the partition leader.
 */
import { ApiKey, readLeaderIdAndEpoch, readNodeEndpoint, type ApiDefinition } from '../api.js';
import type { LeaderIdAndEpoch, NodeEndpoint } from '../api.js';
import { EMPTY_BUFFER, type Reader } from '../reader.js';
import type { Writer } from '../writer.js';
import { encodeError } from '../../errors/kafka-errors.js';
import { writeAcknowledgementBatch, type AcknowledgementBatch } from './share-acknowledge.js';

/** ShareAcquireMode (v2+). */
export const ShareAcquireMode = {
  /** Acquire whole batches; MaxRecords is a soft limit. The default. */
  BATCH_OPTIMIZED: 0,
  /** Acquire at most MaxRecords records. */
  RECORD_LIMIT: 1,
} as const;

export interface ShareFetchPartition {
  partitionIndex: number;
  /** Piggy-backed acknowledgements for this partition; [] for none. */
  acknowledgementBatches: AcknowledgementBatch[];
}

export interface ShareFetchTopic {
  topicId: string;
  partitions: ShareFetchPartition[];
}

export interface ForgottenTopic {
  topicId: string;
  partitions: number[];
}

export interface ShareFetchRequest {
  groupId: string | null;
  memberId: string | null;
  /** 0 opens a session, -1 closes it, otherwise previous + 1. */
  shareSessionEpoch: number;
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  /** v1+: soft limit on records acquired. */
  maxRecords: number;
  /** v1+: preferred records per acquired batch. */
  batchSize: number;
  /** v2+ ({@link ShareAcquireMode}); ignored (must be 0) for v1. Default 0. */
  shareAcquireMode?: number;
  /** v2+: true when an acknowledgement batch carries type 4 (Renew); must be false for v1. Default false. */
  isRenewAck?: boolean;
  /** Partitions to add to the session and/or acknowledge. */
  topics: ShareFetchTopic[];
  /** Partitions to remove from the session. */
  forgottenTopicsData: ForgottenTopic[];
}

export interface AcquiredRecords {
  firstOffset: number;
  /** Inclusive. */
  lastOffset: number;
  deliveryCount: number;
}

export interface ShareFetchPartitionData {
  partitionIndex: number;
  errorCode: number;
  errorMessage: string | null;
  /** Outcome of the acknowledgements piggy-backed on the request for this partition. */
  acknowledgeErrorCode: number;
  acknowledgeErrorMessage: string | null;
  currentLeader: LeaderIdAndEpoch;
  /**
   * Zero or more RecordBatch v2, possibly ending in a partial batch; decode with `decodeRecordBatches`.
   * A view into the response buffer (no copy). May hold records that were not acquired by this member:
   * only offsets inside {@link acquiredRecords} are ours.
   */
  records: Buffer;
  acquiredRecords: AcquiredRecords[];
}

export interface ShareFetchTopicResponse {
  topicId: string;
  partitions: ShareFetchPartitionData[];
}

export interface ShareFetchResponse {
  throttleTimeMs: number;
  /** Top-level error (session errors show here). */
  errorCode: number;
  errorMessage: string | null;
  /** How long the acquired records stay locked, from the time of the response. */
  acquisitionLockTimeoutMs: number;
  responses: ShareFetchTopicResponse[];
  /** Endpoints of new leaders for partitions that returned NOT_LEADER_OR_FOLLOWER. */
  nodeEndpoints: NodeEndpoint[];
}

function writePartition(w: Writer, p: ShareFetchPartition): void {
  w.int32(p.partitionIndex);
  w.compactArray(p.acknowledgementBatches, writeAcknowledgementBatch);
  w.emptyTaggedFields();
}

function writeTopic(w: Writer, t: ShareFetchTopic): void {
  w.uuid(t.topicId);
  w.compactArray(t.partitions, writePartition);
  w.emptyTaggedFields();
}

function writeForgotten(w: Writer, t: ForgottenTopic): void {
  w.uuid(t.topicId);
  w.compactInt32Array(t.partitions);
  w.emptyTaggedFields();
}

function readAcquired(r: Reader): AcquiredRecords {
  const firstOffset = r.int64();
  const lastOffset = r.int64();
  const deliveryCount = r.int16();
  r.taggedFields();
  return { firstOffset, lastOffset, deliveryCount };
}

function readPartition(r: Reader): ShareFetchPartitionData {
  const partitionIndex = r.int32();
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const acknowledgeErrorCode = r.int16();
  const acknowledgeErrorMessage = r.compactNullableString();
  const currentLeader = readLeaderIdAndEpoch(r);
  // Records is non-nullable from v1; tolerate a null from a lenient broker as "no records".
  const records = r.compactNullableBytes() ?? EMPTY_BUFFER;
  const acquiredRecords = r.compactArray(readAcquired, 19);
  r.taggedFields();
  return {
    partitionIndex,
    errorCode,
    errorMessage,
    acknowledgeErrorCode,
    acknowledgeErrorMessage,
    currentLeader,
    records,
    acquiredRecords,
  };
}

function readTopic(r: Reader): ShareFetchTopicResponse {
  const topicId = r.uuid();
  const partitions = r.compactArray(readPartition, 22);
  r.taggedFields();
  return { topicId, partitions };
}

export const ShareFetch: ApiDefinition<ShareFetchRequest, ShareFetchResponse> = {
  apiKey: ApiKey.ShareFetch,
  name: 'ShareFetch',
  minVersion: 1,
  maxVersion: 2,
  firstFlexibleVersion: 0,

  encodeRequest(w: Writer, req: ShareFetchRequest, version: number): void {
    w.compactNullableString(req.groupId);
    w.compactNullableString(req.memberId);
    w.int32(req.shareSessionEpoch);
    w.int32(req.maxWaitMs);
    w.int32(req.minBytes);
    w.int32(req.maxBytes);
    w.int32(req.maxRecords);
    w.int32(req.batchSize);
    if (version >= 2) {
      w.int8(req.shareAcquireMode ?? 0);
      w.bool(req.isRenewAck ?? false);
    } else if ((req.shareAcquireMode ?? 0) !== 0 || req.isRenewAck === true) {
      throw encodeError('ShareFetch v1 has no ShareAcquireMode / IsRenewAck: need v2 (Kafka 4.2+)');
    }
    w.compactArray(req.topics, writeTopic);
    w.compactArray(req.forgottenTopicsData, writeForgotten);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): ShareFetchResponse {
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const errorMessage = r.compactNullableString();
    const acquisitionLockTimeoutMs = r.int32();
    const responses = r.compactArray(readTopic, 18);
    const nodeEndpoints = r.compactArray(readNodeEndpoint, 11);
    r.taggedFields();
    return { throttleTimeMs, errorCode, errorMessage, acquisitionLockTimeoutMs, responses, nodeEndpoints };
  },
};
