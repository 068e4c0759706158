/**
 * IncrementalAlterConfigs (key 44), v1 (flexible). Verified against IncrementalAlterConfigsRequest.json /
 * IncrementalAlterConfigsResponse.json of Kafka 4.4.0. Used for share-group configs
 * (`share.auto.offset.reset`, `share.record.lock.duration.ms`, …): resource type GROUP (32, verified in
 * kafka-clients 4.4.0 `ConfigResource.Type`), resource name = the group id. Send to any broker.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

/** Config resource types (`ConfigResource.Type`). */
export const ConfigResourceType = {
  UNKNOWN: 0,
  TOPIC: 2,
  BROKER: 4,
  BROKER_LOGGER: 8,
  CLIENT_METRICS: 16,
  GROUP: 32,
} as const;

/** Incremental config operations. */
export const ConfigOperation = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

export interface AlterableConfig {
  name: string;
  configOperation: number;
  value: string | null;
}

export interface AlterConfigsResource {
  resourceType: number;
  resourceName: string;
  configs: AlterableConfig[];
}

export interface IncrementalAlterConfigsRequest {
  resources: AlterConfigsResource[];
  validateOnly: boolean;
}

export interface AlterConfigsResourceResponse {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
}

export interface IncrementalAlterConfigsResponse {
  throttleTimeMs: number;
  responses: AlterConfigsResourceResponse[];
}

function writeConfig(w: Writer, c: AlterableConfig): void {
  w.compactString(c.name);
  w.int8(c.configOperation);
  w.compactNullableString(c.value);
  w.emptyTaggedFields();
}

function writeResource(w: Writer, r: AlterConfigsResource): void {
  w.int8(r.resourceType);
  w.compactString(r.resourceName);
  w.compactArray(r.configs, writeConfig);
  w.emptyTaggedFields();
}

function readResponse(r: Reader): AlterConfigsResourceResponse {
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const resourceType = r.int8();
  const resourceName = r.compactString();
  r.taggedFields();
  return { errorCode, errorMessage, resourceType, resourceName };
}

export const IncrementalAlterConfigs: ApiDefinition<
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse
> = {
  apiKey: ApiKey.IncrementalAlterConfigs,
  name: 'IncrementalAlterConfigs',
  minVersion: 1,
  maxVersion: 1,
  firstFlexibleVersion: 1,

  encodeRequest(w: Writer, req: IncrementalAlterConfigsRequest): void {
    w.compactArray(req.resources, writeResource);
    w.bool(req.validateOnly);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): IncrementalAlterConfigsResponse {
    const throttleTimeMs = r.int32();
    const responses = r.compactArray(readResponse, 6);
    r.taggedFields();
    return { throttleTimeMs, responses };
  },
};
