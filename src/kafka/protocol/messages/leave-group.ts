/**
 * LeaveGroup (key 13), v4–v5 (flexible). Verified against LeaveGroupRequest.json / LeaveGroupResponse.json of
 * Kafka 4.4.0 (the 4.4 broker answers ApiVersions 0–5): members are batched (v3+), v5 adds each member's
 * Reason (KIP-800). The response has a top-level error and one per member.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface LeaveGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  /** v5+; ignored below. */
  reason: string | null;
}

export interface LeaveGroupRequest {
  groupId: string;
  members: LeaveGroupMember[];
}

export interface LeaveGroupMemberResponse {
  memberId: string;
  groupInstanceId: string | null;
  errorCode: number;
}

export interface LeaveGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  members: LeaveGroupMemberResponse[];
}

function readMember(r: Reader): LeaveGroupMemberResponse {
  const memberId = r.compactString();
  const groupInstanceId = r.compactNullableString();
  const errorCode = r.int16();
  r.taggedFields();
  return { memberId, groupInstanceId, errorCode };
}

export const LeaveGroup: ApiDefinition<LeaveGroupRequest, LeaveGroupResponse> = {
  apiKey: ApiKey.LeaveGroup,
  name: 'LeaveGroup',
  minVersion: 4,
  maxVersion: 5,
  firstFlexibleVersion: 4,

  encodeRequest(w: Writer, req: LeaveGroupRequest, version: number): void {
    w.compactString(req.groupId);
    w.compactArray(req.members, (x, m) => {
      x.compactString(m.memberId);
      x.compactNullableString(m.groupInstanceId);
      if (version >= 5) x.compactNullableString(m.reason);
      x.emptyTaggedFields();
    });
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): LeaveGroupResponse {
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const members = r.compactArray(readMember, 5);
    r.taggedFields();
    return { throttleTimeMs, errorCode, members };
  },
};
