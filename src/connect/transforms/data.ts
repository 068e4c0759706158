/**
 * What the built-in transforms share: the key/value side they operate on (Connect's `$Key` / `$Value`
 * variants), and the checks and schema copies Connect's Requirements and SchemaUtil do. Schemaless
 * maps and schema'd structs are both plain objects here (see src/connect/schema.ts); which one a
 * value is follows from whether the record has a schema for it.
 */
import { DataError } from '../errors.js';
import type { Field, Schema } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';

export type Side = 'key' | 'value';

/** Plain-object data: a schemaless map or a struct. */
export type Data = Record<string, unknown>;

/** Reads and replaces one side of a record. */
export interface Operating {
  readonly side: Side;
  schema(record: SinkRecord): Schema | undefined;
  value(record: SinkRecord): unknown;
  update(record: SinkRecord, schema: Schema | undefined, value: unknown): SinkRecord;
}

export const KEY: Operating = Object.freeze({
  side: 'key',
  schema: (r: SinkRecord) => r.keySchema,
  value: (r: SinkRecord) => r.key,
  update: (r: SinkRecord, schema: Schema | undefined, value: unknown) =>
    r.newRecord({ keySchema: schema, key: value }),
});

export const VALUE: Operating = Object.freeze({
  side: 'value',
  schema: (r: SinkRecord) => r.valueSchema,
  value: (r: SinkRecord) => r.value,
  update: (r: SinkRecord, schema: Schema | undefined, value: unknown) =>
    r.newRecord({ valueSchema: schema, value }),
});

export const operating = (side: Side): Operating => (side === 'key' ? KEY : VALUE);

export function isData(value: unknown): value is Data {
  if (typeof value !== 'object' || value === null) return false;
  return !Array.isArray(value) && !(value instanceof Uint8Array) && !(value instanceof Date);
}

/** A short name of a JS value's kind, for "found: …" in messages. */
export function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Date) return 'Date';
  return typeof value;
}

/** Connect's Requirements.requireMap: schemaless data must be a map (a plain object). */
export function requireMap(value: unknown, purpose: string): Data {
  if (!isData(value))
    throw new DataError(
      `Only Map objects supported in absence of schema for [${purpose}], found: ${kindOf(value)}`,
    );
  return value;
}

export function requireMapOrNull(value: unknown, purpose: string): Data | null {
  return value === null || value === undefined ? null : requireMap(value, purpose);
}

/** Connect's Requirements.requireStruct: schema'd data must be a struct. */
export function requireStruct(schema: Schema, value: unknown, purpose: string): Data {
  if (schema.type !== 'struct' || !isData(value))
    throw new DataError(
      `Only Struct objects supported for [${purpose}], found: ${schema.type === 'struct' ? kindOf(value) : schema.type}`,
    );
  return value;
}

export function requireStructOrNull(schema: Schema, value: unknown, purpose: string): Data | null {
  return value === null || value === undefined ? null : requireStruct(schema, value, purpose);
}

/** A field's value; absent reads as null, as Java's Map.get and Struct.get do. */
export function get(data: Data, name: string): unknown {
  return Object.hasOwn(data, name) ? data[name] : null;
}

/** Struct field lookup by name. */
export function fieldOf(schema: Schema, name: string): Field | undefined {
  return schema.fields?.find((f) => f.name === name);
}

/**
 * A new struct schema with the basics of `source` (name, version, doc, parameters) and these fields:
 * Connect's `SchemaUtil.copySchemaBasics(source, SchemaBuilder.struct())`, which leaves optional off.
 */
export function structSchema(source: Schema, fields: readonly Field[]): Schema {
  const schema: { -readonly [K in keyof Schema]: Schema[K] } = { type: 'struct', optional: false };
  if (source.name !== undefined) schema.name = source.name;
  if (source.version !== undefined) schema.version = source.version;
  if (source.doc !== undefined) schema.doc = source.doc;
  if (source.parameters !== undefined) schema.parameters = source.parameters;
  schema.fields = fields;
  return schema;
}

/** Sets a field; `__proto__` goes through defineProperty so it stays a field and never sets the prototype. */
export function put(data: Data, name: string, value: unknown): void {
  if (name === '__proto__')
    Object.defineProperty(data, name, { value, writable: true, enumerable: true, configurable: true });
  else data[name] = value;
}

/** A shallow copy keeping every own field (spread defines properties, so `__proto__` stays a field). */
export const copy = (data: Data): Data => ({ ...data });

/** Builds plain-object data from entries; Object.fromEntries keeps a field named `__proto__` a field. */
export const fromEntries = (entries: Iterable<readonly [string, unknown]>): Data =>
  Object.fromEntries(entries) as Data;

/**
 * A field value under `replace.null.with.default`: a null struct field reads as the field's default
 * when there is one (Connect's Struct.get), or as null with `replace.null.with.default=false`.
 */
export function fieldValue(data: Data, field: Field, replaceNullWithDefault: boolean): unknown {
  const v = get(data, field.name);
  if ((v === null || v === undefined) && replaceNullWithDefault && field.schema.default !== undefined)
    return field.schema.default;
  return v === undefined ? null : v;
}

/** Per-schema cache of derived schemas: schemas are reused across records, so derive each once. */
export class SchemaCache {
  readonly #cache = new WeakMap<Schema, Schema>();

  get(source: Schema, derive: (source: Schema) => Schema): Schema {
    let derived = this.#cache.get(source);
    if (derived === undefined) {
      derived = derive(source);
      this.#cache.set(source, derived);
    }
    return derived;
  }
}
