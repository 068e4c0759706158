/**
 * ShareAcknowledge (key 79), v1–v2 (flexible). Verified against ShareAcknowledgeRequest.json /
 * ShareAcknowledgeResponse.json of Kafka 4.4.0: v2 adds IsRenewAck (after ShareSessionEpoch) to the request
 * and AcquisitionLockTimeoutMs (after ErrorMessage) to the response (KIP-1222). Sent to the partition leader,
 * within an existing share session.
 */
import { ApiKey, readLeaderIdAndEpoch, readNodeEndpoint, type ApiDefinition } from '../api.js';
import type { LeaderIdAndEpoch, NodeEndpoint } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';
import { encodeError } from '../../errors/kafka-errors.js';

/** Acknowledge types (AcknowledgeTypes entries). */
export const AcknowledgeType = {
  /** Offset with no record (compacted away, control record); only inside an acquired range. */
  GAP: 0,
  ACCEPT: 1,
  RELEASE: 2,
  REJECT: 3,
  /** Extend the acquisition lock; not terminal. v2 + IsRenewAck only (Kafka 4.2+, KIP-1222). */
  RENEW: 4,
} as const;

/** One acknowledgement range, shared by ShareFetch and ShareAcknowledge requests. */
export interface AcknowledgementBatch {
  firstOffset: number;
  /** Inclusive. */
  lastOffset: number;
  /** One type for the whole range, or one per offset (lastOffset − firstOffset + 1 entries). */
  acknowledgeTypes: number[];
}

export function writeAcknowledgementBatch(w: Writer, b: AcknowledgementBatch): void {
  w.int64(b.firstOffset);
  w.int64(b.lastOffset);
  w.compactArray(b.acknowledgeTypes, (x, t) => x.int8(t));
  w.emptyTaggedFields();
}

export interface ShareAcknowledgePartition {
  partitionIndex: number;
  acknowledgementBatches: AcknowledgementBatch[];
}

export interface ShareAcknowledgeTopic {
  topicId: string;
  partitions: ShareAcknowledgePartition[];
}

export interface ShareAcknowledgeRequest {
  groupId: string | null;
  memberId: string | null;
  /** The session's next epoch; -1 closes the session after applying these acknowledgements. */
  shareSessionEpoch: number;
  /** v2+: true when a batch carries type 4 (Renew); must be false for v1. Default false. */
  isRenewAck?: boolean;
  topics: ShareAcknowledgeTopic[];
}

export interface ShareAcknowledgePartitionData {
  partitionIndex: number;
  errorCode: number;
  errorMessage: string | null;
  currentLeader: LeaderIdAndEpoch;
}

export interface ShareAcknowledgeTopicResponse {
  topicId: string;
  partitions: ShareAcknowledgePartitionData[];
}

export interface ShareAcknowledgeResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  /** v2+ (renewed lock duration); 0 for v1. */
  acquisitionLockTimeoutMs: number;
  responses: ShareAcknowledgeTopicResponse[];
  nodeEndpoints: NodeEndpoint[];
}

function writePartition(w: Writer, p: ShareAcknowledgePartition): void {
  w.int32(p.partitionIndex);
  w.compactArray(p.acknowledgementBatches, writeAcknowledgementBatch);
  w.emptyTaggedFields();
}

function writeTopic(w: Writer, t: ShareAcknowledgeTopic): void {
  w.uuid(t.topicId);
  w.compactArray(t.partitions, writePartition);
  w.emptyTaggedFields();
}

function readPartition(r: Reader): ShareAcknowledgePartitionData {
  const partitionIndex = r.int32();
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const currentLeader = readLeaderIdAndEpoch(r);
  r.taggedFields();
  return { partitionIndex, errorCode, errorMessage, currentLeader };
}

function readTopic(r: Reader): ShareAcknowledgeTopicResponse {
  const topicId = r.uuid();
  const partitions = r.compactArray(readPartition, 17);
  r.taggedFields();
  return { topicId, partitions };
}

export const ShareAcknowledge: ApiDefinition<ShareAcknowledgeRequest, ShareAcknowledgeResponse> = {
  apiKey: ApiKey.ShareAcknowledge,
  name: 'ShareAcknowledge',
  minVersion: 1,
  maxVersion: 2,
  firstFlexibleVersion: 0,

  encodeRequest(w: Writer, req: ShareAcknowledgeRequest, version: number): void {
    w.compactNullableString(req.groupId);
    w.compactNullableString(req.memberId);
    w.int32(req.shareSessionEpoch);
    if (version >= 2) w.bool(req.isRenewAck ?? false);
    else if (req.isRenewAck === true) {
      throw encodeError('ShareAcknowledge v1 has no IsRenewAck: need v2 (Kafka 4.2+)');
    }
    w.compactArray(req.topics, writeTopic);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader, version: number): ShareAcknowledgeResponse {
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const errorMessage = r.compactNullableString();
    const acquisitionLockTimeoutMs = version >= 2 ? r.int32() : 0;
    const responses = r.compactArray(readTopic, 18);
    const nodeEndpoints = r.compactArray(readNodeEndpoint, 11);
    r.taggedFields();
    return { throttleTimeMs, errorCode, errorMessage, acquisitionLockTimeoutMs, responses, nodeEndpoints };
  },
};
