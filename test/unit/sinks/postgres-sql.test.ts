import { describe, expect, it } from 'vitest';
import { SinkRecord } from '../../../src/connect/sink-record.js';
import { toRow, type ColumnInfo } from '../../../src/sinks/postgres/rows.js';
import { arrayElement, insertStatement, type TableInfo } from '../../../src/sinks/postgres/sql.js';

const info = (type: string, sqlType: string, category = 'S'): ColumnInfo => ({ type, category, sqlType });
const rec = (value: unknown, offset = 0) =>
  new SinkRecord({
    topic: 't',
    partition: 0,
    offset,
    timestamp: null,
    timestampType: 'NoTimestampType',
    key: null,
    value,
  });

describe('PostgresSink statements', () => {
  it('array elements: strings quoted and escaped, so the text NULL stays text; bytes in hex', () => {
    expect(arrayElement(null)).toBe('NULL');
    expect(arrayElement('NULL')).toBe('"NULL"');
    expect(arrayElement('')).toBe('""');
    expect(arrayElement('a"b\\c,{d}')).toBe('"a\\"b\\\\c,{d}"');
    expect(arrayElement(1.5)).toBe('1.5');
    expect(arrayElement(false)).toBe('false');
    expect(arrayElement(Buffer.from([0, 255]))).toBe('"\\\\x00ff"');
  });

  it('several rows go as one unnest of one array per column; one row, an array column or an unknown column as VALUES', () => {
    const table: TableInfo = new Map([
      ['id', info('int4', 'pg_catalog.int4')],
      ['name', info('text', 'pg_catalog.text')],
      ['tags', info('_text', 'pg_catalog._text', 'A')],
    ]);
    const rows = (values: unknown[]) => values.map((v, i) => toRow(rec(v, i), 'x', 'upsert', ['id']));
    const two = rows([
      { id: 1, name: 'a' },
      { id: 2, name: null },
    ]);
    expect(insertStatement('"x"', table, two, 'upsert', ['id'])).toEqual({
      text:
        'INSERT INTO "x" ("id", "name") SELECT * FROM unnest($1::pg_catalog.int4[], $2::pg_catalog.text[])' +
        ' ON CONFLICT ("id") DO UPDATE SET "name" = EXCLUDED."name"',
      values: ['{1,2}', '{"a",NULL}'],
    });
    expect(insertStatement('"x"', table, two.slice(0, 1), 'insert', [])).toEqual({
      text: 'INSERT INTO "x" ("id", "name") VALUES ($1,$2)',
      values: [1, 'a'],
    });
    const withArray = rows([
      { id: 1, tags: ['a'] },
      { id: 2, tags: [] },
    ]);
    expect(insertStatement('"x"', table, withArray, 'insert', []).text).toBe(
      'INSERT INTO "x" ("id", "tags") VALUES ($1,$2),($3,$4)',
    );
    const unknown = rows([
      { id: 1, nope: 1 },
      { id: 2, nope: 2 },
    ]);
    expect(insertStatement('"x"', table, unknown, 'insert', []).text).toBe(
      'INSERT INTO "x" ("id", "nope") VALUES ($1,$2),($3,$4)',
    );
  });
});
