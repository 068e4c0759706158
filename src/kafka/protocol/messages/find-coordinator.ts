/**
 * FindCoordinator (key 10), v4–v6 (flexible, batched CoordinatorKeys). Verified against
 * FindCoordinatorRequest.json / FindCoordinatorResponse.json of Kafka 4.4.0: v5 only adds the
 * TRANSACTION_ABORTABLE error, v6 adds key type SHARE (2, inter-broker); the layout is the same in v4–v6.
 * A share group's coordinator is found with key type GROUP (0).
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

/** FindCoordinator key types. */
export const CoordinatorKeyType = { GROUP: 0, TRANSACTION: 1, SHARE: 2 } as const;

export interface FindCoordinatorRequest {
  keyType: number;
  coordinatorKeys: string[];
}

export interface Coordinator {
  key: string;
  nodeId: number;
  host: string;
  port: number;
  errorCode: number;
  errorMessage: string | null;
}

export interface FindCoordinatorResponse {
  throttleTimeMs: number;
  coordinators: Coordinator[];
}

function readCoordinator(r: Reader): Coordinator {
  const key = r.compactString();
  const nodeId = r.int32();
  const host = r.compactString();
  const port = r.int32();
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  r.taggedFields();
  return { key, nodeId, host, port, errorCode, errorMessage };
}

export const FindCoordinator: ApiDefinition<FindCoordinatorRequest, FindCoordinatorResponse> = {
  apiKey: ApiKey.FindCoordinator,
  name: 'FindCoordinator',
  minVersion: 4,
  maxVersion: 6,
  firstFlexibleVersion: 3,

  encodeRequest(w: Writer, req: FindCoordinatorRequest): void {
    w.int8(req.keyType);
    w.compactStringArray(req.coordinatorKeys);
    w.emptyTaggedFields();
  },

  decodeResponse(r: Reader): FindCoordinatorResponse {
    const throttleTimeMs = r.int32();
    const coordinators = r.compactArray(readCoordinator, 14);
    r.taggedFields();
    return { throttleTimeMs, coordinators };
  },
};
