/**
 * Fetch (key 1), v13–v17 (flexible, topic ids). Verified against FetchRequest.json / FetchResponse.json of
 * Kafka 4.4.0: v13 replaces topic names by topic ids; v15 drops ReplicaId from the body (a consumer's is
 * -1 either way; the replica state became tagged); v16 adds the NodeEndpoints tagged field (tag 0) of the
 * response; v17 adds a tagged field only followers send. Partition data carries tagged DivergingEpoch
 * (0), CurrentLeader (1) and SnapshotId (2). A consumer sends SessionId 0 / SessionEpoch -1: a full fetch,
 * no incremental session. Sent to the partition leader.
 */
import { ApiKey, readLeaderIdAndEpoch, readNodeEndpoint, type ApiDefinition } from '../api.js';
import type { LeaderIdAndEpoch, NodeEndpoint } from '../api.js';
import { EMPTY_BUFFER, type Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface FetchPartition {
  partition: number;
  /** -1 = unknown (no fencing). */
  currentLeaderEpoch: number;
  fetchOffset: number;
  partitionMaxBytes: number;
}

export interface FetchTopic {
  topicId: string;
  partitions: FetchPartition[];
}

export interface FetchRequest {
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  /** 0 read_uncommitted, 1 read_committed. */
  isolationLevel: number;
  topics: FetchTopic[];
  rackId: string;
}

export interface FetchPartitionData {
  partitionIndex: number;
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  /** Set on NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH; leaderId -1 when not given. */
  currentLeader: LeaderIdAndEpoch;
  abortedTransactions: Array<{ producerId: number; firstOffset: number }> | null;
  preferredReadReplica: number;
  /** Zero or more RecordBatch v2, possibly ending in a partial batch; a view into the response. */
  records: Buffer;
}

export interface FetchTopicResponse {
  topicId: string;
  partitions: FetchPartitionData[];
}

export interface FetchResponse {
  throttleTimeMs: number;
  errorCode: number;
  sessionId: number;
  responses: FetchTopicResponse[];
  nodeEndpoints: NodeEndpoint[];
}

function writePartition(w: Writer, p: FetchPartition): void {
  w.int32(p.partition);
  w.int32(p.currentLeaderEpoch);
  w.int64(p.fetchOffset);
  w.int32(-1); // LastFetchedEpoch: followers only
  w.int64(-1); // LogStartOffset: followers only
  w.int32(p.partitionMaxBytes);
  w.emptyTaggedFields();
}

function writeTopic(w: Writer, t: FetchTopic): void {
  w.uuid(t.topicId);
  w.compactArray(t.partitions, writePartition);
  w.emptyTaggedFields();
}

function readAborted(r: Reader): { producerId: number; firstOffset: number } {
  const producerId = r.int64();
  const firstOffset = r.int64();
  r.taggedFields();
  return { producerId, firstOffset };
}

function readPartition(r: Reader): FetchPartitionData {
  const partitionIndex = r.int32();
  const errorCode = r.int16();
  const highWatermark = r.int64();
  const lastStableOffset = r.int64();
  const logStartOffset = r.int64();
  const abortedTransactions = r.compactNullableArray(readAborted, 17);
  const preferredReadReplica = r.int32();
  const records = r.compactNullableBytes() ?? EMPTY_BUFFER;
  let currentLeader: LeaderIdAndEpoch = { leaderId: -1, leaderEpoch: -1 };
  r.taggedFields((tag, t) => {
    if (tag === 1) currentLeader = readLeaderIdAndEpoch(t);
  });
  return {
    partitionIndex,
    errorCode,
    highWatermark,
    lastStableOffset,
    logStartOffset,
    currentLeader,
    abortedTransactions,
    preferredReadReplica,
    records,
  };
}

function readTopic(r: Reader): FetchTopicResponse {
  const topicId = r.uuid();
  const partitions = r.compactArray(readPartition, 36);
  r.taggedFields();
  return { topicId, partitions };
}

export const Fetch: ApiDefinition<FetchRequest, FetchResponse> = {
  apiKey: ApiKey.Fetch,
  name: 'Fetch',
  minVersion: 13,
  maxVersion: 17,
  firstFlexibleVersion: 12,

  encodeRequest(w: Writer, req: FetchRequest, version: number): void {
    if (version <= 14) w.int32(-1); // ReplicaId: a consumer
    w.int32(req.maxWaitMs);
    w.int32(req.minBytes);
    w.int32(req.maxBytes);
    w.int8(req.isolationLevel);
    w.int32(0); // SessionId: no session
    w.int32(-1); // SessionEpoch: a full fetch
    w.compactArray(req.topics, writeTopic);
    w.compactArray([], () => undefined); // ForgottenTopicsData: none without a session
    w.compactString(req.rackId);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): FetchResponse {
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const sessionId = r.int32();
    const responses = r.compactArray(readTopic, 18);
    let nodeEndpoints: NodeEndpoint[] = [];
    r.taggedFields((tag, t) => {
      if (tag === 0) nodeEndpoints = t.compactArray(readNodeEndpoint, 11);
    });
    return { throttleTimeMs, errorCode, sessionId, responses, nodeEndpoints };
  },
};
