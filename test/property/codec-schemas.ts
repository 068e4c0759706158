// Message schemas transcribed from the message JSON of kafka-clients 4.4.0 (field names, types,
// versions, tags and defaults only). The generic codec in codec-generic.ts interprets them to check the
// hand-written encoders/decoders in src/kafka/protocol/messages field by field. Regenerate, never hand-edit.
import type { MessageSchema } from './codec-generic.js';

export const ApiVersionsRequest: MessageSchema = {
  name: 'ApiVersionsRequest',
  validVersions: '0-5',
  flexibleVersions: '3+',
  fields: [
    { name: 'ClientSoftwareName', type: 'string', versions: '3+' },
    { name: 'ClientSoftwareVersion', type: 'string', versions: '3+' },
    { name: 'ClusterId', type: 'string', versions: '5+', nullableVersions: '5+', default: 'null' },
    { name: 'NodeId', type: 'int32', versions: '5+', default: -1 },
  ],
};

export const ApiVersionsResponse: MessageSchema = {
  name: 'ApiVersionsResponse',
  validVersions: '0-5',
  flexibleVersions: '3+',
  fields: [
    { name: 'ErrorCode', type: 'int16', versions: '0+' },
    {
      name: 'ApiKeys',
      type: '[]ApiVersion',
      versions: '0+',
      fields: [
        { name: 'ApiKey', type: 'int16', versions: '0+' },
        { name: 'MinVersion', type: 'int16', versions: '0+' },
        { name: 'MaxVersion', type: 'int16', versions: '0+' },
      ],
    },
    { name: 'ThrottleTimeMs', type: 'int32', versions: '1+' },
    {
      name: 'SupportedFeatures',
      type: '[]SupportedFeatureKey',
      versions: '3+',
      tag: 0,
      taggedVersions: '3+',
      fields: [
        { name: 'Name', type: 'string', versions: '3+' },
        { name: 'MinVersion', type: 'int16', versions: '3+' },
        { name: 'MaxVersion', type: 'int16', versions: '3+' },
      ],
    },
    {
      name: 'FinalizedFeaturesEpoch',
      type: 'int64',
      versions: '3+',
      tag: 1,
      taggedVersions: '3+',
      default: '-1',
    },
    {
      name: 'FinalizedFeatures',
      type: '[]FinalizedFeatureKey',
      versions: '3+',
      tag: 2,
      taggedVersions: '3+',
      fields: [
        { name: 'Name', type: 'string', versions: '3+' },
        { name: 'MaxVersionLevel', type: 'int16', versions: '3+' },
        { name: 'MinVersionLevel', type: 'int16', versions: '3+' },
      ],
    },
    {
      name: 'ZkMigrationReady',
      type: 'bool',
      versions: '3+',
      tag: 3,
      taggedVersions: '3+',
      default: 'false',
    },
  ],
};

export const MetadataRequest: MessageSchema = {
  name: 'MetadataRequest',
  validVersions: '0-13',
  flexibleVersions: '9+',
  fields: [
    {
      name: 'Topics',
      type: '[]MetadataRequestTopic',
      versions: '0+',
      nullableVersions: '1+',
      fields: [
        { name: 'TopicId', type: 'uuid', versions: '10+' },
        { name: 'Name', type: 'string', versions: '0+', nullableVersions: '10+' },
      ],
    },
    { name: 'AllowAutoTopicCreation', type: 'bool', versions: '4+', default: 'true' },
    { name: 'IncludeClusterAuthorizedOperations', type: 'bool', versions: '8-10' },
    { name: 'IncludeTopicAuthorizedOperations', type: 'bool', versions: '8+' },
  ],
};

export const MetadataResponse: MessageSchema = {
  name: 'MetadataResponse',
  validVersions: '0-13',
  flexibleVersions: '9+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '3+' },
    {
      name: 'Brokers',
      type: '[]MetadataResponseBroker',
      versions: '0+',
      fields: [
        { name: 'NodeId', type: 'int32', versions: '0+' },
        { name: 'Host', type: 'string', versions: '0+' },
        { name: 'Port', type: 'int32', versions: '0+' },
        { name: 'Rack', type: 'string', versions: '1+', nullableVersions: '1+', default: 'null' },
      ],
    },
    { name: 'ClusterId', type: 'string', versions: '2+', nullableVersions: '2+', default: 'null' },
    { name: 'ControllerId', type: 'int32', versions: '1+', default: '-1' },
    {
      name: 'Topics',
      type: '[]MetadataResponseTopic',
      versions: '0+',
      fields: [
        { name: 'ErrorCode', type: 'int16', versions: '0+' },
        { name: 'Name', type: 'string', versions: '0+', nullableVersions: '12+' },
        { name: 'TopicId', type: 'uuid', versions: '10+' },
        { name: 'IsInternal', type: 'bool', versions: '1+', default: 'false' },
        {
          name: 'Partitions',
          type: '[]MetadataResponsePartition',
          versions: '0+',
          fields: [
            { name: 'ErrorCode', type: 'int16', versions: '0+' },
            { name: 'PartitionIndex', type: 'int32', versions: '0+' },
            { name: 'LeaderId', type: 'int32', versions: '0+' },
            { name: 'LeaderEpoch', type: 'int32', versions: '7+', default: '-1' },
            { name: 'ReplicaNodes', type: '[]int32', versions: '0+' },
            { name: 'IsrNodes', type: '[]int32', versions: '0+' },
            { name: 'OfflineReplicas', type: '[]int32', versions: '5+' },
          ],
        },
        { name: 'TopicAuthorizedOperations', type: 'int32', versions: '8+', default: '-2147483648' },
      ],
    },
    { name: 'ClusterAuthorizedOperations', type: 'int32', versions: '8-10', default: '-2147483648' },
    { name: 'ErrorCode', type: 'int16', versions: '13+' },
  ],
};

export const FindCoordinatorRequest: MessageSchema = {
  name: 'FindCoordinatorRequest',
  validVersions: '0-6',
  flexibleVersions: '3+',
  fields: [
    { name: 'Key', type: 'string', versions: '0-3' },
    { name: 'KeyType', type: 'int8', versions: '1+', default: '0' },
    { name: 'CoordinatorKeys', type: '[]string', versions: '4+' },
  ],
};

export const FindCoordinatorResponse: MessageSchema = {
  name: 'FindCoordinatorResponse',
  validVersions: '0-6',
  flexibleVersions: '3+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '1+' },
    { name: 'ErrorCode', type: 'int16', versions: '0-3' },
    { name: 'ErrorMessage', type: 'string', versions: '1-3', nullableVersions: '1-3' },
    { name: 'NodeId', type: 'int32', versions: '0-3' },
    { name: 'Host', type: 'string', versions: '0-3' },
    { name: 'Port', type: 'int32', versions: '0-3' },
    {
      name: 'Coordinators',
      type: '[]Coordinator',
      versions: '4+',
      fields: [
        { name: 'Key', type: 'string', versions: '4+' },
        { name: 'NodeId', type: 'int32', versions: '4+' },
        { name: 'Host', type: 'string', versions: '4+' },
        { name: 'Port', type: 'int32', versions: '4+' },
        { name: 'ErrorCode', type: 'int16', versions: '4+' },
        { name: 'ErrorMessage', type: 'string', versions: '4+', nullableVersions: '4+' },
      ],
    },
  ],
};

export const ShareGroupHeartbeatRequest: MessageSchema = {
  name: 'ShareGroupHeartbeatRequest',
  validVersions: '1',
  flexibleVersions: '0+',
  fields: [
    { name: 'GroupId', type: 'string', versions: '0+' },
    { name: 'MemberId', type: 'string', versions: '0+' },
    { name: 'MemberEpoch', type: 'int32', versions: '0+' },
    { name: 'RackId', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
    {
      name: 'SubscribedTopicNames',
      type: '[]string',
      versions: '0+',
      nullableVersions: '0+',
      default: 'null',
    },
  ],
};

export const ShareGroupHeartbeatResponse: MessageSchema = {
  name: 'ShareGroupHeartbeatResponse',
  validVersions: '1',
  flexibleVersions: '0+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '0+' },
    { name: 'ErrorCode', type: 'int16', versions: '0+' },
    { name: 'ErrorMessage', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
    { name: 'MemberId', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
    { name: 'MemberEpoch', type: 'int32', versions: '0+' },
    { name: 'HeartbeatIntervalMs', type: 'int32', versions: '0+' },
    {
      name: 'Assignment',
      type: 'Assignment',
      versions: '0+',
      nullableVersions: '0+',
      default: 'null',
      fields: [{ name: 'TopicPartitions', type: '[]TopicPartitions', versions: '0+' }],
    },
  ],
  commonStructs: [
    {
      name: 'TopicPartitions',
      fields: [
        { name: 'TopicId', type: 'uuid', versions: '0+' },
        { name: 'Partitions', type: '[]int32', versions: '0+' },
      ],
    },
  ],
};

export const ShareGroupDescribeRequest: MessageSchema = {
  name: 'ShareGroupDescribeRequest',
  validVersions: '1',
  flexibleVersions: '0+',
  fields: [
    { name: 'GroupIds', type: '[]string', versions: '0+' },
    { name: 'IncludeAuthorizedOperations', type: 'bool', versions: '0+' },
  ],
};

export const ShareGroupDescribeResponse: MessageSchema = {
  name: 'ShareGroupDescribeResponse',
  validVersions: '1',
  flexibleVersions: '0+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'Groups',
      type: '[]DescribedGroup',
      versions: '0+',
      fields: [
        { name: 'ErrorCode', type: 'int16', versions: '0+' },
        { name: 'ErrorMessage', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
        { name: 'GroupId', type: 'string', versions: '0+' },
        { name: 'GroupState', type: 'string', versions: '0+' },
        { name: 'GroupEpoch', type: 'int32', versions: '0+' },
        { name: 'AssignmentEpoch', type: 'int32', versions: '0+' },
        { name: 'AssignorName', type: 'string', versions: '0+' },
        {
          name: 'Members',
          type: '[]Member',
          versions: '0+',
          fields: [
            { name: 'MemberId', type: 'string', versions: '0+' },
            { name: 'RackId', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
            { name: 'MemberEpoch', type: 'int32', versions: '0+' },
            { name: 'ClientId', type: 'string', versions: '0+' },
            { name: 'ClientHost', type: 'string', versions: '0+' },
            { name: 'SubscribedTopicNames', type: '[]string', versions: '0+' },
            { name: 'Assignment', type: 'Assignment', versions: '0+' },
          ],
        },
        { name: 'AuthorizedOperations', type: 'int32', versions: '0+', default: '-2147483648' },
      ],
    },
  ],
  commonStructs: [
    {
      name: 'TopicPartitions',
      fields: [
        { name: 'TopicId', type: 'uuid', versions: '0+' },
        { name: 'TopicName', type: 'string', versions: '0+' },
        { name: 'Partitions', type: '[]int32', versions: '0+' },
      ],
    },
    { name: 'Assignment', fields: [{ name: 'TopicPartitions', type: '[]TopicPartitions', versions: '0+' }] },
  ],
};

export const ShareFetchRequest: MessageSchema = {
  name: 'ShareFetchRequest',
  validVersions: '1-2',
  flexibleVersions: '0+',
  fields: [
    { name: 'GroupId', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
    { name: 'MemberId', type: 'string', versions: '0+', nullableVersions: '0+' },
    { name: 'ShareSessionEpoch', type: 'int32', versions: '0+' },
    { name: 'MaxWaitMs', type: 'int32', versions: '0+' },
    { name: 'MinBytes', type: 'int32', versions: '0+' },
    { name: 'MaxBytes', type: 'int32', versions: '0+', default: '0x7fffffff' },
    { name: 'MaxRecords', type: 'int32', versions: '1+' },
    { name: 'BatchSize', type: 'int32', versions: '1+' },
    { name: 'ShareAcquireMode', type: 'int8', versions: '2+', default: '0' },
    { name: 'IsRenewAck', type: 'bool', versions: '2+', default: 'false' },
    {
      name: 'Topics',
      type: '[]FetchTopic',
      versions: '0+',
      fields: [
        { name: 'TopicId', type: 'uuid', versions: '0+' },
        {
          name: 'Partitions',
          type: '[]FetchPartition',
          versions: '0+',
          fields: [
            { name: 'PartitionIndex', type: 'int32', versions: '0+' },
            { name: 'PartitionMaxBytes', type: 'int32', versions: '0' },
            {
              name: 'AcknowledgementBatches',
              type: '[]AcknowledgementBatch',
              versions: '0+',
              fields: [
                { name: 'FirstOffset', type: 'int64', versions: '0+' },
                { name: 'LastOffset', type: 'int64', versions: '0+' },
                { name: 'AcknowledgeTypes', type: '[]int8', versions: '0+' },
              ],
            },
          ],
        },
      ],
    },
    {
      name: 'ForgottenTopicsData',
      type: '[]ForgottenTopic',
      versions: '0+',
      fields: [
        { name: 'TopicId', type: 'uuid', versions: '0+' },
        { name: 'Partitions', type: '[]int32', versions: '0+' },
      ],
    },
  ],
};

export const ShareFetchResponse: MessageSchema = {
  name: 'ShareFetchResponse',
  validVersions: '1-2',
  flexibleVersions: '0+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '0+' },
    { name: 'ErrorCode', type: 'int16', versions: '0+' },
    { name: 'ErrorMessage', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
    { name: 'AcquisitionLockTimeoutMs', type: 'int32', versions: '1+' },
    {
      name: 'Responses',
      type: '[]ShareFetchableTopicResponse',
      versions: '0+',
      fields: [
        { name: 'TopicId', type: 'uuid', versions: '0+' },
        {
          name: 'Partitions',
          type: '[]PartitionData',
          versions: '0+',
          fields: [
            { name: 'PartitionIndex', type: 'int32', versions: '0+' },
            { name: 'ErrorCode', type: 'int16', versions: '0+' },
            { name: 'ErrorMessage', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
            { name: 'AcknowledgeErrorCode', type: 'int16', versions: '0+' },
            {
              name: 'AcknowledgeErrorMessage',
              type: 'string',
              versions: '0+',
              nullableVersions: '0+',
              default: 'null',
            },
            {
              name: 'CurrentLeader',
              type: 'LeaderIdAndEpoch',
              versions: '0+',
              fields: [
                { name: 'LeaderId', type: 'int32', versions: '0+' },
                { name: 'LeaderEpoch', type: 'int32', versions: '0+' },
              ],
            },
            { name: 'Records', type: 'records', versions: '0+', nullableVersions: '0' },
            {
              name: 'AcquiredRecords',
              type: '[]AcquiredRecords',
              versions: '0+',
              fields: [
                { name: 'FirstOffset', type: 'int64', versions: '0+' },
                { name: 'LastOffset', type: 'int64', versions: '0+' },
                { name: 'DeliveryCount', type: 'int16', versions: '0+' },
              ],
            },
          ],
        },
      ],
    },
    {
      name: 'NodeEndpoints',
      type: '[]NodeEndpoint',
      versions: '0+',
      fields: [
        { name: 'NodeId', type: 'int32', versions: '0+' },
        { name: 'Host', type: 'string', versions: '0+' },
        { name: 'Port', type: 'int32', versions: '0+' },
        { name: 'Rack', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
      ],
    },
  ],
};

export const ShareAcknowledgeRequest: MessageSchema = {
  name: 'ShareAcknowledgeRequest',
  validVersions: '1-2',
  flexibleVersions: '0+',
  fields: [
    { name: 'GroupId', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
    { name: 'MemberId', type: 'string', versions: '0+', nullableVersions: '0+' },
    { name: 'ShareSessionEpoch', type: 'int32', versions: '0+' },
    { name: 'IsRenewAck', type: 'bool', versions: '2+', default: 'false' },
    {
      name: 'Topics',
      type: '[]AcknowledgeTopic',
      versions: '0+',
      fields: [
        { name: 'TopicId', type: 'uuid', versions: '0+' },
        {
          name: 'Partitions',
          type: '[]AcknowledgePartition',
          versions: '0+',
          fields: [
            { name: 'PartitionIndex', type: 'int32', versions: '0+' },
            {
              name: 'AcknowledgementBatches',
              type: '[]AcknowledgementBatch',
              versions: '0+',
              fields: [
                { name: 'FirstOffset', type: 'int64', versions: '0+' },
                { name: 'LastOffset', type: 'int64', versions: '0+' },
                { name: 'AcknowledgeTypes', type: '[]int8', versions: '0+' },
              ],
            },
          ],
        },
      ],
    },
  ],
};

export const ShareAcknowledgeResponse: MessageSchema = {
  name: 'ShareAcknowledgeResponse',
  validVersions: '1-2',
  flexibleVersions: '0+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '0+' },
    { name: 'ErrorCode', type: 'int16', versions: '0+' },
    { name: 'ErrorMessage', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
    { name: 'AcquisitionLockTimeoutMs', type: 'int32', versions: '2+' },
    {
      name: 'Responses',
      type: '[]ShareAcknowledgeTopicResponse',
      versions: '0+',
      fields: [
        { name: 'TopicId', type: 'uuid', versions: '0+' },
        {
          name: 'Partitions',
          type: '[]PartitionData',
          versions: '0+',
          fields: [
            { name: 'PartitionIndex', type: 'int32', versions: '0+' },
            { name: 'ErrorCode', type: 'int16', versions: '0+' },
            { name: 'ErrorMessage', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
            {
              name: 'CurrentLeader',
              type: 'LeaderIdAndEpoch',
              versions: '0+',
              fields: [
                { name: 'LeaderId', type: 'int32', versions: '0+' },
                { name: 'LeaderEpoch', type: 'int32', versions: '0+' },
              ],
            },
          ],
        },
      ],
    },
    {
      name: 'NodeEndpoints',
      type: '[]NodeEndpoint',
      versions: '0+',
      fields: [
        { name: 'NodeId', type: 'int32', versions: '0+' },
        { name: 'Host', type: 'string', versions: '0+' },
        { name: 'Port', type: 'int32', versions: '0+' },
        { name: 'Rack', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' },
      ],
    },
  ],
};

export const IncrementalAlterConfigsRequest: MessageSchema = {
  name: 'IncrementalAlterConfigsRequest',
  validVersions: '0-1',
  flexibleVersions: '1+',
  fields: [
    {
      name: 'Resources',
      type: '[]AlterConfigsResource',
      versions: '0+',
      fields: [
        { name: 'ResourceType', type: 'int8', versions: '0+' },
        { name: 'ResourceName', type: 'string', versions: '0+' },
        {
          name: 'Configs',
          type: '[]AlterableConfig',
          versions: '0+',
          fields: [
            { name: 'Name', type: 'string', versions: '0+' },
            { name: 'ConfigOperation', type: 'int8', versions: '0+' },
            { name: 'Value', type: 'string', versions: '0+', nullableVersions: '0+' },
          ],
        },
      ],
    },
    { name: 'ValidateOnly', type: 'bool', versions: '0+' },
  ],
};

export const IncrementalAlterConfigsResponse: MessageSchema = {
  name: 'IncrementalAlterConfigsResponse',
  validVersions: '0-1',
  flexibleVersions: '1+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'Responses',
      type: '[]AlterConfigsResourceResponse',
      versions: '0+',
      fields: [
        { name: 'ErrorCode', type: 'int16', versions: '0+' },
        { name: 'ErrorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
        { name: 'ResourceType', type: 'int8', versions: '0+' },
        { name: 'ResourceName', type: 'string', versions: '0+' },
      ],
    },
  ],
};

export const DescribeConfigsRequest: MessageSchema = {
  name: 'DescribeConfigsRequest',
  validVersions: '1-4',
  flexibleVersions: '4+',
  fields: [
    {
      name: 'Resources',
      type: '[]DescribeConfigsResource',
      versions: '0+',
      fields: [
        { name: 'ResourceType', type: 'int8', versions: '0+' },
        { name: 'ResourceName', type: 'string', versions: '0+' },
        { name: 'ConfigurationKeys', type: '[]string', versions: '0+', nullableVersions: '0+' },
      ],
    },
    { name: 'IncludeSynonyms', type: 'bool', versions: '1+', default: 'false' },
    { name: 'IncludeDocumentation', type: 'bool', versions: '3+', default: 'false' },
  ],
};

export const DescribeConfigsResponse: MessageSchema = {
  name: 'DescribeConfigsResponse',
  validVersions: '1-4',
  flexibleVersions: '4+',
  fields: [
    { name: 'ThrottleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'Results',
      type: '[]DescribeConfigsResult',
      versions: '0+',
      fields: [
        { name: 'ErrorCode', type: 'int16', versions: '0+' },
        { name: 'ErrorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
        { name: 'ResourceType', type: 'int8', versions: '0+' },
        { name: 'ResourceName', type: 'string', versions: '0+' },
        {
          name: 'Configs',
          type: '[]DescribeConfigsResourceResult',
          versions: '0+',
          fields: [
            { name: 'Name', type: 'string', versions: '0+' },
            { name: 'Value', type: 'string', versions: '0+', nullableVersions: '0+' },
            { name: 'ReadOnly', type: 'bool', versions: '0+' },
            { name: 'ConfigSource', type: 'int8', versions: '1+', default: '-1' },
            { name: 'IsSensitive', type: 'bool', versions: '0+' },
            {
              name: 'Synonyms',
              type: '[]DescribeConfigsSynonym',
              versions: '1+',
              fields: [
                { name: 'Name', type: 'string', versions: '1+' },
                { name: 'Value', type: 'string', versions: '1+', nullableVersions: '0+' },
                { name: 'Source', type: 'int8', versions: '1+' },
              ],
            },
            { name: 'ConfigType', type: 'int8', versions: '3+', default: '0' },
            { name: 'Documentation', type: 'string', versions: '3+', nullableVersions: '0+' },
          ],
        },
      ],
    },
  ],
};
