import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/errors.js';
import type { Schema } from '../../../../src/connect/schema.js';
import { INT32, INT64, OPT_STRING, rec, STRING, struct, transform } from './helpers.js';

const T = 'io.debezium.transforms.ExtractNewRecordState';

const ROW = struct(
  { id: INT32, name: OPT_STRING },
  { name: 'server1.inventory.customers.Value', optional: true },
);
const SOURCE = struct(
  { version: STRING, table: STRING, lsn: { type: 'int64', optional: true }, ts_ms: INT64 },
  { name: 'io.debezium.connector.postgresql.Source' },
);
const ENVELOPE: Schema = struct(
  { before: ROW, after: ROW, source: SOURCE, op: STRING, ts_ms: { type: 'int64', optional: true } },
  { name: 'server1.inventory.customers.Envelope' },
);
const source = { version: '3.0.0', table: 'customers', lsn: 3340, ts_ms: 1_700_000_000_000 };
const event = (op: string, before: object | null, after: object | null) => ({
  before,
  after,
  source,
  op,
  ts_ms: 1_700_000_000_123,
});

describe('ExtractNewRecordState', () => {
  it("replaces a schema'd change event with its after state and the row schema", () => {
    const t = transform(T);
    const out = t.apply(
      rec({
        key: { id: 1 },
        valueSchema: ENVELOPE,
        value: event('u', { id: 1, name: 'a' }, { id: 1, name: 'b' }),
      }),
    )!;
    expect(out.value).toEqual({ id: 1, name: 'b' });
    expect(out.valueSchema?.fields?.map((f) => f.name)).toEqual(['id', 'name']);
    expect(out.valueSchema?.name).toBe('server1.inventory.customers.Value');
    expect(out.key).toEqual({ id: 1 });
  });

  it('schemaless events work the same', () => {
    const out = transform(T).apply(rec({ value: event('c', null, { id: 2, name: 'x' }) }))!;
    expect(out.value).toEqual({ id: 2, name: 'x' });
    expect(out.valueSchema).toBeUndefined();
  });

  it("default (tombstone): a delete event becomes a tombstone, and Debezium's own tombstone passes", () => {
    const t = transform(T);
    const del = t.apply(
      rec({ key: { id: 1 }, valueSchema: ENVELOPE, value: event('d', { id: 1, name: 'b' }, null) }),
    )!;
    expect(del.value).toBeNull();
    expect(del.valueSchema).toBeUndefined();
    expect(del.key).toEqual({ id: 1 });
    const tomb = rec({ key: { id: 1 }, value: null });
    expect(t.apply(tomb)).toBe(tomb);
  });

  it('drop drops delete events and tombstones', () => {
    const t = transform(T, { 'delete.tombstone.handling.mode': 'drop' });
    expect(t.apply(rec({ value: event('d', { id: 1 }, null) }))).toBeNull();
    expect(t.apply(rec({ value: null }))).toBeNull();
  });

  it('rewrite: the before state with __deleted=true, every other row __deleted=false, tombstones dropped', () => {
    const t = transform(T, { 'delete.tombstone.handling.mode': 'rewrite' });
    const del = t.apply(rec({ valueSchema: ENVELOPE, value: event('d', { id: 1, name: 'b' }, null) }))!;
    expect(del.value).toEqual({ id: 1, name: 'b', __deleted: 'true' });
    expect(del.valueSchema?.fields?.map((f) => f.name)).toEqual(['id', 'name', '__deleted']);
    const upd = t.apply(rec({ valueSchema: ENVELOPE, value: event('u', null, { id: 1, name: 'c' }) }))!;
    expect(upd.value).toEqual({ id: 1, name: 'c', __deleted: 'false' });
    expect(t.apply(rec({ value: null }))).toBeNull();
    const withTombstones = transform(T, { 'delete.tombstone.handling.mode': 'rewrite-with-tombstone' });
    expect(withTombstones.apply(rec({ value: null }))).not.toBeNull();
  });

  it('delete: a null value that keeps the row schema', () => {
    const out = transform(T, { 'delete.tombstone.handling.mode': 'delete' }).apply(
      rec({ valueSchema: ENVELOPE, value: event('d', { id: 1 }, null) }),
    )!;
    expect(out.value).toBeNull();
    expect(out.valueSchema).toBe(ROW);
  });

  it('the older keys: delete.handling.mode=none with drop.tombstones=false keeps deletes as tombstones', () => {
    const t = transform(T, { 'delete.handling.mode': 'none', 'drop.tombstones': 'false' });
    expect(t.apply(rec({ value: event('d', { id: 1 }, null) }))!.value).toBeNull();
    expect(t.apply(rec({ value: null }))).not.toBeNull();
    const legacyDefault = transform(T, { 'drop.tombstones': 'true' });
    expect(legacyDefault.apply(rec({ value: event('d', { id: 1 }, null) }))).toBeNull();
    expect(legacyDefault.apply(rec({ value: null }))).toBeNull();
  });

  it('add.fields: op, table, lsn and source.ts_ms as __-prefixed fields, typed from the envelope', () => {
    const t = transform(T, { 'add.fields': 'op,table,lsn,source.ts_ms,ts_ms:event_ms' });
    const out = t.apply(rec({ valueSchema: ENVELOPE, value: event('c', null, { id: 3, name: 'n' }) }))!;
    expect(out.value).toEqual({
      id: 3,
      name: 'n',
      __op: 'c',
      __table: 'customers',
      __lsn: 3340,
      __source_ts_ms: 1_700_000_000_000,
      __event_ms: 1_700_000_000_123,
    });
    const types = Object.fromEntries(
      out.valueSchema!.fields!.map((f) => [f.name, `${f.schema.type}${f.schema.optional ? '?' : ''}`]),
    );
    expect(types).toEqual({
      id: 'int32',
      name: 'string?',
      __op: 'string?',
      __table: 'string?',
      __lsn: 'int64?',
      __source_ts_ms: 'int64?',
      __event_ms: 'int64?',
    });
    // the derived schema is worked out once per envelope schema
    const again = t.apply(rec({ valueSchema: ENVELOPE, value: event('u', null, { id: 3, name: 'm' }) }))!;
    expect(again.valueSchema).toBe(out.valueSchema);
  });

  it('add.headers, with their prefix, on deletes too', () => {
    const t = transform(T, { 'add.headers': 'op,source.table', 'add.headers.prefix': 'dbz.' });
    const out = t.apply(rec({ valueSchema: ENVELOPE, value: event('d', { id: 1 }, null) }))!;
    expect(out.value).toBeNull();
    expect(out.headers.lastWithName('dbz.op')?.value).toBe('d');
    expect(out.headers.lastWithName('dbz.source_table')?.value).toBe('customers');
  });

  it('records that are not change events pass unchanged; truncate events are dropped', () => {
    const t = transform(T);
    const heartbeat = rec({ value: { ts_ms: 1 } });
    expect(t.apply(heartbeat)).toBe(heartbeat);
    expect(t.apply(rec({ value: event('t', null, null) }))).toBeNull();
  });

  it('route.by.field is refused', () => {
    expect(() => transform(T, { 'route.by.field': 'name' })).toThrow(ConfigError);
  });
});
