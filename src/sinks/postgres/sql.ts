import type { ClientBase } from 'pg';
import { DataError } from '../../connect/errors.js';
import type { InsertMode } from './config.js';
import {
  IDEMPOTENCE_KEY,
  columnSpecs,
  encodeValue,
  type ColumnInfo,
  type ColumnSpec,
  type Row,
} from './rows.js';

/** Postgres refuses more bind parameters than this in one statement. */
export const MAX_PARAMETERS = 65_535;

/** A double-quoted identifier: any name is taken literally, so names from topics or fields cannot inject. */
export function quoteIdent(name: string): string {
  if (name.includes('\0')) throw new DataError(`identifier ${JSON.stringify(name)} contains a NUL character`);
  return `"${name.replaceAll('"', '""')}"`;
}

export function qualifiedName(schema: string | null, table: string): string {
  return schema === null ? quoteIdent(table) : `${quoteIdent(schema)}.${quoteIdent(table)}`;
}

export type TableInfo = ReadonlyMap<string, ColumnInfo>;

/** The table's columns, or undefined when there is no such table (resolved like the INSERT will be). */
export async function describeTable(client: ClientBase, qualified: string): Promise<TableInfo | undefined> {
  const { rows } = await client.query<{
    oid: number | null;
    name: string | null;
    type: string | null;
    category: string | null;
    sql_type: string | null;
  }>(
    `SELECT c.oid::int8 AS oid, a.attname AS name, t.typname AS type, t.typcategory AS category,
            quote_ident(n.nspname) || '.' || quote_ident(t.typname) AS sql_type
       FROM (SELECT to_regclass($1)::oid AS oid) c
       LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       LEFT JOIN pg_type t ON t.oid = a.atttypid
       LEFT JOIN pg_namespace n ON n.oid = t.typnamespace`,
    [qualified],
  );
  if (rows.length === 0 || rows[0]!.oid === null) return undefined;
  const columns = new Map<string, ColumnInfo>();
  for (const r of rows) {
    if (r.name !== null) {
      columns.set(r.name, { type: r.type ?? '', category: r.category ?? '', sqlType: r.sql_type ?? '' });
    }
  }
  return columns;
}

/**
 * CREATE TABLE IF NOT EXISTS with the columns of `rows` and the constraint the mode relies on. A
 * column is NOT NULL only when every row has it and declares it so (a required schema field).
 */
export function createTableSql(
  qualified: string,
  rows: readonly Row[],
  mode: InsertMode,
  pkFields: readonly string[],
): string {
  const columns = new Map<string, { spec: ColumnSpec; typed: boolean; notNull: boolean; count: number }>();
  for (const row of rows) {
    const specs = columnSpecs(row);
    row.columns.forEach((column, i) => {
      const spec = specs[i]!;
      const typed = row.values[i] !== null && row.values[i] !== undefined;
      const known = columns.get(column);
      if (known === undefined) {
        columns.set(column, { spec, typed, notNull: spec.notNull, count: 1 });
        return;
      }
      known.count++;
      known.notNull &&= spec.notNull;
      // a schemaless null says nothing about the type: a later non-null value decides
      if (!known.typed && typed) Object.assign(known, { spec, typed });
    });
  }
  const key = mode === 'idempotent' ? IDEMPOTENCE_KEY : mode === 'upsert' ? pkFields : [];
  const lines = [...columns].map(([column, c]) => {
    const notNull = (c.notNull && c.count === rows.length) || key.includes(column);
    return `${quoteIdent(column)} ${c.spec.type}${notNull ? ' NOT NULL' : ''}`;
  });
  if (key.length > 0) lines.push(`PRIMARY KEY (${key.map(quoteIdent).join(', ')})`);
  return `CREATE TABLE IF NOT EXISTS ${qualified} (\n  ${lines.join(',\n  ')}\n)`;
}

export interface Statement {
  readonly text: string;
  readonly values: unknown[];
}

/**
 * The statement for rows that share a table and a column list: `unnestInsert` when every column allows
 * it, else a multi-row `valuesInsert`. A lone row always goes as VALUES (row-by-row isolation).
 */
export function insertStatement(
  qualified: string,
  table: TableInfo | undefined,
  rows: readonly Row[],
  mode: InsertMode,
  pkFields: readonly string[],
  unnest = true,
): Statement {
  return (
    (unnest && rows.length > 1 ? unnestInsert(qualified, table, rows, mode, pkFields) : undefined) ??
    valuesInsert(qualified, table, rows, mode, pkFields)
  );
}

/** `INSERT … VALUES ($1,…),(…)`: one bind parameter per value, so Postgres parses and plans rows × columns parameters. */
export function valuesInsert(
  qualified: string,
  table: TableInfo | undefined,
  rows: readonly Row[],
  mode: InsertMode,
  pkFields: readonly string[],
): Statement {
  const columns = rows[0]!.columns;
  const infos = columns.map((c) => table?.get(c));
  const values: unknown[] = [];
  const tuples: string[] = [];
  for (const row of rows) {
    const slots: string[] = [];
    row.values.forEach((v, i) => {
      values.push(encodeValue(v, infos[i]));
      slots.push(`$${values.length}`);
    });
    tuples.push(`(${slots.join(',')})`);
  }
  const text = `INSERT INTO ${qualified} (${columns.map(quoteIdent).join(', ')}) VALUES ${tuples.join(',')}`;
  return { text: text + conflictClause(columns, mode, pkFields), values };
}

/**
 * `INSERT … SELECT * FROM unnest($1::type[], …)`: one array parameter per column, whatever the row
 * count. Against a multi-row VALUES this saves the server parsing and planning rows × columns
 * parameters, and the client preparing each one: about a third of a 500-row put's time. Undefined
 * when a column's type is unknown (an undefined column: VALUES reports it properly) or an array (a
 * one-dimensional unnest cannot carry a column of arrays). Each array is cast to the column's type
 * by its schema-qualified internal name and without its modifier: a too-long varchar then fails on
 * assignment as with VALUES, where an explicit cast to varchar(3), or to the SQL name `character`
 * (meaning char(1)), would silently truncate.
 */
export function unnestInsert(
  qualified: string,
  table: TableInfo | undefined,
  rows: readonly Row[],
  mode: InsertMode,
  pkFields: readonly string[],
): Statement | undefined {
  const columns = rows[0]!.columns;
  const infos: ColumnInfo[] = [];
  for (const c of columns) {
    const info = table?.get(c);
    if (info === undefined || info.category === 'A' || info.sqlType === '') return undefined;
    infos.push(info);
  }
  const values = infos.map((info, i) => {
    const elements = new Array<string>(rows.length);
    for (let r = 0; r < rows.length; r++) elements[r] = arrayElement(encodeValue(rows[r]!.values[i], info));
    return `{${elements.join(',')}}`;
  });
  const casts = infos.map((info, i) => `$${i + 1}::${info.sqlType}[]`).join(', ');
  const text = `INSERT INTO ${qualified} (${columns.map(quoteIdent).join(', ')}) SELECT * FROM unnest(${casts})`;
  return { text: text + conflictClause(columns, mode, pkFields), values };
}

/**
 * One element of a Postgres array literal, from a value as encodeValue returns it for a non-array
 * column: quoted (so the text `NULL` stays text) with `\` and `"` escaped; bytes in bytea hex form.
 */
export function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Uint8Array) {
    return `"\\\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}"`;
  }
  const text = String(value);
  return `"${text.includes('"') || text.includes('\\') ? text.replace(/["\\]/g, '\\$&') : text}"`;
}

function conflictClause(columns: readonly string[], mode: InsertMode, pkFields: readonly string[]): string {
  if (mode === 'idempotent') return ` ON CONFLICT (${IDEMPOTENCE_KEY.map(quoteIdent).join(', ')}) DO NOTHING`;
  if (mode !== 'upsert') return '';
  const updates = columns.filter((c) => !pkFields.includes(c));
  const target = `ON CONFLICT (${pkFields.map(quoteIdent).join(', ')})`;
  return updates.length === 0
    ? ` ${target} DO NOTHING`
    : ` ${target} DO UPDATE SET ${updates.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`).join(', ')}`;
}

/** Rows per statement: batch.size, or fewer so that rows × columns stays within the parameter limit. */
export function rowsPerStatement(batchSize: number, columnCount: number): number {
  return Math.max(1, Math.min(batchSize, Math.floor(MAX_PARAMETERS / columnCount)));
}
