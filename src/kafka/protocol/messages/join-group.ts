/**
 * JoinGroup (key 11), v6–v9 (flexible). Verified against JoinGroupRequest.json / JoinGroupResponse.json of
 * Kafka 4.4.0 (the 4.4 broker answers ApiVersions 0–9): v7 adds ProtocolType to the response and makes its
 * ProtocolName nullable, v8 adds the request's Reason (KIP-800), v9 adds the response's SkipAssignment
 * (KIP-814, static members only). Classic group protocol, sent to the group coordinator.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface JoinGroupProtocol {
  name: string;
  metadata: Uint8Array;
}

export interface JoinGroupRequest {
  groupId: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  /** '' on the first join; the coordinator answers MEMBER_ID_REQUIRED with the id to join with. */
  memberId: string;
  /** Static membership (KIP-345); null for a dynamic member. */
  groupInstanceId: string | null;
  protocolType: string;
  protocols: JoinGroupProtocol[];
  /** v8+; ignored below. */
  reason: string | null;
}

export interface JoinGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Buffer;
}

export interface JoinGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  generationId: number;
  /** v7+; null below. */
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  /** v9+; false below. */
  skipAssignment: boolean;
  memberId: string;
  /** Every member's metadata, for the leader only (empty for the others). */
  members: JoinGroupMember[];
}

function readMember(r: Reader): JoinGroupMember {
  const memberId = r.compactString();
  const groupInstanceId = r.compactNullableString();
  const metadata = r.compactBytes();
  r.taggedFields();
  return { memberId, groupInstanceId, metadata };
}

export const JoinGroup: ApiDefinition<JoinGroupRequest, JoinGroupResponse> = {
  apiKey: ApiKey.JoinGroup,
  name: 'JoinGroup',
  minVersion: 6,
  maxVersion: 9,
  firstFlexibleVersion: 6,

  encodeRequest(w: Writer, req: JoinGroupRequest, version: number): void {
    w.compactString(req.groupId);
    w.int32(req.sessionTimeoutMs);
    w.int32(req.rebalanceTimeoutMs);
    w.compactString(req.memberId);
    w.compactNullableString(req.groupInstanceId);
    w.compactString(req.protocolType);
    w.compactArray(req.protocols, (x, p) => {
      x.compactString(p.name);
      x.compactBytes(p.metadata);
      x.emptyTaggedFields();
    });
    if (version >= 8) w.compactNullableString(req.reason);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader, version: number): JoinGroupResponse {
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const generationId = r.int32();
    const protocolType = version >= 7 ? r.compactNullableString() : null;
    const protocolName = version >= 7 ? r.compactNullableString() : r.compactString();
    const leader = r.compactString();
    const skipAssignment = version >= 9 ? r.bool() : false;
    const memberId = r.compactString();
    const members = r.compactArray(readMember, 4);
    r.taggedFields();
    return {
      throttleTimeMs,
      errorCode,
      generationId,
      protocolType,
      protocolName,
      leader,
      skipAssignment,
      memberId,
      members,
    };
  },
};
