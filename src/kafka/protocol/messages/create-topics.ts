/**
 * CreateTopics (key 19), v5–v7 (flexible). Verified against CreateTopicsRequest.json /
 * CreateTopicsResponse.json of Kafka 4.4.0 (the 4.4 broker answers ApiVersions 2–7): v6 changes nothing on
 * the wire (quota errors), v7 adds each result's TopicId. TopicConfigErrorCode is tagged field 0 of a result.
 * Used by distributed mode to create its internal (config / status) topics.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';
import { ZERO_UUID } from '../uuid.js';

export interface CreatableTopic {
  name: string;
  /** -1: the broker default (`num.partitions`), or the count of `assignments`. */
  numPartitions: number;
  /** -1: the broker default (`default.replication.factor`). */
  replicationFactor: number;
  /** Manual placement; [] for automatic. */
  assignments: Array<{ partitionIndex: number; brokerIds: number[] }>;
  configs: Array<{ name: string; value: string | null }>;
}

export interface CreateTopicsRequest {
  topics: CreatableTopic[];
  timeoutMs: number;
  validateOnly: boolean;
}

export interface CreatableTopicConfigs {
  name: string;
  value: string | null;
  readOnly: boolean;
  configSource: number;
  isSensitive: boolean;
}

export interface CreatableTopicResult {
  name: string;
  /** v7+; ZERO_UUID below or on error. */
  topicId: string;
  errorCode: number;
  errorMessage: string | null;
  /** Tagged field 0: why `configs` is missing, when it is; 0 when absent. */
  topicConfigErrorCode: number;
  numPartitions: number;
  replicationFactor: number;
  configs: CreatableTopicConfigs[] | null;
}

export interface CreateTopicsResponse {
  throttleTimeMs: number;
  topics: CreatableTopicResult[];
}

function readConfig(r: Reader): CreatableTopicConfigs {
  const name = r.compactString();
  const value = r.compactNullableString();
  const readOnly = r.bool();
  const configSource = r.int8();
  const isSensitive = r.bool();
  r.taggedFields();
  return { name, value, readOnly, configSource, isSensitive };
}

function readResult(r: Reader, version: number): CreatableTopicResult {
  const name = r.compactString();
  const topicId = version >= 7 ? r.uuid() : ZERO_UUID;
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const numPartitions = r.int32();
  const replicationFactor = r.int16();
  const configs = r.compactNullableArray(readConfig, 6);
  let topicConfigErrorCode = 0;
  r.taggedFields((tag, f) => {
    if (tag === 0) topicConfigErrorCode = f.int16();
  });
  return {
    name,
    topicId,
    errorCode,
    errorMessage,
    topicConfigErrorCode,
    numPartitions,
    replicationFactor,
    configs,
  };
}

export const CreateTopics: ApiDefinition<CreateTopicsRequest, CreateTopicsResponse> = {
  apiKey: ApiKey.CreateTopics,
  name: 'CreateTopics',
  minVersion: 5,
  maxVersion: 7,
  firstFlexibleVersion: 5,

  encodeRequest(w: Writer, req: CreateTopicsRequest): void {
    w.compactArray(req.topics, (x, t) => {
      x.compactString(t.name);
      x.int32(t.numPartitions);
      x.int16(t.replicationFactor);
      x.compactArray(t.assignments, (y, a) => {
        y.int32(a.partitionIndex);
        y.compactInt32Array(a.brokerIds);
        y.emptyTaggedFields();
      });
      x.compactArray(t.configs, (y, c) => {
        y.compactString(c.name);
        y.compactNullableString(c.value);
        y.emptyTaggedFields();
      });
      x.emptyTaggedFields();
    });
    w.int32(req.timeoutMs);
    w.bool(req.validateOnly);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader, version: number): CreateTopicsResponse {
    const throttleTimeMs = r.int32();
    const topics = r.compactArray((x) => readResult(x, version), 9);
    r.taggedFields();
    return { throttleTimeMs, topics };
  },
};
