// Kafka 4.4.0 message JSON (clients/src/main/resources/common/message/), transcribed field for field:
// the classic group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) and CreateTopics, for the
// generic codec of codec-generic.ts. Only what affects the wire: names, types, versions, nullability, tags,
// defaults.
import type { MessageSchema } from './codec-generic.js';

export const JoinGroupRequest: MessageSchema = {
  name: 'JoinGroupRequest',
  validVersions: '0-9',
  flexibleVersions: '6+',
  fields: [
    { name: 'GroupId', type: 'string', versions: '0+' },
    { name: 'SessionTimeoutMs', type: 'int32', versions: '0+' },
    { name: 'RebalanceTimeoutMs', type: 'int32', versions: '1+', default: '-1' },
    { name: 'MemberId', type: 'string', versions: '0+' },
    { name: 'GroupInstanceId', type: 'string', versions: '5+', nullableVersions: '5+', default: 'null' },
    { name: 'ProtocolType', type: 'string', versions: '0+' },
    {
      name: 'Protocols',
      type: '[]JoinGroupRequestProtocol',
      versions: '0+',
      fields: [
        { name: 'Name', type: 'string', versions: '0+' },
        { name: 'Metadata', type: 'bytes', versions: '0+' },
      ],
    },
    { name: 'Reason', type: 'string', versions: '8+', nullableVersions: '8+', default: 'null' },
  ],
};

export const JoinGroupResponse: MessageSchema = {
  name: 'JoinGroupResponse',
  validVersions: '0-9',
  flexibleVersions: '6+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '2+' },
    { name: 'ErrorCode', type: 'int16', versions: '0+' },
    { name: 'GenerationId', type: 'int32', versions: '0+', default: '-1' },
    { name: 'ProtocolType', type: 'string', versions: '7+', nullableVersions: '7+', default: 'null' },
    { name: 'ProtocolName', type: 'string', versions: '0+', nullableVersions: '7+' },
    { name: 'Leader', type: 'string', versions: '0+' },
    { name: 'SkipAssignment', type: 'bool', versions: '9+', default: 'false' },
    { name: 'MemberId', type: 'string', versions: '0+' },
    {
      name: 'Members',
      type: '[]JoinGroupResponseMember',
      versions: '0+',
      fields: [
        { name: 'MemberId', type: 'string', versions: '0+' },
        { name: 'GroupInstanceId', type: 'string', versions: '5+', nullableVersions: '5+', default: 'null' },
        { name: 'Metadata', type: 'bytes', versions: '0+' },
      ],
    },
  ],
};

export const SyncGroupRequest: MessageSchema = {
  name: 'SyncGroupRequest',
  validVersions: '0-5',
  flexibleVersions: '4+',
  fields: [
    { name: 'GroupId', type: 'string', versions: '0+' },
    { name: 'GenerationId', type: 'int32', versions: '0+' },
    { name: 'MemberId', type: 'string', versions: '0+' },
    { name: 'GroupInstanceId', type: 'string', versions: '3+', nullableVersions: '3+', default: 'null' },
    { name: 'ProtocolType', type: 'string', versions: '5+', nullableVersions: '5+', default: 'null' },
    { name: 'ProtocolName', type: 'string', versions: '5+', nullableVersions: '5+', default: 'null' },
    {
      name: 'Assignments',
      type: '[]SyncGroupRequestAssignment',
      versions: '0+',
      fields: [
        { name: 'MemberId', type: 'string', versions: '0+' },
        { name: 'Assignment', type: 'bytes', versions: '0+' },
      ],
    },
  ],
};

export const SyncGroupResponse: MessageSchema = {
  name: 'SyncGroupResponse',
  validVersions: '0-5',
  flexibleVersions: '4+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '1+' },
    { name: 'ErrorCode', type: 'int16', versions: '0+' },
    { name: 'ProtocolType', type: 'string', versions: '5+', nullableVersions: '5+', default: 'null' },
    { name: 'ProtocolName', type: 'string', versions: '5+', nullableVersions: '5+', default: 'null' },
    { name: 'Assignment', type: 'bytes', versions: '0+' },
  ],
};

export const HeartbeatRequest: MessageSchema = {
  name: 'HeartbeatRequest',
  validVersions: '0-4',
  flexibleVersions: '4+',
  fields: [
    { name: 'GroupId', type: 'string', versions: '0+' },
    { name: 'GenerationId', type: 'int32', versions: '0+' },
    { name: 'MemberId', type: 'string', versions: '0+' },
    { name: 'GroupInstanceId', type: 'string', versions: '3+', nullableVersions: '3+', default: 'null' },
  ],
};

export const HeartbeatResponse: MessageSchema = {
  name: 'HeartbeatResponse',
  validVersions: '0-4',
  flexibleVersions: '4+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '1+' },
    { name: 'ErrorCode', type: 'int16', versions: '0+' },
  ],
};

export const LeaveGroupRequest: MessageSchema = {
  name: 'LeaveGroupRequest',
  validVersions: '0-5',
  flexibleVersions: '4+',
  fields: [
    { name: 'GroupId', type: 'string', versions: '0+' },
    { name: 'MemberId', type: 'string', versions: '0-2' },
    {
      name: 'Members',
      type: '[]MemberIdentity',
      versions: '3+',
      fields: [
        { name: 'MemberId', type: 'string', versions: '3+' },
        { name: 'GroupInstanceId', type: 'string', versions: '3+', nullableVersions: '3+', default: 'null' },
        { name: 'Reason', type: 'string', versions: '5+', nullableVersions: '5+', default: 'null' },
      ],
    },
  ],
};

export const LeaveGroupResponse: MessageSchema = {
  name: 'LeaveGroupResponse',
  validVersions: '0-5',
  flexibleVersions: '4+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '1+' },
    { name: 'ErrorCode', type: 'int16', versions: '0+' },
    {
      name: 'Members',
      type: '[]MemberResponse',
      versions: '3+',
      fields: [
        { name: 'MemberId', type: 'string', versions: '3+' },
        { name: 'GroupInstanceId', type: 'string', versions: '3+', nullableVersions: '3+' },
        { name: 'ErrorCode', type: 'int16', versions: '3+' },
      ],
    },
  ],
};

export const CreateTopicsRequest: MessageSchema = {
  name: 'CreateTopicsRequest',
  validVersions: '0-7',
  flexibleVersions: '5+',
  fields: [
    {
      name: 'Topics',
      type: '[]CreatableTopic',
      versions: '0+',
      fields: [
        { name: 'Name', type: 'string', versions: '0+' },
        { name: 'NumPartitions', type: 'int32', versions: '0+' },
        { name: 'ReplicationFactor', type: 'int16', versions: '0+' },
        {
          name: 'Assignments',
          type: '[]CreatableReplicaAssignment',
          versions: '0+',
          fields: [
            { name: 'PartitionIndex', type: 'int32', versions: '0+' },
            { name: 'BrokerIds', type: '[]int32', versions: '0+' },
          ],
        },
        {
          name: 'Configs',
          type: '[]CreatableTopicConfig',
          versions: '0+',
          fields: [
            { name: 'Name', type: 'string', versions: '0+' },
            { name: 'Value', type: 'string', versions: '0+', nullableVersions: '0+' },
          ],
        },
      ],
    },
    { name: 'timeoutMs', type: 'int32', versions: '0+', default: '60000' },
    { name: 'validateOnly', type: 'bool', versions: '1+', default: 'false' },
  ],
};

export const CreateTopicsResponse: MessageSchema = {
  name: 'CreateTopicsResponse',
  validVersions: '0-7',
  flexibleVersions: '5+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '2+' },
    {
      name: 'Topics',
      type: '[]CreatableTopicResult',
      versions: '0+',
      fields: [
        { name: 'Name', type: 'string', versions: '0+' },
        { name: 'TopicId', type: 'uuid', versions: '7+' },
        { name: 'ErrorCode', type: 'int16', versions: '0+' },
        { name: 'ErrorMessage', type: 'string', versions: '1+', nullableVersions: '0+' },
        { name: 'TopicConfigErrorCode', type: 'int16', versions: '5+', tag: 0, taggedVersions: '5+' },
        { name: 'NumPartitions', type: 'int32', versions: '5+', default: '-1' },
        { name: 'ReplicationFactor', type: 'int16', versions: '5+', default: '-1' },
        {
          name: 'Configs',
          type: '[]CreatableTopicConfigs',
          versions: '5+',
          nullableVersions: '5+',
          fields: [
            { name: 'Name', type: 'string', versions: '5+' },
            { name: 'Value', type: 'string', versions: '5+', nullableVersions: '5+' },
            { name: 'ReadOnly', type: 'bool', versions: '5+' },
            { name: 'ConfigSource', type: 'int8', versions: '5+', default: '-1' },
            { name: 'IsSensitive', type: 'bool', versions: '5+' },
          ],
        },
      ],
    },
  ],
};
