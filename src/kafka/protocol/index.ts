/**
 * The Kafka wire codec and the request/response definitions sharesink speaks.
 *
 * @example
 * ```ts
 * const version = conn.pickVersion(ShareFetch);            // throws UnsupportedVersionError
 * const res = await conn.send(buildRequest(ShareFetch, version, request));
 * // or, in one step: await conn.call(ShareFetch, request)
 * ```
 */
export { Reader, EMPTY_BUFFER } from './reader.js';
export { Writer, type TaggedField } from './writer.js';
export { ZERO_UUID, ONE_UUID, isUuid, randomUuid, uuidToHex, uuidFromHex } from './uuid.js';
export {
  ApiKey,
  buildRequest,
  highestCommonVersion,
  type ApiDefinition,
  type ApiRequest,
  type VersionRange,
  type LeaderIdAndEpoch,
  type NodeEndpoint,
} from './api.js';
export * from './messages/api-versions.js';
export * from './messages/metadata.js';
export * from './messages/find-coordinator.js';
export * from './messages/share-group-heartbeat.js';
export * from './messages/share-group-describe.js';
export * from './messages/share-fetch.js';
export * from './messages/share-acknowledge.js';
export * from './messages/incremental-alter-configs.js';
export * from './messages/describe-configs.js';
export * from './messages/join-group.js';
export * from './messages/sync-group.js';
export * from './messages/heartbeat.js';
export * from './messages/leave-group.js';
export * from './messages/create-topics.js';
export * from './messages/share-group-offsets.js';
export * from './messages/offset-delete.js';
export * from './messages/consumer-group-heartbeat.js';
export * from './messages/fetch.js';
export * from './messages/list-offsets.js';
export * from './messages/offset-fetch.js';
export * from './messages/offset-commit.js';
