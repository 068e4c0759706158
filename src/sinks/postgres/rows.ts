import { DataError } from '../../connect/errors.js';
import { LOGICAL, type Schema } from '../../connect/schema.js';
import type { SinkRecord } from '../../connect/sink-record.js';
import type { InsertMode } from './config.js';

/** Columns that place a row at its Kafka coordinates; the names of Confluent's JDBC sink (pk.mode=kafka). */
export const META = {
  topic: '__connect_topic',
  partition: '__connect_partition',
  offset: '__connect_offset',
  timestamp: '__connect_timestamp',
} as const;
export const IDEMPOTENCE_KEY: readonly string[] = [META.topic, META.partition, META.offset];

/** A column as auto.create would declare it. */
export interface ColumnSpec {
  readonly type: string;
  readonly notNull: boolean;
}

/** One record as a row: `values[i]` belongs in `columns[i]`, still unencoded (see encodeValue). */
export interface Row {
  readonly record: SinkRecord;
  readonly table: string;
  readonly columns: readonly string[];
  readonly values: readonly unknown[];
  /** Upsert: earlier rows of the same batch with the same key, which this row overwrites. */
  superseded: Row[];
}

const META_SPECS: readonly ColumnSpec[] = [
  { type: 'text', notNull: true },
  { type: 'integer', notNull: true },
  { type: 'bigint', notNull: true },
];

/** The key/value layout, shared by every such row. */
const KV_COLUMNS: readonly string[] = [...IDEMPOTENCE_KEY, META.timestamp, 'key', 'value'];
const KV_SPECS: readonly ColumnSpec[] = [
  ...META_SPECS,
  { type: 'timestamptz', notNull: false },
  { type: 'text', notNull: false },
  { type: 'jsonb', notNull: false },
];

/** Plain objects are structs (Connect Structs and string-keyed maps arrive as them); the rest is not. */
export function isStruct(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The row for a record. A struct value becomes one column per field (plus the idempotence key in
 * idempotent mode); any other value uses the key/value layout: the Kafka coordinates, the
 * timestamp, `key` as text and `value` as jsonb. Throws DataError for a record that cannot be a row.
 */
export function toRow(record: SinkRecord, table: string, mode: InsertMode, pkFields: readonly string[]): Row {
  const { value } = record;
  let columns: readonly string[];
  let values: unknown[];
  if (isStruct(value)) {
    const fields = Object.keys(value);
    values = fields.map((c) => value[c]);
    if (mode === 'idempotent') {
      fields.push(...IDEMPOTENCE_KEY);
      values.push(record.topic, record.partition, record.offset);
    }
    columns = fields;
  } else {
    columns = KV_COLUMNS;
    values = [
      record.topic,
      record.partition,
      record.offset,
      record.timestamp === null ? null : new Date(record.timestamp),
      keyText(record.key),
      value,
    ];
  }
  if (columns.length === 0) throw new DataError('the value is a struct with no fields');
  if (mode === 'upsert') {
    for (const pk of pkFields) {
      const at = columns.indexOf(pk);
      if (at < 0 || values[at] === null || values[at] === undefined)
        throw new DataError(`the primary key field ${pk} is missing or null`);
    }
  }
  return { record, table, columns, values, superseded: [] };
}

/**
 * The row's columns as auto.create would declare them. Only CREATE TABLE needs this, so it is worked
 * out then rather than for every row written.
 */
export function columnSpecs(row: Row): readonly ColumnSpec[] {
  const { value, valueSchema } = row.record;
  if (!isStruct(value)) return KV_SPECS;
  const fieldCount = Object.keys(value).length;
  const fields = valueSchema?.type === 'struct' ? valueSchema.fields : undefined;
  return row.columns.map((c, i) =>
    i >= fieldCount
      ? META_SPECS[i - fieldCount]!
      : columnSpec(fields?.find((f) => f.name === c)?.schema, row.values[i]),
  );
}

function keyText(key: unknown): string | null {
  if (key === null || key === undefined) return null;
  if (typeof key === 'string') return key;
  if (key instanceof Uint8Array) return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString();
  return toJson(key);
}

/**
 * Column type for auto.create: from the Connect schema when the converter had one, else guessed from
 * the value. Schemaless numbers become numeric, which takes both 1 and 1.5: a guessed bigint would
 * make the first fractional value a bad record.
 */
export function columnSpec(schema: Schema | undefined, sample: unknown): ColumnSpec {
  if (schema !== undefined) return { type: schemaType(schema), notNull: schema.optional !== true };
  return { type: guessType(sample), notNull: false };
}

function schemaType(schema: Schema): string {
  switch (schema.name) {
    case LOGICAL.decimal:
      return 'numeric';
    case LOGICAL.date:
      return 'date';
    case LOGICAL.time:
      return 'time';
    case LOGICAL.timestamp:
      return 'timestamptz';
  }
  switch (schema.type) {
    case 'int8':
    case 'int16':
      return 'smallint';
    case 'int32':
      return 'integer';
    case 'int64':
      return 'bigint';
    case 'float32':
      return 'real';
    case 'float64':
      return 'double precision';
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'text';
    case 'bytes':
      return 'bytea';
    default:
      return 'jsonb';
  }
}

function guessType(sample: unknown): string {
  if (typeof sample === 'string' || sample === null || sample === undefined) return 'text';
  if (typeof sample === 'number' || typeof sample === 'bigint') return 'numeric';
  if (typeof sample === 'boolean') return 'boolean';
  if (sample instanceof Uint8Array) return 'bytea';
  if (sample instanceof Date) return 'timestamptz';
  return 'jsonb';
}

/** What the table says about a column, enough to encode values for it. */
export interface ColumnInfo {
  /** pg_type.typname: int4, text, jsonb, _text, … */
  readonly type: string;
  /** pg_type.typcategory: A for arrays. */
  readonly category: string;
  /** The type as a cast target, schema-qualified and quoted: `pg_catalog.int4`, `"my schema".mood`. */
  readonly sqlType: string;
}

/**
 * A value as a query parameter for a column of the given type. node-postgres turns JS arrays into
 * Postgres arrays and Dates into local-time timestamps, so json columns get JSON text, date and time
 * columns get UTC text (Connect's Date and Time are UTC), and only array columns receive arrays.
 */
export function encodeValue(value: unknown, column: ColumnInfo | undefined): unknown {
  if (value === null || value === undefined) return null;
  const type = column?.type;
  if (type === 'json' || type === 'jsonb') return toJson(value);
  if (value instanceof Date) {
    const iso = value.toISOString();
    if (type === 'date') return iso.slice(0, 10);
    if (type === 'time' || type === 'timetz') return iso.slice(11, 23);
    return iso;
  }
  if (value instanceof Uint8Array) {
    const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return type === 'bytea' || type === undefined ? bytes : bytes.toString('utf8');
  }
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value) && column?.category === 'A') return value;
  if (typeof value === 'object') return toJson(value);
  return value;
}

/** JSON text; bytes as base64 and Maps as objects, as the file sink and Connect's JsonConverter write them. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    const original = this[key];
    if (original instanceof Uint8Array) return Buffer.from(original).toString('base64');
    if (original instanceof Map) return Object.fromEntries(original);
    return typeof v === 'bigint' ? v.toString() : v;
  });
}

/**
 * Upsert: keeps the last row per primary key. One INSERT … ON CONFLICT DO UPDATE cannot touch a row
 * twice, and the later record wins anyway; the earlier ones ride along for row-by-row isolation.
 */
export function dedupeByKey(rows: readonly Row[], pkFields: readonly string[]): Row[] {
  const last = new Map<string, Row>();
  for (const row of rows) {
    const key = toJson(pkFields.map((pk) => row.values[row.columns.indexOf(pk)]));
    const previous = last.get(key);
    if (previous !== undefined) {
      last.delete(key);
      row.superseded = [...previous.superseded, { ...previous, superseded: [] }];
    }
    last.set(key, row);
  }
  return [...last.values()];
}
