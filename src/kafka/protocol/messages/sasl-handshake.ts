/**
 * SaslHandshake (key 17), v0–v1; never flexible. Verified against SaslHandshakeRequest.json /
 * SaslHandshakeResponse.json of Kafka 4.4.0. kafkajs runs the real SASL exchange; sharesink sends this
 * only to ask a listener whether it takes SASL at all: a SASL listener answers with the mechanisms it
 * enables (NONE, or UNSUPPORTED_SASL_MECHANISM for a mechanism it does not), any other listener with
 * ILLEGAL_SASL_STATE.
 */
import { ApiKey, type ApiDefinition } from '../api.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

export interface SaslHandshakeRequest {
  mechanism: string;
}

export interface SaslHandshakeResponse {
  errorCode: number;
  /** The mechanisms the listener enables (empty when it takes no SASL). */
  mechanisms: string[];
}

export const SaslHandshake: ApiDefinition<SaslHandshakeRequest, SaslHandshakeResponse> = {
  apiKey: ApiKey.SaslHandshake,
  name: 'SaslHandshake',
  minVersion: 0,
  maxVersion: 1,
  firstFlexibleVersion: Number.POSITIVE_INFINITY,

  encodeRequest(w: Writer, req: SaslHandshakeRequest): void {
    w.string(req.mechanism);
  },

  decodeResponse(r: Reader): SaslHandshakeResponse {
    const errorCode = r.int16();
    const mechanisms = r.array((x) => x.string(), 2);
    return { errorCode, mechanisms };
  },
};
