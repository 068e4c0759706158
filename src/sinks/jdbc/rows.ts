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
export function toJdbcRow(
  record: SinkRecord,
  table: string,
  s: RowSettings,
  shapes: RowShapes = new RowShapes(),
): JdbcRow | undefined {
  const value = record.value;
  const tombstone = value === null || value === undefined;
  if (tombstone && !s.deleteEnabled) return undefined;
  if (!tombstone && !isStruct(value))
    throw new DataError(
      `the value is a ${Array.isArray(value) ? 'array' : typeof value}, not a struct: the JDBC sink writes a struct's fields as columns (a Struct from a converter with a schema, or a JSON object)`,
    );
  const valueFields = tombstone ? undefined : (value as Record<string, unknown>);
  const columns = shapes.begin();
  const values: unknown[] = [];
  const schemas = new SchemaList();

  switch (s.pkMode) {
    case 'kafka': {
      const [t, p, o] = s.pkFields.length === 3 ? s.pkFields : KAFKA_PK_DEFAULT;
      addKey(columns, values, schemas, t!, record.topic, TOPIC);
      addKey(columns, values, schemas, p!, record.partition, PARTITION);
      addKey(columns, values, schemas, o!, record.offset, OFFSET);
      break;
    }
    case 'record_key': {
      const key = record.key;
      if (key === null || key === undefined)
        throw new DataError('the record has no key, and pk.mode=record_key reads the primary key from it');
      if (isStruct(key)) {
        const names = s.pkFields.length > 0 ? s.pkFields : Object.keys(key);
        for (const name of names)
          addKey(columns, values, schemas, name, key[name], fieldSchema(record.keySchema, name));
      } else {
        if (s.pkFields.length > 1)
          throw new DataError(
            `the key is a ${typeof key}, not a struct, and pk.fields names ${s.pkFields.length} fields`,
          );
        addKey(columns, values, schemas, s.pkFields[0] ?? PRIMITIVE_KEY_DEFAULT, key, record.keySchema);
      }
      break;
    }
    case 'record_value': {
      if (valueFields === undefined)
        throw new DataError('a tombstone has no value to read pk.mode=record_value from');
      const names = s.pkFields.length > 0 ? s.pkFields : Object.keys(valueFields);
      for (const name of names)
        addKey(columns, values, schemas, name, valueFields[name], fieldSchema(record.valueSchema, name));
      break;
    }
    case 'none':
      break;
  }
  const keyCount = columns.length;
  const keyText = keyCount === 0 ? '' : toJson(values);
  if (tombstone) {
    const keys = shapes.end();
    return {
      record,
      table,
      op: 'delete',
      columns: keys,
      values,
      schemas: schemas.end(),
      keyCount,
      keyText,
      superseded: NONE,
    };
  }
  // per record, so plain loops: no closure or lookup that does not depend on the record
  const fields = s.fields;
  const valueSchema = record.valueSchema?.type === 'struct' ? record.valueSchema : undefined;
  for (const name in valueFields) {
    if (fields !== undefined && !fields.has(name)) continue;
    if (keyCount > 0 && columns.isKey(name, keyCount)) continue;
    columns.push(name);
    values.push(valueFields[name]);
    schemas.push(valueSchema === undefined ? undefined : fieldSchema(valueSchema, name));
  }
  if (columns.length === 0)
    throw new DataError(
      'the row has no columns (an empty struct, or fields.whitelist matches none of its fields)',
    );
  const names = shapes.end();
  return {
    record,
    table,
    op: 'write',
    columns: names,
    values,
    schemas: schemas.end(),
    keyCount,
    keyText,
    superseded: NONE,
  };
}

/** No superseded rows: shared, since lastPerKey assigns a new array rather than adding to this one. */
const NONE: JdbcRow[] = Object.freeze([]) as unknown as JdbcRow[];
/** Every column without a schema (a schemaless converter): `schemas[i]` is undefined for every i. */
const NO_SCHEMAS: readonly (Schema | undefined)[] = Object.freeze([]);

/**
 * The column names of consecutive rows. Rows of one batch mostly have the same fields in the same
 * order, so a row gets the previous row's array while its names match it, and an array of its own
 * only from the first name that differs: one array per shape instead of one per row (and the
 * grouping in plan.ts then finds equal shapes by identity).
 */
export class RowShapes {
  #previous: readonly string[] = [];
  #length = 0;
  #own: string[] | undefined;

  begin(): this {
    this.#length = 0;
    this.#own = undefined;
    return this;
  }

  get length(): number {
    return this.#length;
  }

  push(name: string): void {
    const own = this.#own;
    if (own !== undefined) own.push(name);
    else if (this.#previous[this.#length] !== name)
      (this.#own = this.#previous.slice(0, this.#length)).push(name);
    this.#length++;
  }

  /** Whether `name` is one of the first `keyCount` names of this row (its key columns). */
  isKey(name: string, keyCount: number): boolean {
    for (let i = 0; i < keyCount; i++) if (this.#at(i) === name) return true;
    return false;
  }

  end(): readonly string[] {
    const out: readonly string[] =
      this.#own ??
      (this.#length === this.#previous.length ? this.#previous : this.#previous.slice(0, this.#length));
    this.#previous = out;
    return out;
  }

  #at(i: number): string | undefined {
    return this.#own !== undefined ? this.#own[i] : this.#previous[i];
  }
}

/** A row's column schemas, an array only once one is known (a schemaless row shares {@link NO_SCHEMAS}). */
class SchemaList {
  #list: (Schema | undefined)[] | undefined;
  #length = 0;

  push(schema: Schema | undefined): void {
    if (schema !== undefined && this.#list === undefined)
      this.#list = new Array<Schema | undefined>(this.#length).fill(undefined);
    this.#list?.push(schema);
    this.#length++;
  }

  end(): readonly (Schema | undefined)[] {
    return this.#list ?? NO_SCHEMAS;
  }
}

function addKey(
  columns: RowShapes,
  values: unknown[],
  schemas: SchemaList,
  name: string,
  value: unknown,
  schema: Schema | undefined,
): void {
  if (value === null || value === undefined)
    throw new DataError(`the primary key field ${name} is missing or null`);
  columns.push(name);
  values.push(value);
  schemas.push(schema);
}

/** Field schemas by name per struct schema: a converter hands every record of a shape the same schema object. */
const fieldsByName = new WeakMap<Schema, Map<string, Schema>>();

function fieldSchema(schema: Schema | undefined, name: string): Schema | undefined {
  if (schema?.type !== 'struct') return undefined;
  let byName = fieldsByName.get(schema);
  if (byName === undefined) {
    byName = new Map((schema.fields ?? []).map((f) => [f.name, f.schema]));
    fieldsByName.set(schema, byName);
  }
  return byName.get(name);
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
