import { describe, expect, it } from 'vitest';
import type { Schema } from '../../../src/connect/schema.js';
import { RowShapes, toJdbcRow, type JdbcRow } from '../../../src/sinks/jdbc/rows.js';
import { recordMaker } from './sink-records.js';

const settings = {
  pkMode: 'none' as const,
  pkFields: [] as string[],
  fields: undefined as ReadonlySet<string> | undefined,
  deleteEnabled: false,
};
const record = recordMaker();

describe('JDBC rows: column names shared between rows of one shape', () => {
  it('rows with the same fields share one array; any other list of names gets its own, with the right names', () => {
    const shapes = new RowShapes();
    const row = (value: Record<string, unknown>, s = settings, extra = {}) =>
      toJdbcRow(record(value, extra), 'tbl', s, shapes) as JdbcRow;
    const a = row({ id: 1, name: 'a' });
    const b = row({ id: 2, name: 'b' });
    expect(b.columns).toBe(a.columns);
    expect(b.columns).toEqual(['id', 'name']);
    const shorter = row({ id: 3 });
    expect(shorter.columns).toEqual(['id']);
    const longer = row({ id: 4, name: 'd', note: 'x' });
    expect(longer.columns).toEqual(['id', 'name', 'note']);
    const other = row({ name: 'e', id: 5 });
    expect(other.columns).toEqual(['name', 'id']);
    expect(row({ name: 'f', id: 6 }).columns).toBe(other.columns);
    // earlier rows keep their names
    expect([a.columns, shorter.columns, longer.columns]).toEqual([
      ['id', 'name'],
      ['id'],
      ['id', 'name', 'note'],
    ]);
    expect(a.values).toEqual([1, 'a']);
    expect(a.schemas[0]).toBeUndefined();
    expect(a.superseded).toEqual([]);
  });

  it('key columns come first and are not repeated; schemas are kept where the converter gave them', () => {
    const shapes = new RowShapes();
    const s = { ...settings, pkMode: 'record_value' as const, pkFields: ['id'] };
    const schema: Schema = {
      type: 'struct',
      optional: false,
      fields: [
        { name: 'name', schema: { type: 'string', optional: true } },
        { name: 'id', schema: { type: 'int32', optional: false } },
      ],
    };
    const r1 = toJdbcRow(record({ name: 'a', id: 1 }, { valueSchema: schema }), 'tbl', s, shapes)!;
    const r2 = toJdbcRow(record({ name: 'b', id: 2 }, { valueSchema: schema }), 'tbl', s, shapes)!;
    expect(r1.columns).toEqual(['id', 'name']);
    expect(r2.columns).toBe(r1.columns);
    expect(r1.values).toEqual([1, 'a']);
    expect(r1.keyCount).toBe(1);
    expect(r1.schemas.map((x) => x?.type)).toEqual(['int32', 'string']);
    const kafka = { ...settings, pkMode: 'kafka' as const };
    const k = toJdbcRow(record({ v: 1 }), 'tbl', kafka, shapes)!;
    expect(k.columns).toEqual(['__connect_topic', '__connect_partition', '__connect_offset', 'v']);
    expect(k.schemas.map((x) => x?.type)).toEqual(['string', 'int32', 'int64', undefined]);
  });

  it('a row that fails halfway does not change the names of the next', () => {
    const shapes = new RowShapes();
    const s = { ...settings, pkMode: 'record_value' as const, pkFields: ['id', 'k2'] };
    const ok = toJdbcRow(record({ id: 1, k2: 2, v: 3 }), 'tbl', s, shapes)!;
    expect(() => toJdbcRow(record({ id: 1, v: 3 }), 'tbl', s, shapes)).toThrow(/k2 is missing/);
    const next = toJdbcRow(record({ id: 2, k2: 2, v: 4 }), 'tbl', s, shapes)!;
    expect(next.columns).toBe(ok.columns);
    expect(next.columns).toEqual(['id', 'k2', 'v']);
  });
});
