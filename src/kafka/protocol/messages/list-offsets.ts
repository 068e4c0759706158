/**
 * ListOffsets (key 2), v6–v10 (flexible). Verified against ListOffsetsRequest.json / ListOffsetsResponse.json
 * of Kafka 4.4.0: v7–v9 only add special timestamps (max timestamp, local and tiered log starts); v10 adds
 * TimeoutMs at the end of the request. Sent to the partition leader. Timestamps -2 = earliest, -1 = latest.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export const EARLIEST_TIMESTAMP = -2;
export const LATEST_TIMESTAMP = -1;

export interface ListOffsetsRequest {
  /** 0 read_uncommitted, 1 read_committed. */
  isolationLevel: number;
  topics: Array<{
    name: string;
    partitions: Array<{ partitionIndex: number; currentLeaderEpoch: number; timestamp: number }>;
  }>;
  /** v10+; ignored below. */
  timeoutMs: number;
}

export interface ListOffsetsPartitionResponse {
  partitionIndex: number;
  errorCode: number;
  timestamp: number;
  offset: number;
  leaderEpoch: number;
}

export interface ListOffsetsResponse {
  throttleTimeMs: number;
  topics: Array<{ name: string; partitions: ListOffsetsPartitionResponse[] }>;
}

function readPartition(r: Reader): ListOffsetsPartitionResponse {
  const partitionIndex = r.int32();
  const errorCode = r.int16();
  const timestamp = r.int64();
  const offset = r.int64();
  const leaderEpoch = r.int32();
  r.taggedFields();
  return { partitionIndex, errorCode, timestamp, offset, leaderEpoch };
}

function readTopic(r: Reader): ListOffsetsResponse['topics'][number] {
  const name = r.compactString();
  const partitions = r.compactArray(readPartition, 27);
  r.taggedFields();
  return { name, partitions };
}

export const ListOffsets: ApiDefinition<ListOffsetsRequest, ListOffsetsResponse> = {
  apiKey: ApiKey.ListOffsets,
  name: 'ListOffsets',
  minVersion: 6,
  maxVersion: 10,
  firstFlexibleVersion: 6,

  encodeRequest(w: Writer, req: ListOffsetsRequest, version: number): void {
    w.int32(-1); // ReplicaId: a consumer
    w.int8(req.isolationLevel);
    w.compactArray(req.topics, (x, t) => {
      x.compactString(t.name);
      x.compactArray(t.partitions, (y, p) => {
        y.int32(p.partitionIndex);
        y.int32(p.currentLeaderEpoch);
        y.int64(p.timestamp);
        y.emptyTaggedFields();
      });
      x.emptyTaggedFields();
    });
    if (version >= 10) w.int32(req.timeoutMs);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): ListOffsetsResponse {
    const throttleTimeMs = r.int32();
    const topics = r.compactArray(readTopic, 3);
    r.taggedFields();
    return { throttleTimeMs, topics };
  },
};
