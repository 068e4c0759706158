import type { SinkRecord } from '../../connect/sink-record.js';
import type { BodyFormat } from './config.js';

export interface RequestBody {
  readonly body: Buffer;
  /** Sent unless the connector configures its own Content-Type. */
  readonly contentType: string;
}

/**
 * JSON for any converted value: bytes (ByteArrayConverter, bytes fields) as base64 strings, Maps with
 * non-string keys as objects, bigints as decimal strings. Dates use their ISO form (Date.toJSON).
 */
export function toJson(value: unknown): string {
  return JSON.stringify(value ?? null, function (this: Record<string, unknown>, key: string, v: unknown) {
    const original = this[key];
    if (original instanceof Uint8Array) return Buffer.from(original).toString('base64');
    if (original instanceof Map) return Object.fromEntries(original);
    return typeof v === 'bigint' ? v.toString() : v;
  });
}

/** The request body for one request's records, in the configured format. */
export function encodeBody(format: BodyFormat, records: readonly SinkRecord[]): RequestBody {
  switch (format) {
    case 'json_array':
      return json(`[${records.map((r) => toJson(r.value)).join(',')}]`);
    case 'json_records':
      return json(`[${records.map(recordJson).join(',')}]`);
    case 'ndjson':
      return {
        body: Buffer.from(records.map((r) => `${toJson(r.value)}\n`).join(''), 'utf8'),
        contentType: 'application/x-ndjson',
      };
    case 'raw':
      return { body: rawBytes(records[0]?.value), contentType: 'application/octet-stream' };
  }
}

/**
 * One record with its coordinates: topic/partition/offset identify it, so a receiver can drop a
 * redelivered record whatever request it comes in. deliveryCount is null in classic mode.
 */
function recordJson(r: SinkRecord): string {
  return toJson({
    topic: r.topic,
    partition: r.partition,
    offset: r.offset,
    timestamp: r.timestamp,
    key: r.key ?? null,
    value: r.value ?? null,
    headers: r.headers.toArray().map((h) => ({ key: h.key, value: h.value ?? null })),
    deliveryCount: r.deliveryCount ?? null,
  });
}

function json(text: string): RequestBody {
  return { body: Buffer.from(text, 'utf8'), contentType: 'application/json' };
}

/** Bytes as they are, strings as UTF-8, null as an empty body, anything else as JSON. */
function rawBytes(value: unknown): Buffer {
  if (value === null || value === undefined) return Buffer.alloc(0);
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  return Buffer.from(toJson(value), 'utf8');
}
