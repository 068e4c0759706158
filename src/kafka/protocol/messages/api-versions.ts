/**
 * ApiVersions (key 18), v0–v5; flexible from v3. Verified against ApiVersionsRequest.json /
 * ApiVersionsResponse.json of Kafka 4.4.0.
 *
 * The response header is always v0 (no tagged fields), so that a client and a broker that know nothing of
 * each other can negotiate. A broker that does not support the requested version answers with a **v0**
 * body carrying UNSUPPORTED_VERSION (35) and its own ranges; {@link ApiVersions.decodeResponse} handles that.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface ApiVersionsRequest {
  /** v3+. */
  clientSoftwareName: string;
  /** v3+. */
  clientSoftwareVersion: string;
  /** v5+; null unless re-checking a known cluster (KIP-1242). */
  clusterId?: string | null;
  /** v5+; -1 unless re-checking a known node (KIP-1242). */
  nodeId?: number;
}

export interface ApiVersionRange {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

export interface SupportedFeatureKey {
  name: string;
  minVersion: number;
  maxVersion: number;
}

export interface FinalizedFeatureKey {
  name: string;
  maxVersionLevel: number;
  minVersionLevel: number;
}

export interface ApiVersionsResponse {
  errorCode: number;
  apiKeys: ApiVersionRange[];
  /** v1+. */
  throttleTimeMs: number;
  /** Tag 0 (v3+). */
  supportedFeatures: SupportedFeatureKey[];
  /** Tag 1 (v3+); -1 when absent. */
  finalizedFeaturesEpoch: number;
  /** Tag 2 (v3+); e.g. `{ name: 'share.version', maxVersionLevel: 1, … }`. */
  finalizedFeatures: FinalizedFeatureKey[];
  /** Tag 3 (v3+). */
  zkMigrationReady: boolean;
}

const UNSUPPORTED_VERSION = 35;

function readApiVersionRange(r: Reader, flexible: boolean): ApiVersionRange {
  const apiKey = r.int16();
  const minVersion = r.int16();
  const maxVersion = r.int16();
  if (flexible) r.taggedFields();
  return { apiKey, minVersion, maxVersion };
}

function readSupportedFeature(r: Reader): SupportedFeatureKey {
  const name = r.compactString();
  const minVersion = r.int16();
  const maxVersion = r.int16();
  r.taggedFields();
  return { name, minVersion, maxVersion };
}

function readFinalizedFeature(r: Reader): FinalizedFeatureKey {
  const name = r.compactString();
  const maxVersionLevel = r.int16();
  const minVersionLevel = r.int16();
  r.taggedFields();
  return { name, maxVersionLevel, minVersionLevel };
}

function decodeBody(r: Reader, version: number, errorCode: number): ApiVersionsResponse {
  const flexible = version >= 3;
  const res: ApiVersionsResponse = {
    errorCode,
    apiKeys: flexible
      ? r.compactArray((x) => readApiVersionRange(x, true), 7)
      : r.array((x) => readApiVersionRange(x, false), 6),
    throttleTimeMs: version >= 1 ? r.int32() : 0,
    supportedFeatures: [],
    finalizedFeaturesEpoch: -1,
    finalizedFeatures: [],
    zkMigrationReady: false,
  };
  if (flexible) {
    r.taggedFields((tag, t) => {
      if (tag === 0) res.supportedFeatures = t.compactArray(readSupportedFeature, 6);
      else if (tag === 1) res.finalizedFeaturesEpoch = t.int64();
      else if (tag === 2) res.finalizedFeatures = t.compactArray(readFinalizedFeature, 6);
      else if (tag === 3) res.zkMigrationReady = t.bool();
    });
  }
  return res;
}

export const ApiVersions: ApiDefinition<ApiVersionsRequest, ApiVersionsResponse> = {
  apiKey: ApiKey.ApiVersions,
  name: 'ApiVersions',
  minVersion: 0,
  maxVersion: 5,
  firstFlexibleVersion: 3,
  responseHeaderAlwaysV0: true,

  encodeRequest(w: Writer, req: ApiVersionsRequest, version: number): void {
    if (version < 3) return;
    w.compactString(req.clientSoftwareName);
    w.compactString(req.clientSoftwareVersion);
    if (version >= 5) {
      w.compactNullableString(req.clusterId ?? null);
      w.int32(req.nodeId ?? -1);
    }
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader, version: number): ApiVersionsResponse {
    const errorCode = r.int16();
    // The broker falls back to a v0 body when it does not support the version we asked for.
    if (errorCode === UNSUPPORTED_VERSION && version > 0) return decodeBody(r, 0, errorCode);
    return decodeBody(r, version, errorCode);
  },
};
