/**
 * Heartbeat (key 12), v4 (flexible, the only flexible version). Verified against HeartbeatRequest.json /
 * HeartbeatResponse.json of Kafka 4.4.0 (the 4.4 broker answers ApiVersions 0–4). Classic group protocol:
 * keeps a member of a generation alive; REBALANCE_IN_PROGRESS tells it to rejoin.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface HeartbeatRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export interface HeartbeatResponse {
  throttleTimeMs: number;
  errorCode: number;
}

export const Heartbeat: ApiDefinition<HeartbeatRequest, HeartbeatResponse> = {
  apiKey: ApiKey.Heartbeat,
  name: 'Heartbeat',
  minVersion: 4,
  maxVersion: 4,
  firstFlexibleVersion: 4,

  encodeRequest(w: Writer, req: HeartbeatRequest): void {
    w.compactString(req.groupId);
    w.int32(req.generationId);
    w.compactString(req.memberId);
    w.compactNullableString(req.groupInstanceId);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): HeartbeatResponse {
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    r.taggedFields();
    return { throttleTimeMs, errorCode };
  },
};
