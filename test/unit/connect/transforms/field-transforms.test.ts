import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/errors.js';
import { DataError } from '../../../../src/connect/errors.js';
import { LOGICAL } from '../../../../src/connect/schema.js';
import { BATCH_INDEX } from '../../../../src/connect/sink-record.js';
import { INT32, INT64, OPT_STRING, rec, STRING, struct, transform } from './helpers.js';

const TS = Date.UTC(2026, 0, 29, 13, 45, 6, 789);

describe('InsertField', () => {
  it('adds metadata and a static field to a schemaless value', () => {
    const t = transform('org.apache.kafka.connect.transforms.InsertField$Value', {
      'topic.field': 'topic',
      'partition.field': 'partition',
      'offset.field': 'offset',
      'timestamp.field': 'ts',
      'static.field': 'source',
      'static.value': 'sharesink',
    });
    const out = t.apply(rec({ value: { id: 1 } }, 7))!;
    expect(out.value).toEqual({
      id: 1,
      topic: 'orders',
      partition: 3,
      offset: 42,
      ts: TS,
      source: 'sharesink',
    });
    expect(out.valueSchema).toBeUndefined();
    expect(out[BATCH_INDEX]).toBe(7);
  });

  it('extends a struct schema with the inserted fields, ! making one required', () => {
    const t = transform('InsertField$Value', { 'topic.field': 'topic!', 'timestamp.field': 'ts?' });
    const schema = struct({ id: INT32 }, { name: 'Order', version: 2 });
    const out = t.apply(rec({ value: { id: 1 }, valueSchema: schema }))!;
    expect(out.valueSchema).toEqual({
      type: 'struct',
      optional: false,
      name: 'Order',
      version: 2,
      fields: [
        { name: 'id', schema: INT32 },
        { name: 'topic', schema: { type: 'string', optional: false } },
        { name: 'ts', schema: { type: 'int64', optional: true, name: LOGICAL.timestamp, version: 1 } },
      ],
    });
    expect(out.value).toEqual({ id: 1, topic: 'orders', ts: new Date(TS) });
    // the derived schema is cached per source schema
    expect(t.apply(rec({ value: { id: 2 }, valueSchema: schema }))!.valueSchema).toBe(out.valueSchema);
  });

  it('keeps a field named __proto__ a field', () => {
    const out = transform('InsertField$Value', { 'topic.field': '__proto__' }).apply(
      rec({ value: { a: 1 } }),
    )!;
    const value = out.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toBe('orders');
  });

  it('leaves out the timestamp of a record without one', () => {
    const t = transform('InsertField$Value', { 'timestamp.field': 'ts', 'static.field': 's' });
    expect(t.apply(rec({ value: { a: 1 }, timestamp: null }))!.value).toEqual({ a: 1 });
    const out = t.apply(rec({ value: { a: 1 }, timestamp: null, valueSchema: struct({ a: INT32 }) }))!;
    expect(out.value).toEqual({ a: 1 });
    expect(out.valueSchema!.fields!.map((f) => f.name)).toEqual(['a', 'ts', 's']);
  });

  it('works on the key with $Key and passes tombstones through', () => {
    const t = transform('InsertField$Key', { 'partition.field': 'p' });
    expect(t.apply(rec({ key: { k: 'a' } }))!.key).toEqual({ k: 'a', p: 3 });
    const tombstone = rec({ key: null });
    expect(t.apply(tombstone)).toBe(tombstone);
  });

  it('rejects a value that is not a map or struct', () => {
    const t = transform('InsertField$Value', { 'topic.field': 't' });
    expect(() => t.apply(rec({ value: 'text' }))).toThrow(DataError);
    expect(() => t.apply(rec({ value: 'text', valueSchema: STRING }))).toThrow(/Only Struct objects/);
  });
});

describe('ReplaceField', () => {
  it('includes, excludes and renames schemaless fields', () => {
    const t = transform('ReplaceField$Value', { exclude: 'secret', renames: 'id:order_id' });
    expect(t.apply(rec({ value: { id: 1, secret: 's', n: 2 } }))!.value).toEqual({ order_id: 1, n: 2 });
    const only = transform('ReplaceField$Value', { include: 'id,n', exclude: 'n' });
    expect(only.apply(rec({ value: { id: 1, secret: 's', n: 2 } }))!.value).toEqual({ id: 1 });
  });

  it('rebuilds the struct schema and reads the legacy blacklist name', () => {
    const t = transform('ReplaceField$Key', { blacklist: 'b', renames: 'a:x' });
    const out = t.apply(rec({ key: { a: 1, b: 'two' }, keySchema: struct({ a: INT32, b: STRING }) }))!;
    expect(out.keySchema!.fields).toEqual([{ name: 'x', schema: INT32 }]);
    expect(out.key).toEqual({ x: 1 });
  });

  it('refuses malformed renames', () => {
    expect(() => transform('ReplaceField$Value', { renames: 'a-b' })).toThrow(ConfigError);
    expect(() => transform('ReplaceField$Value', { renames: 'a:x,b:x' })).toThrow(/distinct/);
  });
});

describe('MaskField', () => {
  it('masks schemaless fields with the empty value of their kind', () => {
    const t = transform('MaskField$Value', { fields: 'name,age,ok,tags,price' });
    const out = t.apply(
      rec({ value: { name: 'Ann', age: 41, ok: true, tags: ['a'], price: 1.5, keep: 'x' } }),
    )!;
    expect(out.value).toEqual({ name: '', age: 0, ok: false, tags: [], price: 0, keep: 'x' });
  });

  it('masks struct fields by schema type, with a replacement parsed as the field type', () => {
    const schema = struct({ name: STRING, age: INT32, note: OPT_STRING });
    const t = transform('MaskField$Value', { fields: 'name,age,note', replacement: '99' });
    const out = t.apply(rec({ value: { name: 'Ann', age: 41, note: null }, valueSchema: schema }))!;
    expect(out.value).toEqual({ name: '99', age: 99, note: null });
    expect(out.valueSchema).toBe(schema);
    const bad = transform('MaskField$Value', { fields: 'age', replacement: 'x' });
    expect(() => bad.apply(rec({ value: { name: 'a', age: 1, note: null }, valueSchema: schema }))).toThrow(
      /Unable to convert/,
    );
  });

  it('masks the key with $Key; a listed field the struct lacks is ignored; a tombstone fails, as in Connect', () => {
    const t = transform('MaskField$Key', { fields: 'ssn' });
    expect(t.apply(rec({ key: { ssn: '123', id: 1 } }))!.key).toEqual({ ssn: '', id: 1 });
    expect(t.apply(rec({ key: { id: 1 } }))!.key).toEqual({ id: 1, ssn: null });
    expect(t.apply(rec({ key: { id: 1 }, keySchema: struct({ id: INT32 }) }))!.key).toEqual({ id: 1 });
    expect(() => t.apply(rec({ key: null }))).toThrow(DataError);
  });

  it('requires fields', () => {
    expect(() => transform('MaskField$Value')).toThrow(/fields: is required/);
  });
});

describe('ValueToKey', () => {
  it('builds the key from value fields, with and without a schema', () => {
    const t = transform('ValueToKey', { fields: 'id,region' });
    expect(t.apply(rec({ value: { id: 1, region: 'eu', x: 0 } }))!.key).toEqual({ id: 1, region: 'eu' });
    const schema = struct({ id: INT64, region: STRING, x: INT32 });
    const out = t.apply(rec({ value: { id: 1, region: 'eu', x: 0 }, valueSchema: schema }))!;
    expect(out.key).toEqual({ id: 1, region: 'eu' });
    expect(out.keySchema).toEqual(struct({ id: INT64, region: STRING }));
    expect(() => t.apply(rec({ value: { id: 1 }, valueSchema: struct({ id: INT64 }) }))).toThrow(
      /Field does not exist: region/,
    );
  });
});

describe('ExtractField', () => {
  it('replaces the value with one field', () => {
    const t = transform('ExtractField$Value', { field: 'id' });
    expect(t.apply(rec({ value: { id: 7, x: 1 } }))!.value).toBe(7);
    const out = t.apply(rec({ value: { id: 7 }, valueSchema: struct({ id: INT32 }) }))!;
    expect(out).toMatchObject({ value: 7, valueSchema: INT32 });
    expect(t.apply(rec({ value: null }))!.value).toBeNull();
    expect(() => t.apply(rec({ value: { x: 1 }, valueSchema: struct({ x: INT32 }) }))).toThrow(
      /Unknown field/,
    );
  });

  it('extracts from the key with $Key, and refuses V2 field syntax at configure time', () => {
    expect(transform('ExtractField$Key', { field: 'k' }).apply(rec({ key: { k: 'a' } }))!.key).toBe('a');
    expect(() => transform('ExtractField$Key', { field: 'a.b', 'field.syntax.version': 'V2' })).toThrow(
      /not supported yet/,
    );
  });
});

describe('HoistField', () => {
  it('wraps the value or key in one field', () => {
    const t = transform('HoistField$Value', { field: 'line' });
    expect(t.apply(rec({ value: 'hello' }))!.value).toEqual({ line: 'hello' });
    const out = t.apply(rec({ value: 'hello', valueSchema: STRING }))!;
    expect(out.valueSchema).toEqual(struct({ line: STRING }));
    expect(transform('HoistField$Key', { field: 'k' }).apply(rec({ key: 5 }))!.key).toEqual({ k: 5 });
  });
});
