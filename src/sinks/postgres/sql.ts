import type { ClientBase } from 'pg';
import { DataError } from '../../connect/errors.js';
import type { InsertMode } from './config.js';
import { IDEMPOTENCE_KEY, encodeValue, type ColumnInfo, type ColumnSpec, type Row } from './rows.js';

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
  }>(
    `SELECT c.oid::int8 AS oid, a.attname AS name, t.typname AS type, t.typcategory AS category
       FROM (SELECT to_regclass($1)::oid AS oid) c
       LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       LEFT JOIN pg_type t ON t.oid = a.atttypid`,
    [qualified],
  );
  if (rows.length === 0 || rows[0]!.oid === null) return undefined;
  const columns = new Map<string, ColumnInfo>();
  for (const r of rows) {
    if (r.name !== null) columns.set(r.name, { type: r.type ?? '', category: r.category ?? '' });
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
    row.columns.forEach((column, i) => {
      const spec = row.specs[i]!;
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

/** One multi-row INSERT for rows that share a table and a column list. */
export function insertStatement(
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
  let text = `INSERT INTO ${qualified} (${columns.map(quoteIdent).join(', ')}) VALUES ${tuples.join(',')}`;
  if (mode === 'idempotent') {
    text += ` ON CONFLICT (${IDEMPOTENCE_KEY.map(quoteIdent).join(', ')}) DO NOTHING`;
  } else if (mode === 'upsert') {
    const updates = columns.filter((c) => !pkFields.includes(c));
    const target = `ON CONFLICT (${pkFields.map(quoteIdent).join(', ')})`;
    text +=
      updates.length === 0
        ? ` ${target} DO NOTHING`
        : ` ${target} DO UPDATE SET ${updates.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`).join(', ')}`;
  }
  return { text, values };
}

/** Rows per statement: batch.size, or fewer so that rows × columns stays within the parameter limit. */
export function rowsPerStatement(batchSize: number, columnCount: number): number {
  return Math.max(1, Math.min(batchSize, Math.floor(MAX_PARAMETERS / columnCount)));
}
