/**
 * A record as a row under pk.mode and fields.whitelist, as Confluent's JDBC sink lays it out: the key
 * columns first, then the value's fields. Nothing here knows a database.
 */
import { DataError } from '../../connect/errors.js';
import type { Schema } from '../../connect/schema.js';
import type { SinkRecord } from '../../connect/sink-record.js';
import { isStruct, toJson, type Row } from '../postgres/rows.js';
import { KAFKA_PK_DEFAULT, PRIMITIVE_KEY_DEFAULT, type JdbcSettings } from './config.js';

const TOPIC: Schema = { type: 'string', optional: false };
const PARTITION: Schema = { type: 'int32', optional: false };
const OFFSET: Schema = { type: 'int64', optional: false };

/** One record's row. `columns[0..keyCount)` are the primary key; a delete has only those. */
export interface JdbcRow extends Row {
  readonly op: 'write' | 'delete';
  readonly keyCount: number;
  /** The Connect schema of each column, when the converter gave one: what auto.create declares. */
  readonly schemas: readonly (Schema | undefined)[];
  /** The key values as JSON text: equal keys, equal text. Empty without a key. */
  readonly keyText: string;
}

type RowSettings = Pick<JdbcSettings, 'pkMode' | 'pkFields' | 'fields' | 'deleteEnabled'>;

/**
 * The row for a record, or undefined for a tombstone that is not a delete (delete.enabled=false:
 * skipped, as Confluent's sink does). Throws DataError for a record that cannot be a row.
 */
export function toJdbcRow(record: SinkRecord, table: string, s: RowSettings): JdbcRow | undefined {
  const keyColumns: string[] = [];
  const keyValues: unknown[] = [];
  const keySchemas: (Schema | undefined)[] = [];
  const addKey = (name: string, value: unknown, schema: Schema | undefined): void => {
    if (value === null || value === undefined)
      throw new DataError(`the primary key field ${name} is missing or null`);
    keyColumns.push(name);
    keyValues.push(value);
    keySchemas.push(schema);
  };
  const value = record.value;
  const tombstone = value === null || value === undefined;
  if (tombstone && !s.deleteEnabled) return undefined;
  if (!tombstone && !isStruct(value))
    throw new DataError(
      `the value is a ${Array.isArray(value) ? 'array' : typeof value}, not a struct: the JDBC sink writes a struct's fields as columns (a Struct from a converter with a schema, or a JSON object)`,
    );
  const valueFields = tombstone ? undefined : (value as Record<string, unknown>);

  switch (s.pkMode) {
    case 'kafka': {
      const [t, p, o] = s.pkFields.length === 3 ? s.pkFields : KAFKA_PK_DEFAULT;
      addKey(t!, record.topic, TOPIC);
      addKey(p!, record.partition, PARTITION);
      addKey(o!, record.offset, OFFSET);
      break;
    }
    case 'record_key': {
      const key = record.key;
      if (key === null || key === undefined)
        throw new DataError('the record has no key, and pk.mode=record_key reads the primary key from it');
      if (isStruct(key)) {
        const names = s.pkFields.length > 0 ? s.pkFields : Object.keys(key);
        for (const name of names) addKey(name, key[name], fieldSchema(record.keySchema, name));
      } else {
        if (s.pkFields.length > 1)
          throw new DataError(
            `the key is a ${typeof key}, not a struct, and pk.fields names ${s.pkFields.length} fields`,
          );
        addKey(s.pkFields[0] ?? PRIMITIVE_KEY_DEFAULT, key, record.keySchema);
      }
      break;
    }
    case 'record_value': {
      if (valueFields === undefined)
        throw new DataError('a tombstone has no value to read pk.mode=record_value from');
      const names = s.pkFields.length > 0 ? s.pkFields : Object.keys(valueFields);
      for (const name of names) addKey(name, valueFields[name], fieldSchema(record.valueSchema, name));
      break;
    }
    case 'none':
      break;
  }
  const keyText = keyColumns.length === 0 ? '' : toJson(keyValues);
  if (tombstone) {
    return {
      record,
      table,
      op: 'delete',
      columns: keyColumns,
      values: keyValues,
      schemas: keySchemas,
      keyCount: keyColumns.length,
      keyText,
      superseded: [],
    };
  }
  const columns = keyColumns;
  const values = keyValues;
  const schemas = keySchemas;
  const keyCount = columns.length;
  for (const name of Object.keys(valueFields!)) {
    if (s.fields !== undefined && !s.fields.has(name)) continue;
    if (columns.includes(name)) continue;
    columns.push(name);
    values.push(valueFields![name]);
    schemas.push(fieldSchema(record.valueSchema, name));
  }
  if (columns.length === 0)
    throw new DataError(
      'the row has no columns (an empty struct, or fields.whitelist matches none of its fields)',
    );
  return { record, table, op: 'write', columns, values, schemas, keyCount, keyText, superseded: [] };
}

function fieldSchema(schema: Schema | undefined, name: string): Schema | undefined {
  return schema?.type === 'struct' ? schema.fields?.find((f) => f.name === name)?.schema : undefined;
}

/**
 * The last row per key of one table (records of one key in one partition in offset order; across
 * partitions, batch order), the earlier ones kept as `superseded` for row-by-row isolation. One
 * statement cannot touch a row twice, and the later record wins anyway.
 */
export function lastPerKey(rows: readonly JdbcRow[]): JdbcRow[] {
  const last = new Map<string, JdbcRow>();
  for (const row of rows) {
    const previous = last.get(row.keyText);
    if (previous === undefined) {
      last.set(row.keyText, row);
      continue;
    }
    const older = sameSource(previous, row) && previous.record.offset > row.record.offset;
    const [winner, loser] = older ? [previous, row] : [row, previous];
    last.delete(row.keyText);
    winner.superseded = [...previous.superseded, ...row.superseded, { ...loser, superseded: [] }];
    last.set(row.keyText, winner);
  }
  return [...last.values()];
}

const sameSource = (a: JdbcRow, b: JdbcRow): boolean =>
  a.record.topic === b.record.topic && a.record.partition === b.record.partition;
