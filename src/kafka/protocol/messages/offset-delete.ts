/**
 * OffsetDelete (key 47), v0 (not flexible): deletes a consumer group's committed offsets for some
 * partitions. Verified against OffsetDeleteRequest.json / OffsetDeleteResponse.json inside
 * kafka-clients-4.4.0.jar. Sent to the group coordinator; a partition the group still consumes answers
 * GROUP_SUBSCRIBED_TO_TOPIC. kafkajs's admin has no equivalent (what Connect's offsets reset of one
 * partition needs).
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface OffsetDeleteRequest {
  groupId: string;
  topics: Array<{ name: string; partitions: number[] }>;
}

export interface OffsetDeleteResponse {
  errorCode: number;
  throttleTimeMs: number;
  topics: Array<{ name: string; partitions: Array<{ partitionIndex: number; errorCode: number }> }>;
}

export const OffsetDelete: ApiDefinition<OffsetDeleteRequest, OffsetDeleteResponse> = {
  apiKey: ApiKey.OffsetDelete,
  name: 'OffsetDelete',
  minVersion: 0,
  maxVersion: 0,
  firstFlexibleVersion: Number.POSITIVE_INFINITY,

  encodeRequest(w: Writer, req: OffsetDeleteRequest): void {
    w.string(req.groupId);
    w.array(req.topics, (tw, t) => {
      tw.string(t.name);
      tw.array(t.partitions, (pw, p) => pw.int32(p));
    });
  },

  decodeResponse(r: Reader): OffsetDeleteResponse {
    const errorCode = r.int16();
    const throttleTimeMs = r.int32();
    const topics = r.array((tr) => {
      const name = tr.string();
      const partitions = tr.array((pr) => ({ partitionIndex: pr.int32(), errorCode: pr.int16() }), 6);
      return { name, partitions };
    }, 6);
    return { errorCode, throttleTimeMs, topics };
  },
};
