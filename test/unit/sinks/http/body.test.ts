import { describe, expect, it } from 'vitest';
import { ConnectHeaders } from '../../../../src/connect/headers.js';
import { SinkRecord } from '../../../../src/connect/sink-record.js';
import { encodeBody, toJson } from '../../../../src/sinks/http/body.js';

const rec = (
  offset: number,
  value: unknown,
  extra: Partial<ConstructorParameters<typeof SinkRecord>[0]> = {},
) =>
  new SinkRecord({
    topic: 'orders',
    partition: 2,
    offset,
    timestamp: 1_700_000_000_000,
    timestampType: 'CreateTime',
    key: `k${offset}`,
    value,
    ...extra,
  });

const text = (b: { body: Buffer }): string => b.body.toString('utf8');

describe('HttpSink request bodies', () => {
  it('json_array: the values, as JSON', () => {
    const body = encodeBody('json_array', [rec(1, { id: 1 }), rec(2, 'plain'), rec(3, null), rec(4, [1, 2])]);
    expect(body.contentType).toBe('application/json');
    expect(JSON.parse(text(body))).toEqual([{ id: 1 }, 'plain', null, [1, 2]]);
  });

  it('json_records: coordinates, key, value, headers in order and deliveryCount (null in classic mode)', () => {
    const headers = new ConnectHeaders([
      { key: 'a', value: '1', schema: undefined },
      { key: 'a', value: 2, schema: undefined },
      { key: 'n', value: null, schema: undefined },
    ]);
    const body = encodeBody('json_records', [
      rec(7, { id: 7 }, { headers, deliveryCount: 3 }),
      rec(8, 'x', { key: null, timestamp: null }),
    ]);
    expect(JSON.parse(text(body))).toEqual([
      {
        topic: 'orders',
        partition: 2,
        offset: 7,
        timestamp: 1_700_000_000_000,
        key: 'k7',
        value: { id: 7 },
        headers: [
          { key: 'a', value: '1' },
          { key: 'a', value: 2 },
          { key: 'n', value: null },
        ],
        deliveryCount: 3,
      },
      {
        topic: 'orders',
        partition: 2,
        offset: 8,
        timestamp: null,
        key: null,
        value: 'x',
        headers: [],
        deliveryCount: null,
      },
    ]);
  });

  it('ndjson: one value per line, each line complete', () => {
    const body = encodeBody('ndjson', [rec(1, { a: 'line\nbreak' }), rec(2, 5)]);
    expect(body.contentType).toBe('application/x-ndjson');
    expect(text(body)).toBe('{"a":"line\\nbreak"}\n5\n');
  });

  it('raw: bytes untouched, strings as UTF-8, null as empty, objects as JSON', () => {
    const bytes = Buffer.from([0, 255, 128]);
    expect(encodeBody('raw', [rec(1, bytes)]).body).toEqual(bytes);
    expect(encodeBody('raw', [rec(1, 'héllo')]).body).toEqual(Buffer.from('héllo'));
    expect(encodeBody('raw', [rec(1, null)]).body).toEqual(Buffer.alloc(0));
    expect(encodeBody('raw', [rec(1, { a: 1 })]).body.toString()).toBe('{"a":1}');
    expect(encodeBody('raw', [rec(1, 'x')]).contentType).toBe('application/octet-stream');
  });

  it('JSON for converted values: bytes as base64, Maps as objects, bigints as strings, Dates as ISO', () => {
    expect(
      JSON.parse(
        toJson({
          b: Buffer.from('hi'),
          u: new Uint8Array([1, 2]),
          m: new Map([[1, 'one']]),
          n: 12n,
          d: new Date(0),
        }),
      ),
    ).toEqual({ b: 'aGk=', u: 'AQI=', m: { 1: 'one' }, n: '12', d: '1970-01-01T00:00:00.000Z' });
    expect(toJson(undefined)).toBe('null');
  });
});
