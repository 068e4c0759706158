/**
 * ConsumerGroupHeartbeat (key 68), v0–v1 (flexible): the consumer group protocol of KIP-848. Verified against
 * ConsumerGroupHeartbeatRequest.json / ConsumerGroupHeartbeatResponse.json of Kafka 4.4.0: v1 adds
 * SubscribedTopicRegex (after SubscribedTopicNames) and makes the member id the client's to generate.
 * Every "null" field means "unchanged since the last heartbeat". Sent to the group coordinator.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Writer } from '../writer.js';
import {
  decodeGroupHeartbeatResponse,
  writeTopicPartitions,
  type GroupHeartbeatResponse,
  type GroupTopicPartitions,
} from './group-heartbeat-response.js';
import { encodeError } from '../../errors/kafka-errors.js';

export type ConsumerTopicPartitions = GroupTopicPartitions;

export interface ConsumerGroupHeartbeatRequest {
  groupId: string;
  /** Made by the client (v1+), kept for the life of the member. */
  memberId: string;
  /** 0 = join, -1 = leave, -2 = a static member leaves and will rejoin; otherwise the current epoch. */
  memberEpoch: number;
  /** `group.instance.id` (static membership); null = none or unchanged. */
  instanceId: string | null;
  rackId: string | null;
  /** -1 = unchanged; otherwise how long the coordinator waits for this member to revoke partitions. */
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[] | null;
  /** v1+; must be null below. */
  subscribedTopicRegex?: string | null;
  /** `group.remote.assignor` (`uniform`, `range`); null = broker default or unchanged. */
  serverAssignor: string | null;
  /** The partitions the member owns now; null = unchanged. */
  topicPartitions: ConsumerTopicPartitions[] | null;
}

export type ConsumerGroupHeartbeatResponse = GroupHeartbeatResponse;

export const ConsumerGroupHeartbeat: ApiDefinition<
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse
> = {
  apiKey: ApiKey.ConsumerGroupHeartbeat,
  name: 'ConsumerGroupHeartbeat',
  minVersion: 0,
  maxVersion: 1,
  firstFlexibleVersion: 0,

  encodeRequest(w: Writer, req: ConsumerGroupHeartbeatRequest, version: number): void {
    w.compactString(req.groupId);
    w.compactString(req.memberId);
    w.int32(req.memberEpoch);
    w.compactNullableString(req.instanceId);
    w.compactNullableString(req.rackId);
    w.int32(req.rebalanceTimeoutMs);
    w.compactNullableArray(req.subscribedTopicNames, (x, s) => x.compactString(s));
    if (version >= 1) w.compactNullableString(req.subscribedTopicRegex ?? null);
    else if (req.subscribedTopicRegex != null)
      throw encodeError('ConsumerGroupHeartbeat v0 has no SubscribedTopicRegex: need v1 (Kafka 4.0+)');
    w.compactNullableString(req.serverAssignor);
    w.compactNullableArray(req.topicPartitions, writeTopicPartitions);
    w.emptyTaggedFields();
  },

  decodeResponse: decodeGroupHeartbeatResponse,
};
