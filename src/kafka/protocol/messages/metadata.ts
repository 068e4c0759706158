/**
 * Metadata (key 3), v12–v13 (flexible). Verified against MetadataRequest.json / MetadataResponse.json of
 * Kafka 4.4.0. v12 is the first version where a request may name topics by id (null name) and where the
 * response's topic name is nullable; v13 adds a top-level ErrorCode (e.g. REBOOTSTRAP_REQUIRED).
 * Topic ids are in the response from v10 on, so every version here returns them.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';
import { ZERO_UUID } from '../uuid.js';

export interface MetadataRequestTopic {
  /** Topic id; {@link ZERO_UUID} when asking by name. */
  topicId: string;
  /** Topic name; null when asking by id. */
  name: string | null;
}

export interface MetadataRequest {
  /** null = all topics; [] = no topics (brokers and cluster id only). */
  topics: MetadataRequestTopic[] | null;
  allowAutoTopicCreation: boolean;
  includeTopicAuthorizedOperations: boolean;
}

export interface MetadataResponseBroker {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface MetadataResponsePartition {
  errorCode: number;
  partitionIndex: number;
  leaderId: number;
  leaderEpoch: number;
  replicaNodes: number[];
  isrNodes: number[];
  offlineReplicas: number[];
}

export interface MetadataResponseTopic {
  errorCode: number;
  /** Null when the topic was asked for by id and is unknown. */
  name: string | null;
  topicId: string;
  isInternal: boolean;
  partitions: MetadataResponsePartition[];
  topicAuthorizedOperations: number;
}

export interface MetadataResponse {
  throttleTimeMs: number;
  brokers: MetadataResponseBroker[];
  clusterId: string | null;
  controllerId: number;
  topics: MetadataResponseTopic[];
  /** v13+; 0 before. */
  errorCode: number;
}

function writeTopic(w: Writer, t: MetadataRequestTopic): void {
  w.uuid(t.topicId);
  w.compactNullableString(t.name);
  w.emptyTaggedFields();
}

function readBroker(r: Reader): MetadataResponseBroker {
  const nodeId = r.int32();
  const host = r.compactString();
  const port = r.int32();
  const rack = r.compactNullableString();
  r.taggedFields();
  return { nodeId, host, port, rack };
}

function readPartition(r: Reader): MetadataResponsePartition {
  const errorCode = r.int16();
  const partitionIndex = r.int32();
  const leaderId = r.int32();
  const leaderEpoch = r.int32();
  const replicaNodes = r.compactInt32Array();
  const isrNodes = r.compactInt32Array();
  const offlineReplicas = r.compactInt32Array();
  r.taggedFields();
  return { errorCode, partitionIndex, leaderId, leaderEpoch, replicaNodes, isrNodes, offlineReplicas };
}

function readTopic(r: Reader): MetadataResponseTopic {
  const errorCode = r.int16();
  const name = r.compactNullableString();
  const topicId = r.uuid();
  const isInternal = r.bool();
  const partitions = r.compactArray(readPartition, 18);
  const topicAuthorizedOperations = r.int32();
  r.taggedFields();
  return { errorCode, name, topicId, isInternal, partitions, topicAuthorizedOperations };
}

export const Metadata: ApiDefinition<MetadataRequest, MetadataResponse> = {
  apiKey: ApiKey.Metadata,
  name: 'Metadata',
  minVersion: 12,
  maxVersion: 13,
  firstFlexibleVersion: 9,

  encodeRequest(w: Writer, req: MetadataRequest): void {
    w.compactNullableArray(req.topics, writeTopic);
    w.bool(req.allowAutoTopicCreation);
    w.bool(req.includeTopicAuthorizedOperations);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader, version: number): MetadataResponse {
    const throttleTimeMs = r.int32();
    const brokers = r.compactArray(readBroker, 11);
    const clusterId = r.compactNullableString();
    const controllerId = r.int32();
    const topics = r.compactArray(readTopic, 26);
    const errorCode = version >= 13 ? r.int16() : 0;
    r.taggedFields();
    return { throttleTimeMs, brokers, clusterId, controllerId, topics, errorCode };
  },
};

/** Convenience: a request for these topic names, no auto-creation. */
export function metadataForTopicNames(names: readonly string[]): MetadataRequest {
  return {
    topics: names.map((name) => ({ topicId: ZERO_UUID, name })),
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  };
}

/** Convenience: a request for these topic ids (v12+), no auto-creation. */
export function metadataForTopicIds(ids: readonly string[]): MetadataRequest {
  return {
    topics: ids.map((topicId) => ({ topicId, name: null })),
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  };
}
