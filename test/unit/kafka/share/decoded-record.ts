import type { DecodedRecord } from '../../../../src/kafka/share/transport.js';

/** A record as the decoder gives it (no key, value or headers; delivery count not yet set), for fakes. */
export function decodedRecord(offset: number, topic = 't', partition = 0): DecodedRecord {
  return {
    topic,
    partition,
    offset,
    timestamp: 0,
    timestampType: 'CreateTime',
    key: null,
    value: null,
    headers: [],
    deliveryCount: 0,
  };
}
