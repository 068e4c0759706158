/**
 * How a Kafka API is described to the connection: one {@link ApiDefinition} per API (see `messages/`), turned
 * into a concrete {@link ApiRequest} for one negotiated version by {@link buildRequest}.
 */
import { encodeError } from '../errors/kafka-errors.js';
import { Reader } from './reader.js';
import { Writer } from './writer.js';

/** API keys sharesink speaks. */
export const ApiKey = {
  Fetch: 1,
  ListOffsets: 2,
  Metadata: 3,
  OffsetCommit: 8,
  OffsetFetch: 9,
  FindCoordinator: 10,
  JoinGroup: 11,
  Heartbeat: 12,
  LeaveGroup: 13,
  SyncGroup: 14,
  SaslHandshake: 17,
  ApiVersions: 18,
  CreateTopics: 19,
  DescribeConfigs: 32,
  IncrementalAlterConfigs: 44,
  OffsetDelete: 47,
  ConsumerGroupHeartbeat: 68,
  ShareGroupHeartbeat: 76,
  ShareGroupDescribe: 77,
  ShareFetch: 78,
  ShareAcknowledge: 79,
  DescribeShareGroupOffsets: 90,
  AlterShareGroupOffsets: 91,
  DeleteShareGroupOffsets: 92,
} as const;

/** One Kafka API: its key, the versions we implement, and how to encode / decode a version of it. */
export interface ApiDefinition<Req, Res> {
  readonly apiKey: number;
  /** Kafka's name for it, e.g. `'ShareFetch'`. */
  readonly name: string;
  /** Lowest version this module implements. */
  readonly minVersion: number;
  /** Highest version this module implements. */
  readonly maxVersion: number;
  /** First flexible version: request header v2 and response header v1 from this version on. */
  readonly firstFlexibleVersion: number;
  /** True for ApiVersions only: its response header is always v0 (no tagged fields), whatever the version. */
  readonly responseHeaderAlwaysV0?: boolean;
  /** Writes the request body (without the request header) for `version`. */
  encodeRequest(w: Writer, request: Req, version: number): void;
  /** Reads the response body (after the response header) for `version`. */
  decodeResponse(r: Reader, version: number): Res;
}

/** A request ready to send: what {@link BrokerConnection.send} takes. */
export interface ApiRequest<T> {
  readonly apiKey: number;
  readonly apiVersion: number;
  /** For logs and errors, e.g. `'ShareFetch'`. */
  readonly apiName: string;
  /** The request body, without the request header. */
  readonly body: Buffer;
  /** Request header v2: a tagged-field section follows the client id. */
  readonly flexibleRequestHeader: boolean;
  /** Response header v1: a tagged-field section follows the correlation id. */
  readonly flexibleResponseHeader: boolean;
  /** Decodes the response body (the bytes after the response header). */
  decode(body: Buffer): T;
}

/** Encodes `request` as version `version` of `api`. */
export function buildRequest<Req, Res>(
  api: ApiDefinition<Req, Res>,
  version: number,
  request: Req,
): ApiRequest<Res> {
  if (version < api.minVersion || version > api.maxVersion) {
    throw encodeError(`${api.name} v${version} is not implemented (v${api.minVersion}–v${api.maxVersion})`);
  }
  const w = new Writer();
  api.encodeRequest(w, request, version);
  const flexible = version >= api.firstFlexibleVersion;
  return {
    apiKey: api.apiKey,
    apiVersion: version,
    apiName: api.name,
    body: w.finish(),
    flexibleRequestHeader: flexible,
    flexibleResponseHeader: flexible && api.responseHeaderAlwaysV0 !== true,
    decode: (body) => api.decodeResponse(new Reader(body), version),
  };
}

/** The versions a broker supports for one API (from ApiVersions). */
export interface VersionRange {
  readonly min: number;
  readonly max: number;
}

/** Highest version in both ranges, or undefined when they do not overlap. */
export function highestCommonVersion(
  ours: readonly [number, number],
  theirs: VersionRange | undefined,
): number | undefined {
  if (theirs === undefined) return undefined;
  const max = Math.min(ours[1], theirs.max);
  return max >= Math.max(ours[0], theirs.min) ? max : undefined;
}

// Small element codecs shared by several messages.

/** Writes an empty tagged-field section; for struct writers that have no tagged fields. */
export function endStruct(w: Writer): void {
  w.emptyTaggedFields();
}

/** `LeaderIdAndEpoch`, as in ShareFetch / ShareAcknowledge responses. */
export interface LeaderIdAndEpoch {
  leaderId: number;
  leaderEpoch: number;
}

export function readLeaderIdAndEpoch(r: Reader): LeaderIdAndEpoch {
  const leaderId = r.int32();
  const leaderEpoch = r.int32();
  r.taggedFields();
  return { leaderId, leaderEpoch };
}

/** `NodeEndpoint`, as in ShareFetch / ShareAcknowledge responses. */
export interface NodeEndpoint {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export function readNodeEndpoint(r: Reader): NodeEndpoint {
  const nodeId = r.int32();
  const host = r.compactString();
  const port = r.int32();
  const rack = r.compactNullableString();
  r.taggedFields();
  return { nodeId, host, port, rack };
}
