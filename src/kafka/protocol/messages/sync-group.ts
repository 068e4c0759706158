/**
 * SyncGroup (key 14), v4–v5 (flexible). Verified against SyncGroupRequest.json / SyncGroupResponse.json of
 * Kafka 4.4.0 (the 4.4 broker answers ApiVersions 0–5): v5 adds ProtocolType and ProtocolName to both the
 * request and the response (KIP-559). The leader sends every member's assignment; the others send none.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface SyncGroupAssignment {
  memberId: string;
  assignment: Uint8Array;
}

export interface SyncGroupRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** v5+; ignored below. */
  protocolType: string | null;
  /** v5+; ignored below. */
  protocolName: string | null;
  assignments: SyncGroupAssignment[];
}

export interface SyncGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  /** v5+; null below. */
  protocolType: string | null;
  protocolName: string | null;
  /** This member's assignment (empty when the leader gave it none). */
  assignment: Buffer;
}

export const SyncGroup: ApiDefinition<SyncGroupRequest, SyncGroupResponse> = {
  apiKey: ApiKey.SyncGroup,
  name: 'SyncGroup',
  minVersion: 4,
  maxVersion: 5,
  firstFlexibleVersion: 4,

  encodeRequest(w: Writer, req: SyncGroupRequest, version: number): void {
    w.compactString(req.groupId);
    w.int32(req.generationId);
    w.compactString(req.memberId);
    w.compactNullableString(req.groupInstanceId);
    if (version >= 5) {
      w.compactNullableString(req.protocolType);
      w.compactNullableString(req.protocolName);
    }
    w.compactArray(req.assignments, (x, a) => {
      x.compactString(a.memberId);
      x.compactBytes(a.assignment);
      x.emptyTaggedFields();
    });
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader, version: number): SyncGroupResponse {
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const protocolType = version >= 5 ? r.compactNullableString() : null;
    const protocolName = version >= 5 ? r.compactNullableString() : null;
    const assignment = r.compactBytes();
    r.taggedFields();
    return { throttleTimeMs, errorCode, protocolType, protocolName, assignment };
  },
};
