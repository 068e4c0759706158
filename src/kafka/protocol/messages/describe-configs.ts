/**
 * DescribeConfigs (key 32), v4 (flexible). Verified against DescribeConfigsRequest.json /
 * DescribeConfigsResponse.json of Kafka 4.4.0. With resource type GROUP (32) it reads share-group configs.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface DescribeConfigsResource {
  resourceType: number;
  resourceName: string;
  /** null = all keys. */
  configurationKeys: string[] | null;
}

export interface DescribeConfigsRequest {
  resources: DescribeConfigsResource[];
  includeSynonyms: boolean;
  includeDocumentation: boolean;
}

export interface DescribeConfigsSynonym {
  name: string;
  value: string | null;
  source: number;
}

export interface DescribeConfigsResourceResult {
  name: string;
  value: string | null;
  readOnly: boolean;
  /** Where the value comes from (1 = topic config, 4 = static broker config, 5 = default, 8 = group config, …). */
  configSource: number;
  isSensitive: boolean;
  synonyms: DescribeConfigsSynonym[];
  configType: number;
  documentation: string | null;
}

export interface DescribeConfigsResult {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
  configs: DescribeConfigsResourceResult[];
}

export interface DescribeConfigsResponse {
  throttleTimeMs: number;
  results: DescribeConfigsResult[];
}

function writeResource(w: Writer, r: DescribeConfigsResource): void {
  w.int8(r.resourceType);
  w.compactString(r.resourceName);
  w.compactNullableArray(r.configurationKeys, (x, k) => x.compactString(k));
  w.emptyTaggedFields();
}

function readSynonym(r: Reader): DescribeConfigsSynonym {
  const name = r.compactString();
  const value = r.compactNullableString();
  const source = r.int8();
  r.taggedFields();
  return { name, value, source };
}

function readConfig(r: Reader): DescribeConfigsResourceResult {
  const name = r.compactString();
  const value = r.compactNullableString();
  const readOnly = r.bool();
  const configSource = r.int8();
  const isSensitive = r.bool();
  const synonyms = r.compactArray(readSynonym, 4);
  const configType = r.int8();
  const documentation = r.compactNullableString();
  r.taggedFields();
  return { name, value, readOnly, configSource, isSensitive, synonyms, configType, documentation };
}

function readResult(r: Reader): DescribeConfigsResult {
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const resourceType = r.int8();
  const resourceName = r.compactString();
  const configs = r.compactArray(readConfig, 9);
  r.taggedFields();
  return { errorCode, errorMessage, resourceType, resourceName, configs };
}

export const DescribeConfigs: ApiDefinition<DescribeConfigsRequest, DescribeConfigsResponse> = {
  apiKey: ApiKey.DescribeConfigs,
  name: 'DescribeConfigs',
  minVersion: 4,
  maxVersion: 4,
  firstFlexibleVersion: 4,

  encodeRequest(w: Writer, req: DescribeConfigsRequest): void {
    w.compactArray(req.resources, writeResource);
    w.bool(req.includeSynonyms);
    w.bool(req.includeDocumentation);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): DescribeConfigsResponse {
    const throttleTimeMs = r.int32();
    const results = r.compactArray(readResult, 7);
    r.taggedFields();
    return { throttleTimeMs, results };
  },
};
