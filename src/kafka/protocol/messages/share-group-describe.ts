/**
 * ShareGroupDescribe (key 77), v1 (flexible). Verified against ShareGroupDescribeRequest.json /
 * ShareGroupDescribeResponse.json of Kafka 4.4.0. Sent to the group coordinator.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface ShareGroupDescribeRequest {
  groupIds: string[];
  includeAuthorizedOperations: boolean;
}

export interface DescribedTopicPartitions {
  topicId: string;
  topicName: string;
  partitions: number[];
}

export interface ShareGroupMember {
  memberId: string;
  rackId: string | null;
  memberEpoch: number;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  assignment: { topicPartitions: DescribedTopicPartitions[] };
}

export interface DescribedShareGroup {
  errorCode: number;
  errorMessage: string | null;
  groupId: string;
  /** e.g. `'Empty'`, `'Stable'`, `'Dead'`. */
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: ShareGroupMember[];
  /** Bit set of ACL operations; INT32_MIN when not requested. */
  authorizedOperations: number;
}

export interface ShareGroupDescribeResponse {
  throttleTimeMs: number;
  groups: DescribedShareGroup[];
}

function readTopicPartitions(r: Reader): DescribedTopicPartitions {
  const topicId = r.uuid();
  const topicName = r.compactString();
  const partitions = r.compactInt32Array();
  r.taggedFields();
  return { topicId, topicName, partitions };
}

function readMember(r: Reader): ShareGroupMember {
  const memberId = r.compactString();
  const rackId = r.compactNullableString();
  const memberEpoch = r.int32();
  const clientId = r.compactString();
  const clientHost = r.compactString();
  const subscribedTopicNames = r.compactStringArray();
  const topicPartitions = r.compactArray(readTopicPartitions, 19);
  r.taggedFields();
  r.taggedFields();
  return {
    memberId,
    rackId,
    memberEpoch,
    clientId,
    clientHost,
    subscribedTopicNames,
    assignment: { topicPartitions },
  };
}

function readGroup(r: Reader): DescribedShareGroup {
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const groupId = r.compactString();
  const groupState = r.compactString();
  const groupEpoch = r.int32();
  const assignmentEpoch = r.int32();
  const assignorName = r.compactString();
  const members = r.compactArray(readMember, 12);
  const authorizedOperations = r.int32();
  r.taggedFields();
  return {
    errorCode,
    errorMessage,
    groupId,
    groupState,
    groupEpoch,
    assignmentEpoch,
    assignorName,
    members,
    authorizedOperations,
  };
}

export const ShareGroupDescribe: ApiDefinition<ShareGroupDescribeRequest, ShareGroupDescribeResponse> = {
  apiKey: ApiKey.ShareGroupDescribe,
  name: 'ShareGroupDescribe',
  minVersion: 1,
  maxVersion: 1,
  firstFlexibleVersion: 0,

  encodeRequest(w: Writer, req: ShareGroupDescribeRequest): void {
    w.compactStringArray(req.groupIds);
    w.bool(req.includeAuthorizedOperations);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): ShareGroupDescribeResponse {
    const throttleTimeMs = r.int32();
    const groups = r.compactArray(readGroup, 20);
    r.taggedFields();
    return { throttleTimeMs, groups };
  },
};
