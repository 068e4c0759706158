/**
 * How a put's rows become statements, before any is run: which rows are superseded by a later one of
 * the same key, and which columns auto.create and auto.evolve declare. Pure.
 */
import { createHash } from 'node:crypto';
import type { JdbcSettings } from './config.js';
import type { Claim, ColumnDef, Dialect, WriteMode } from './dialect.js';
import { lastPerKey, type JdbcRow } from './rows.js';

/** Rows of one table, one operation and one column list. */
export interface Unit {
  readonly table: string;
  readonly op: 'write' | 'delete';
  readonly rows: readonly JdbcRow[];
}

export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
}

/**
 * Whether rows of one key may overwrite each other: a keyed pk.mode with upserts, updates or deletes.
 * Then only the last row per key is written (and, with the order guard, only if newer than the table's).
 */
export function overwrites(s: Pick<JdbcSettings, 'pkMode' | 'insertMode' | 'deleteEnabled'>): boolean {
  return (
    (s.pkMode === 'record_key' || s.pkMode === 'record_value') &&
    (s.insertMode !== 'insert' || s.deleteEnabled)
  );
}

/** insert with pk.mode=kafka upserts: a redelivered record then rewrites its own row instead of failing on it. */
export function writeMode(s: Pick<JdbcSettings, 'pkMode' | 'insertMode'>): WriteMode {
  return s.insertMode === 'insert' && s.pkMode === 'kafka' ? 'upsert' : s.insertMode;
}

/** A table's rows as units: the last per key when rows overwrite each other, then by operation and columns. */
export function units(table: string, rows: readonly JdbcRow[], dedupe: boolean): Unit[] {
  const kept = dedupe ? lastPerKey(rows) : rows;
  const groups = new Map<string, JdbcRow[]>();
  // rows of one batch mostly share their shape: compare with the previous row before making a key
  let last: JdbcRow | undefined;
  let lastGroup: JdbcRow[] | undefined;
  for (const row of kept) {
    if (last !== undefined && row.op === last.op && sameColumns(row.columns, last.columns)) {
      lastGroup!.push(row);
    } else {
      const key = `${row.op}\0${row.columns.join('\0')}`;
      lastGroup = groups.get(key);
      if (lastGroup === undefined) groups.set(key, (lastGroup = []));
      lastGroup.push(row);
    }
    last = row;
  }
  const out: Unit[] = [];
  for (const group of groups.values()) out.push({ table, op: group[0]!.op, rows: group });
  return out;
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The columns auto.create declares for a table's rows: each column's type from its first schema (or
 * its first non-null value), NOT NULL for key columns and for required schema fields every row has.
 */
export function columnDefs(
  rows: readonly JdbcRow[],
  dialect: Pick<Dialect, 'columnType'>,
): { columns: ColumnDef[]; key: string[] } {
  const writes = rows.filter((r) => r.op === 'write');
  const first = writes[0] ?? rows[0]!;
  const key = first.columns.slice(0, first.keyCount);
  const seen = new Map<
    string,
    { schema: JdbcRow['schemas'][number]; sample: unknown; count: number; required: boolean }
  >();
  for (const row of writes) {
    row.columns.forEach((name, i) => {
      const known = seen.get(name);
      const schema = row.schemas[i];
      const sample = row.values[i];
      if (known === undefined) {
        seen.set(name, {
          schema,
          sample,
          count: 1,
          required: schema !== undefined && schema.optional !== true,
        });
        return;
      }
      known.count++;
      if (known.schema === undefined && schema !== undefined) known.schema = schema;
      if ((known.sample === null || known.sample === undefined) && sample !== null) known.sample = sample;
      known.required &&= schema !== undefined && schema.optional !== true;
    });
  }
  if (writes.length === 0)
    first.columns.forEach((name, i) =>
      seen.set(name, { schema: first.schemas[i], sample: first.values[i], count: 1, required: true }),
    );
  const columns = [...seen].map(([name, c]) => {
    const isKey = key.includes(name);
    return {
      name,
      type: dialect.columnType(c.schema, c.sample, isKey),
      notNull: isKey || (c.required && c.count === Math.max(1, writes.length)),
    };
  });
  return { columns, key };
}

/** The order guard's claim for a row: its key, hashed with its table, at its Kafka coordinates. */
export function claimOf(row: JdbcRow): Claim {
  const { topic, partition, offset } = row.record;
  const hash = createHash('sha256').update(`${row.table}\0${row.keyText}`).digest('hex');
  return { hash, table: row.table, topic, partition, offset };
}
