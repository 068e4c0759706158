import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { ConverterError } from '../../../src/connect/errors.js';
import { ByteArrayConverter } from '../../../src/connect/converters/byte-array-converter.js';
import { convertBatch } from '../../../src/connect/converters/convert-batch.js';
import { JsonConverter } from '../../../src/connect/converters/json-converter.js';
import {
  convertersFromProps,
  createConverters,
  DEFAULT_CONVERTERS,
} from '../../../src/connect/converters/registry.js';
import { SimpleHeaderConverter } from '../../../src/connect/converters/simple-header-converter.js';
import { StringConverter } from '../../../src/connect/converters/string-converter.js';
import type { RawRecord } from '../../../src/connect/raw-record.js';
import { LOGICAL, Schemas, type Schema } from '../../../src/connect/schema.js';

const json = (configs: Record<string, string> = {}): JsonConverter => {
  const c = new JsonConverter();
  c.configure(configs, false);
  return c;
};
const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('StringConverter', () => {
  it('decodes with the configured charset and replaces malformed UTF-8 like Java does', () => {
    const c = new StringConverter();
    c.configure({}, false);
    expect(c.toConnectData('t', bytes('héllo'))).toEqual({ schema: Schemas.OPTIONAL_STRING, value: 'héllo' });
    expect(c.toConnectData('t', Buffer.from([0x61, 0xff]))).toMatchObject({ value: 'a\ufffd' });
    expect(c.toConnectData('t', null).value).toBeNull();
    const latin = new StringConverter();
    latin.configure({ 'converter.encoding': 'ISO-8859-1' }, true);
    expect(latin.toConnectData('t', Buffer.from([0xe9])).value).toBe('é');
    expect(() => new StringConverter().configure({ encoding: 'EBCDIC' }, false)).toThrow(ConfigError);
  });
});

describe('ByteArrayConverter', () => {
  it('passes bytes through as a Buffer over the same memory', () => {
    const c = new ByteArrayConverter();
    const input = new Uint8Array([1, 2, 3]);
    const out = c.toConnectData('t', input);
    expect(Buffer.isBuffer(out.value)).toBe(true);
    expect((out.value as Buffer).buffer).toBe(input.buffer);
    expect(c.fromConnectData('t', Schemas.BYTES, input)).toBe(input);
    expect(() => c.fromConnectData('t', Schemas.STRING, 'x')).toThrow(/bytes schema/);
  });
});

describe('JsonConverter', () => {
  it('requires the envelope by default, as Connect does', () => {
    expect(() => json().toConnectData('t', bytes('{"a":1}'))).toThrow(/schemas.enable=false/);
    expect(json().toConnectData('t', bytes('{"schema":null,"payload":{"a":1}}'))).toEqual({
      schema: undefined,
      value: { a: 1 },
    });
  });

  it('reads plain JSON with schemas.enable=false', () => {
    expect(json({ 'schemas.enable': 'false' }).toConnectData('t', bytes('[1,"x",null]')).value).toEqual([
      1,
      'x',
      null,
    ]);
    expect(() => json({ 'schemas.enable': 'false' }).toConnectData('t', bytes('{nope'))).toThrow(
      /serialization error/,
    );
    expect(json().toConnectData('t', null)).toEqual({ schema: undefined, value: null });
  });

  it('reads a struct envelope with logical types and defaults', () => {
    const envelope = {
      schema: {
        type: 'struct',
        name: 'Order',
        optional: false,
        fields: [
          { field: 'id', type: 'int64', optional: false },
          { field: 'note', type: 'string', optional: true },
          { field: 'qty', type: 'int32', optional: false, default: 7 },
          { field: 'at', type: 'int64', optional: false, name: LOGICAL.timestamp },
          { field: 'day', type: 'int32', optional: false, name: LOGICAL.date },
          {
            field: 'price',
            type: 'bytes',
            optional: false,
            name: LOGICAL.decimal,
            parameters: { scale: '2' },
          },
          { field: 'raw', type: 'bytes', optional: false },
          { field: 'tags', type: 'array', items: { type: 'string' }, optional: false },
          {
            field: 'attrs',
            type: 'map',
            keys: { type: 'string' },
            values: { type: 'int32' },
            optional: false,
          },
        ],
      },
      payload: {
        id: 42,
        note: null,
        qty: null,
        at: 1_700_000_000_000,
        day: 2,
        price: Buffer.from([0xfb, 0x2e]).toString('base64'),
        raw: Buffer.from('hi').toString('base64'),
        tags: ['a'],
        attrs: { x: 1 },
      },
    };
    const { schema, value } = json().toConnectData('t', bytes(JSON.stringify(envelope)));
    expect(schema).toMatchObject({ type: 'struct', name: 'Order' });
    expect(value).toEqual({
      id: 42,
      note: null,
      qty: 7,
      at: new Date(1_700_000_000_000),
      day: new Date(2 * 86_400_000),
      price: '-12.34',
      raw: Buffer.from('hi'),
      tags: ['a'],
      attrs: { x: 1 },
    });
  });

  it('writes what it reads, with and without a schema', () => {
    const schema: Schema = {
      type: 'struct',
      fields: [
        { name: 'id', schema: Schemas.INT32 },
        { name: 'price', schema: { type: 'bytes', name: LOGICAL.decimal, parameters: { scale: '3' } } },
        { name: 'blob', schema: Schemas.OPTIONAL_BYTES },
        { name: 'pairs', schema: { type: 'map', keySchema: Schemas.INT32, valueSchema: Schemas.STRING } },
      ],
    };
    const value = { id: 1, price: '-0.005', blob: Buffer.from([0, 255]), pairs: new Map([[1, 'one']]) };
    const c = json();
    const back = c.toConnectData('t', c.fromConnectData('t', schema, value));
    expect(back.value).toEqual(value);
    expect(back.schema).toMatchObject({
      type: 'struct',
      fields: [{ name: 'id' }, { name: 'price' }, { name: 'blob' }, { name: 'pairs' }],
    });
    expect(c.fromConnectData('t', undefined, null)).toBeNull();
  });

  it('rejects payloads that do not match their schema', () => {
    const env = (payload: unknown) =>
      bytes(JSON.stringify({ schema: { type: 'int8', optional: false }, payload }));
    expect(() => json().toConnectData('t', env(300))).toThrow(/Expected int8/);
    expect(() => json().toConnectData('t', env(null))).toThrow(/Invalid null value for required int8/);
    expect(() => json().toConnectData('t', bytes('{"schema":{"type":"uuid"},"payload":1}'))).toThrow(
      /Unknown schema type/,
    );
  });

  it('writes decimals as numbers with decimal.format=NUMERIC', () => {
    const schema: Schema = { type: 'bytes', name: LOGICAL.decimal, parameters: { scale: '2' } };
    const c = json({ 'schemas.enable': 'false', 'decimal.format': 'numeric' });
    expect(Buffer.from(c.fromConnectData('t', schema, '12.30')!).toString()).toBe('12.3');
  });
});

describe('SimpleHeaderConverter', () => {
  const c = new SimpleHeaderConverter();
  it.each([
    ['true', true, 'boolean'],
    ['42', 42, 'int8'],
    ['40000', 40000, 'int32'],
    ['1.5', 1.5, 'float64'],
    ['[1,2]', [1, 2], 'array'],
    ['{"a":"b"}', { a: 'b' }, 'map'],
    ['{not json', '{not json', 'string'],
    ['hello', 'hello', 'string'],
  ])('reads %s', (text, value, type) => {
    expect(c.toConnectHeader('t', 'h', bytes(text))).toEqual({
      schema: expect.objectContaining({ type }),
      value,
    });
  });
  it('writes values back as text', () => {
    expect(Buffer.from(c.fromConnectHeader('t', 'h', undefined, { a: 1 })!).toString()).toBe('{"a":1}');
    expect(Buffer.from(c.fromConnectHeader('t', 'h', undefined, 5)!).toString()).toBe('5');
    expect(c.fromConnectHeader('t', 'h', undefined, null)).toBeNull();
  });
});

describe('converter registry', () => {
  it('defaults to Connect worker defaults and takes settings from the layer that names the class', () => {
    expect(convertersFromProps({})).toEqual(DEFAULT_CONVERTERS);
    const config = convertersFromProps(
      {
        'value.converter': 'JsonConverter',
        'value.converter.schemas.enable': 'false',
        'key.converter': 'StringConverter',
      },
      {
        'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
        'value.converter.decimal.format': 'NUMERIC',
      },
    );
    expect(config.value).toEqual({
      className: 'org.apache.kafka.connect.json.JsonConverter',
      props: { 'decimal.format': 'NUMERIC' },
    });
    expect(config.key).toEqual({ className: 'StringConverter', props: {} });
  });

  it('accepts Connect class names as aliases', async () => {
    const loaded = await createConverters(
      convertersFromProps({
        'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
        'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
        'header.converter': 'org.apache.kafka.connect.storage.SimpleHeaderConverter',
      }),
    );
    expect(loaded.key).toBeInstanceOf(StringConverter);
    expect(loaded.value).toBeInstanceOf(ByteArrayConverter);
    expect(loaded.header).toBeInstanceOf(SimpleHeaderConverter);
  });

  it('takes StringConverter, ByteArrayConverter and JsonConverter as header converters, as Connect does', async () => {
    const load = async (name: string, extra: Record<string, string> = {}) =>
      (await createConverters(convertersFromProps({ 'header.converter': name, ...extra }))).header;
    const raw = await load('ByteArrayConverter');
    expect(raw).toBeInstanceOf(ByteArrayConverter);
    const passthrough = raw.toConnectHeader('t', 'h', bytes('42'));
    expect(Buffer.isBuffer(passthrough.value)).toBe(true);
    expect((passthrough.value as Buffer).toString()).toBe('42');
    expect(raw.fromConnectHeader('t', 'h', undefined, Buffer.from('x'))).toEqual(Buffer.from('x'));

    const text = await load('org.apache.kafka.connect.storage.StringConverter');
    expect(text.toConnectHeader('t', 'h', bytes('42')).value).toBe('42');

    const json = await load('JsonConverter', { 'header.converter.schemas.enable': 'false' });
    expect(json.toConnectHeader('t', 'h', bytes('{"a":1}')).value).toEqual({ a: 1 });
    expect(Buffer.from(json.fromConnectHeader('t', 'h', undefined, { a: 1 })!).toString()).toBe('{"a":1}');
  });

  it('reports every bad converter setting with its full key', async () => {
    const config = convertersFromProps({
      'key.converter': 'io.confluent.connect.avro.AvroConverter',
      'value.converter': 'JsonConverter',
      'value.converter.schemas.enable': 'maybe',
      'header.converter': 'org.apache.kafka.connect.storage.Nope',
    });
    const error = await createConverters(config, () =>
      Promise.reject(new Error('Cannot find package')),
    ).catch((e: unknown) => e);
    expect((error as ConfigError).problemLines()).toEqual([
      'key.converter: "io.confluent.connect.avro.AvroConverter" failed to load: Cannot find package',
      'value.converter.schemas.enable: "maybe" is not true or false; accepted: true or false',
      expect.stringMatching(
        /^header.converter: "org.apache.kafka.connect.storage.Nope" is not a converter; accepted: SimpleHeaderConverter/,
      ),
    ]);
  });

  it('loads a converter class from a module', async () => {
    class Upper extends StringConverter {
      override toConnectData(topic: string, b: Uint8Array | null) {
        const sv = super.toConnectData(topic, b);
        return { ...sv, value: String(sv.value).toUpperCase() };
      }
    }
    const loaded = await createConverters(convertersFromProps({ 'value.converter': './upper.js' }), () =>
      Promise.resolve({ default: Upper }),
    );
    expect(loaded.value.toConnectData('t', bytes('abc')).value).toBe('ABC');
  });
});

describe('convertBatch', () => {
  const raw = (value: string | null, offset: number, headers: RawRecord['headers'] = []): RawRecord => ({
    topic: 'orders',
    partition: 3,
    offset,
    timestamp: 5,
    timestampType: 'LogAppendTime',
    key: null,
    value: value === null ? null : bytes(value),
    headers,
    deliveryCount: 2,
  });

  it('converts good records and returns a typed failure per bad one, never throwing for the batch', async () => {
    const converters = await createConverters(
      convertersFromProps({
        'value.converter': 'JsonConverter',
        'value.converter.schemas.enable': 'false',
        'key.converter': 'StringConverter',
      }),
    );
    const { records, failures } = convertBatch(
      [
        raw('1', 10),
        raw('oops', 11),
        raw('{"a":[true]}', 12, [{ key: 'n', value: bytes('7') }]),
        raw(null, 13),
      ],
      converters,
    );
    expect(records.map((r) => [r.offset, r.value])).toEqual([
      [10, 1],
      [12, { a: [true] }],
      [13, null],
    ]);
    expect(records[1]!.headers.lastWithName('n')?.value).toBe(7);
    expect(records[0]).toMatchObject({
      topic: 'orders',
      partition: 3,
      timestamp: 5,
      timestampType: 'LogAppendTime',
      deliveryCount: 2,
    });
    expect(failures).toHaveLength(1);
    const { index, error } = failures[0]!;
    expect(index).toBe(1);
    expect(error).toBeInstanceOf(ConverterError);
    expect(error).toMatchObject({
      code: 'SHARESINK_CONVERTER_FAILED',
      topic: 'orders',
      partition: 3,
      offset: 11,
      converter: 'JsonConverter',
      part: 'value',
    });
    expect(error.message).toMatch(/^JsonConverter could not convert the value of orders-3@11: /);
  });
});
