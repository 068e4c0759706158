/** Connect's Cast: casts the whole value, or some fields, to another primitive type. */
import { ConfigDef } from '../config-def.js';
import { nonEmptyList } from '../config-validators.js';
import { DataError } from '../errors.js';
import { LOGICAL, type Field, type Schema, type SchemaType } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';
import { fieldSyntaxDef, problem, replaceNullDef } from './common-config.js';
import {
  fieldValue,
  copy,
  put,
  type Data,
  get,
  kindOf,
  requireMap,
  requireStruct,
  SchemaCache,
  structSchema,
  type Operating,
} from './data.js';
import { JavaDateFormat } from './java-date-format.js';
import { javaDouble, javaFloat, javaIntCast, parseJavaFloat, parseJavaInteger } from './java-text.js';
import type { Transformation } from './transformation.js';

const PURPOSE = 'cast types';
const TARGETS: readonly SchemaType[] = [
  'int8',
  'int16',
  'int32',
  'int64',
  'float32',
  'float64',
  'boolean',
  'string',
];
const INPUTS = new Set<SchemaType>([...TARGETS, 'bytes']);
const BITS = { int8: 8, int16: 16, int32: 32, int64: 64 } as const;
const WHOLE = '';

export const CAST_DEF = new ConfigDef()
  .define({
    name: 'spec',
    type: 'list',
    validator: nonEmptyList(
      `field:type pairs (a:int32,b:string), or one type to cast the whole value to; types: ${TARGETS.join(', ')}`,
    ),
    importance: 'high',
    documentation:
      'List of `field:type` pairs, or a single type to cast the entire value to. Types: int8, int16, int32, int64, float32, float64, boolean, string.',
  })
  .merge(fieldSyntaxDef())
  .merge(replaceNullDef());

/** `spec` as field → type; the whole-value cast is the single entry under the empty name. */
function parseSpec(spec: readonly string[]): Map<string, SchemaType> {
  const casts = new Map<string, SchemaType>();
  const bad: string[] = [];
  for (const entry of spec) {
    const colon = entry.lastIndexOf(':');
    const field = colon === -1 ? WHOLE : entry.slice(0, colon).trim();
    const type = (colon === -1 ? entry : entry.slice(colon + 1)).trim().toLowerCase() as SchemaType;
    if (!TARGETS.includes(type) || (colon !== -1 && field === '')) bad.push(entry);
    else casts.set(field, type);
  }
  const accepted = `field:type pairs or a single type, types ${TARGETS.join(', ')}`;
  if (bad.length > 0)
    throw problem('spec', `has invalid entries ${bad.map((b) => JSON.stringify(b)).join(', ')}`, accepted);
  if (casts.has(WHOLE) && spec.length > 1)
    throw problem(
      'spec',
      'mixes a whole-value type with other entries',
      `a single type on its own, ${accepted}`,
    );
  return casts;
}

/** The Connect schema type a schemaless value has (a JSON integer is a Long, a fraction a Double). */
function inferType(value: unknown): SchemaType {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(value) ? 'int64' : 'float64';
    default:
      if (value instanceof Uint8Array) return 'bytes';
      throw new DataError(`Cast transformation does not support casting from ${kindOf(value)}`);
  }
}

export function castValue(value: unknown, from: SchemaType, to: SchemaType): unknown {
  if (value === null || value === undefined) return null;
  if (!INPUTS.has(from)) throw new DataError(`Cast transformation does not support casting from ${from}`);
  const fail = (): never => {
    throw new DataError(
      `Cast transformation could not cast ${JSON.stringify(String(value))} (${from}) to ${to}`,
    );
  };
  switch (to) {
    case 'string':
      if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
      if (typeof value === 'number')
        return from === 'float32' ? javaFloat(value) : from === 'float64' ? javaDouble(value) : String(value);
      return String(value);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      // Java: Number.longValue() != 0, so 0.5 is false
      if (typeof value === 'number') return Math.trunc(value) !== 0;
      if (typeof value === 'string') return value.toLowerCase() === 'true';
      return fail();
    case 'float32':
    case 'float64': {
      let n: number | undefined;
      if (typeof value === 'number') n = value;
      else if (typeof value === 'boolean') n = value ? 1 : 0;
      else if (typeof value === 'string') n = parseJavaFloat(value);
      if (n === undefined) return fail();
      return to === 'float32' ? Math.fround(n) : n;
    }
    default: {
      const bits = BITS[to as keyof typeof BITS];
      if (typeof value === 'number') return javaIntCast(value, bits);
      if (typeof value === 'boolean') return value ? 1 : 0;
      if (typeof value === 'string') return parseJavaInteger(value, bits) ?? fail();
      return fail();
    }
  }
}

const DAY_MS = 86_400_000;

/** Java's Values.dateFormatFor: a time of day, a date, or a timestamp, in UTC. */
const TIME_FORMAT = new JavaDateFormat("HH:mm:ss.SSS'Z'");
const DATE_FORMAT = new JavaDateFormat('yyyy-MM-dd');
const TIMESTAMP_FORMAT = new JavaDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");

function dateText(date: Date): string {
  const ms = date.getTime();
  if (ms < DAY_MS) return TIME_FORMAT.format(date);
  return ms % DAY_MS === 0 ? DATE_FORMAT.format(date) : TIMESTAMP_FORMAT.format(date);
}

/**
 * A cast with the value's schema. Logical values are first encoded as Connect encodes them (Date as
 * days, Time and Timestamp as milliseconds) unless the target is string, which formats dates as
 * Connect's Values does; a Decimal (a decimal string here, a BigDecimal in Java) casts as a number.
 */
export function castTyped(value: unknown, schema: Schema, to: SchemaType): unknown {
  if (value === null || value === undefined) return null;
  if (!INPUTS.has(schema.type))
    throw new DataError(`Cast transformation does not support casting from ${schema.type}`);
  if (schema.name === LOGICAL.decimal) {
    if (to === 'string') return String(value);
    const n = Number(value);
    if (!Number.isFinite(n))
      throw new DataError(`Cast transformation could not read the Decimal ${String(value)}`);
    return castValue(n, 'float64', to);
  }
  if (value instanceof Date) {
    if (to === 'string') return dateText(value);
    const ms = value.getTime();
    const encoded = schema.name === LOGICAL.date ? Math.floor(ms / DAY_MS) : ms;
    return castValue(encoded, 'int64', to);
  }
  return castValue(value, schema.type, to);
}

export class Cast implements Transformation {
  readonly #side: Operating;
  readonly #cache = new SchemaCache();
  #casts = new Map<string, SchemaType>();
  #replaceNull = true;

  constructor(side: Operating) {
    this.#side = side;
  }

  configure(props: Readonly<Record<string, string>>): void {
    const v = CAST_DEF.parse(props);
    this.#casts = parseSpec(v.spec);
    this.#replaceNull = v['replace.null.with.default'];
  }

  apply(record: SinkRecord): SinkRecord {
    const schema = this.#side.schema(record);
    const value = this.#side.value(record);
    if (value === null || value === undefined) return record;
    const whole = this.#casts.get(WHOLE);
    if (whole !== undefined) {
      if (schema === undefined)
        return this.#side.update(record, undefined, castValue(value, inferType(value), whole));
      const target = this.#cache.get(schema, (s) => this.#wholeSchema(s, whole));
      return this.#side.update(record, target, castTyped(value, schema, whole));
    }
    if (schema === undefined) {
      const map = requireMap(value, PURPOSE);
      const out = copy(map);
      // Connect puts every cast field, so an absent one appears as null
      for (const [name, type] of this.#casts) {
        const v = get(map, name);
        put(out, name, v === null || v === undefined ? null : castValue(v, inferType(v), type));
      }
      return this.#side.update(record, undefined, out);
    }
    const struct = requireStruct(schema, value, PURPOSE);
    const updated = this.#cache.get(schema, (s) => this.#structSchema(s));
    const out: Data = {};
    for (const field of schema.fields ?? []) {
      const v = fieldValue(struct, field, this.#replaceNull);
      const type = this.#casts.get(field.name);
      put(out, field.name, type === undefined ? v : castTyped(v, field.schema, type));
    }
    return this.#side.update(record, updated, out);
  }

  /** A cast field's schema: the bare target type, keeping optional and the (cast) default. */
  #castSchema(source: Schema, to: SchemaType): Schema {
    if (!INPUTS.has(source.type))
      throw new DataError(`Cast transformation does not support casting from ${source.type}`);
    const schema: { -readonly [K in keyof Schema]: Schema[K] } = {
      type: to,
      optional: source.optional ?? false,
    };
    if (source.default !== undefined && source.default !== null)
      schema.default = castTyped(source.default, source, to);
    return schema;
  }

  /**
   * A whole-value cast keeps the schema's name, version, doc and parameters, as Connect does, except a
   * Connect logical name (Date, Timestamp, …) on another base type, which would describe data that is
   * no longer there (Connect's own JsonConverter cannot write such a value).
   */
  #wholeSchema(source: Schema, to: SchemaType): Schema {
    const schema: { -readonly [K in keyof Schema]: Schema[K] } = { ...this.#castSchema(source, to) };
    const logical = source.name?.startsWith('org.apache.kafka.connect.data.') === true;
    if (source.name !== undefined && !(logical && source.type !== to)) {
      schema.name = source.name;
      if (source.version !== undefined) schema.version = source.version;
    }
    if (source.doc !== undefined) schema.doc = source.doc;
    if (source.parameters !== undefined && !logical) schema.parameters = source.parameters;
    return schema;
  }

  #structSchema(source: Schema): Schema {
    if (source.type !== 'struct')
      throw new DataError(`Only Struct objects supported for [${PURPOSE}], found: ${source.type}`);
    const fields = (source.fields ?? []).map((field): Field => {
      const type = this.#casts.get(field.name);
      return type === undefined ? field : { name: field.name, schema: this.#castSchema(field.schema, type) };
    });
    return structSchema(source, fields);
  }
}
