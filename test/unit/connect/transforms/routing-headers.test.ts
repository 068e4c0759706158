import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/errors.js';
import { Schemas } from '../../../../src/connect/schema.js';
import { BATCH_INDEX } from '../../../../src/connect/sink-record.js';
import { INT32, OPT_STRING, predicate, rec, STRING, struct, transform } from './helpers.js';

describe('RegexRouter', () => {
  it('renames matching topics with Java replacement syntax; the copy still acks as the original', () => {
    const t = transform('org.apache.kafka.connect.transforms.RegexRouter', {
      regex: '(?<base>.*)-(v\\d+)',
      replacement: '${base}_$2\\$',
    });
    const out = t.apply(rec({ topic: 'orders-v2' }, 5))!;
    expect(out.topic).toBe('orders_v2$');
    expect(out[BATCH_INDEX]).toBe(5);
    expect(out.offset).toBe(42);
    const other = rec({ topic: 'payments' });
    expect(t.apply(other)).toBe(other);
  });

  it('rewrites the first match of a regex that matches the whole topic, as Java replaceFirst does', () => {
    expect(
      transform('RegexRouter', { regex: 'a|ab', replacement: 'X' }).apply(rec({ topic: 'ab' }))!.topic,
    ).toBe('Xb');
  });

  it('refuses a bad regex or a reference to a group that does not exist', () => {
    expect(() => transform('RegexRouter', { regex: '(', replacement: 'x' })).toThrow(/regex/);
    expect(() => transform('RegexRouter', { regex: '\\Aorders', replacement: 'x' })).toThrow(
      /read differently/,
    );
    expect(() => transform('RegexRouter', { regex: 'a++', replacement: 'x' })).toThrow(/not a valid/);
    expect(
      transform('RegexRouter', { regex: 'orders\\-v\\d', replacement: 'x' }).apply(
        rec({ topic: 'orders-v2' }),
      )!.topic,
    ).toBe('x');
    expect(() => transform('RegexRouter', { regex: '(a)', replacement: '$2' })).toThrow(/no group 2/);
    expect(() => transform('RegexRouter', { regex: 'a' })).toThrow(/replacement: is required/);
  });
});

describe('TimestampRouter', () => {
  it('names the topic after topic and timestamp, and fails records without a timestamp', () => {
    const t = transform('TimestampRouter', {
      'topic.format': '${topic}_${timestamp}',
      'timestamp.format': 'yyyy-MM',
    });
    expect(t.apply(rec())!.topic).toBe('orders_2026-01');
    expect(transform('TimestampRouter').apply(rec())!.topic).toBe('orders-20260129');
    expect(() => t.apply(rec({ timestamp: null }))).toThrow(/Timestamp missing/);
  });
});

describe('Filter', () => {
  it('drops every record', () => {
    expect(transform('Filter').apply(rec())).toBeNull();
  });
});

describe('Flatten', () => {
  it('flattens nested maps with the delimiter', () => {
    const t = transform('Flatten$Value', { delimiter: '_' });
    expect(t.apply(rec({ value: { a: { b: 1, c: { d: 'x' } }, e: [1], f: null } }))!.value).toEqual({
      a_b: 1,
      a_c_d: 'x',
      e: [1],
      f: null,
    });
  });

  it('flattens nested structs, a null or optional parent making its fields optional', () => {
    const inner = struct({ street: STRING, no: INT32 }, { optional: true });
    const schema = struct({ id: INT32, address: inner });
    const t = transform('Flatten$Key');
    const out = t.apply(rec({ key: { id: 1, address: null }, keySchema: schema }))!;
    expect(out.key).toEqual({ id: 1, 'address.street': null, 'address.no': null });
    expect(out.keySchema!.fields).toEqual([
      { name: 'id', schema: INT32 },
      { name: 'address.street', schema: { type: 'string', optional: true } },
      { name: 'address.no', schema: { type: 'int32', optional: true } },
    ]);
  });
});

describe('Flatten with schemas', () => {
  it('refuses map fields, and carries defaults down from a parent struct', () => {
    const t = transform('Flatten$Value');
    const withMap = struct({ m: { type: 'map', keySchema: STRING, valueSchema: INT32 } });
    expect(() => t.apply(rec({ value: { m: {} }, valueSchema: withMap }))).toThrow(/does not support map/);
    const inner = { ...struct({ a: INT32 }), default: { a: 5 } };
    const out = t.apply(rec({ value: { in: { a: 1 } }, valueSchema: struct({ in: inner }) }))!;
    expect(out.value).toEqual({ 'in.a': 1 });
    expect(out.valueSchema!.fields).toEqual([
      { name: 'in.a', schema: { type: 'int32', optional: false, default: 5 } },
    ]);
  });
});

describe('SetSchemaMetadata', () => {
  it('sets name and version on the schema, and needs a schema', () => {
    const t = transform('SetSchemaMetadata$Value', {
      'schema.name': 'com.example.Order',
      'schema.version': '3',
    });
    const out = t.apply(rec({ value: 'x', valueSchema: STRING }))!;
    expect(out.valueSchema).toEqual({
      type: 'string',
      optional: false,
      name: 'com.example.Order',
      version: 3,
    });
    expect(() => t.apply(rec({ value: 'x' }))).toThrow(/Schema required/);
    expect(
      transform('SetSchemaMetadata$Key', { 'schema.version': '1' }).apply(rec({ key: 1, keySchema: INT32 }))!
        .keySchema,
    ).toEqual({ ...INT32, version: 1 });
    expect(() => transform('SetSchemaMetadata$Value')).toThrow(/neither schema.name nor schema.version/);
    const tombstone = rec({ value: null });
    expect(t.apply(tombstone)).toBe(tombstone);
  });
});

describe('header transforms', () => {
  it('InsertHeader parses the literal as Connect does', () => {
    const out = transform('InsertHeader', { header: 'source', 'value.literal': '42' }).apply(rec())!;
    expect(out.headers.lastWithName('source')).toEqual({ key: 'source', value: 42, schema: Schemas.INT8 });
    const text = transform('InsertHeader', { header: 'h', 'value.literal': 'eu-west' }).apply(rec())!;
    expect(text.headers.lastWithName('h')!.value).toBe('eu-west');
  });

  it('DropHeaders removes every header with a listed name', () => {
    const r = rec({
      headerList: [
        { key: 'a', value: 1, schema: undefined },
        { key: 'b', value: 2, schema: undefined },
        { key: 'a', value: 3, schema: undefined },
      ],
    });
    const out = transform('DropHeaders', { headers: 'a,z' }).apply(r)!;
    expect(out.headers.toArray().map((h) => h.key)).toEqual(['b']);
    expect(() => transform('DropHeaders')).toThrow(ConfigError);
  });

  it('HeaderFrom copies schemaless fields and moves struct fields, with their schemas', () => {
    const copy = transform('HeaderFrom$Value', { fields: 'id', headers: 'order-id', operation: 'copy' });
    const copied = copy.apply(rec({ value: { id: 7, x: 1 } }))!;
    expect(copied.value).toEqual({ id: 7, x: 1 });
    expect(copied.headers.lastWithName('order-id')!.value).toBe(7);

    const move = transform('HeaderFrom$Key', { fields: 'id,note', headers: 'h1,h2', operation: 'move' });
    const moved = move.apply(
      rec({ key: { id: 7, note: 'n', x: 1 }, keySchema: struct({ id: INT32, note: OPT_STRING, x: INT32 }) }),
    )!;
    expect(moved.key).toEqual({ x: 1 });
    expect(moved.keySchema!.fields!.map((f) => f.name)).toEqual(['x']);
    expect(moved.headers.toArray()).toEqual([
      { key: 'h1', value: 7, schema: INT32 },
      { key: 'h2', value: 'n', schema: OPT_STRING },
    ]);
    expect(() => transform('HeaderFrom$Value', { fields: 'a,b', headers: 'h', operation: 'copy' })).toThrow(
      /as many header names as fields/,
    );
  });
});

describe('predicates', () => {
  it('TopicNameMatches matches whole topic names', () => {
    const p = predicate('org.apache.kafka.connect.transforms.predicates.TopicNameMatches', {
      pattern: 'ord.*',
    });
    expect(p.test(rec({ topic: 'orders' }))).toBe(true);
    expect(p.test(rec({ topic: 'preorders' }))).toBe(false);
    expect(() => predicate('TopicNameMatches', { pattern: '[' })).toThrow(ConfigError);
    expect(() => predicate('TopicNameMatches', { pattern: 'orders\\Z' })).toThrow(/read differently/);
  });

  it('HasHeaderKey and RecordIsTombstone', () => {
    const has = predicate('HasHeaderKey', { name: 'trace' });
    expect(has.test(rec({ headerList: [{ key: 'trace', value: null, schema: undefined }] }))).toBe(true);
    expect(has.test(rec())).toBe(false);
    const tomb = predicate('RecordIsTombstone');
    expect(tomb.test(rec({ value: null }))).toBe(true);
    expect(tomb.test(rec({ value: 'x' }))).toBe(false);
  });
});
