/**
 * ShareGroupHeartbeat (key 76), v1 (flexible). Verified against ShareGroupHeartbeatRequest.json /
 * ShareGroupHeartbeatResponse.json of Kafka 4.4.0 (v0 was the 4.0 early-access version, removed in 4.1).
 * Sent to the group coordinator (FindCoordinator key type GROUP).
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Writer } from '../writer.js';
import {
  decodeGroupHeartbeatResponse,
  type GroupHeartbeatResponse,
  type GroupTopicPartitions,
} from './group-heartbeat-response.js';

export interface ShareGroupHeartbeatRequest {
  groupId: string;
  /** Made by the client (see `randomUuid()`), kept for the life of the member, sent on every heartbeat. */
  memberId: string;
  /** 0 = join, -1 = leave, otherwise the current member epoch. */
  memberEpoch: number;
  /** null = not given / unchanged. */
  rackId: string | null;
  /** null = unchanged since the last heartbeat. */
  subscribedTopicNames: string[] | null;
}

export type ShareTopicPartitions = GroupTopicPartitions;
export type ShareGroupHeartbeatResponse = GroupHeartbeatResponse;

export const ShareGroupHeartbeat: ApiDefinition<ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse> = {
  apiKey: ApiKey.ShareGroupHeartbeat,
  name: 'ShareGroupHeartbeat',
  minVersion: 1,
  maxVersion: 1,
  firstFlexibleVersion: 0,

  encodeRequest(w: Writer, req: ShareGroupHeartbeatRequest): void {
    w.compactString(req.groupId);
    w.compactString(req.memberId);
    w.int32(req.memberEpoch);
    w.compactNullableString(req.rackId);
    w.compactNullableArray(req.subscribedTopicNames, (x, s) => x.compactString(s));
    w.emptyTaggedFields();
  },

  decodeResponse: decodeGroupHeartbeatResponse,
};
