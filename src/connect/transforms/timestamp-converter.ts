/** Connect's TimestampConverter: between unix times, formatted strings and the Date/Time/Timestamp types. */
import { ConfigDef } from '../config-def.js';
import { oneOf } from '../config-validators.js';
import { DataError } from '../errors.js';
import { LOGICAL, type Field, type Schema } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';
import { fieldSyntaxDef, problem, replaceNullDef } from './common-config.js';
import {
  fieldValue,
  fromEntries,
  get,
  kindOf,
  requireMap,
  requireStruct,
  SchemaCache,
  structSchema,
  type Operating,
} from './data.js';
import { JavaDateFormat } from './java-date-format.js';
import type { Transformation } from './transformation.js';

const PURPOSE = 'converting timestamp formats';
const TYPES = ['string', 'unix', 'Date', 'Time', 'Timestamp'] as const;
type TimestampType = (typeof TYPES)[number];
const PRECISIONS = ['seconds', 'milliseconds', 'microseconds', 'nanoseconds'] as const;
type Precision = (typeof PRECISIONS)[number];
const DAY_MS = 86_400_000;
/** Milliseconds per unit of each `unix.precision`. */
const UNIT_MS: Readonly<Record<Precision, number>> = {
  seconds: 1000,
  milliseconds: 1,
  microseconds: 1 / 1000,
  nanoseconds: 1 / 1_000_000,
};

export const TIMESTAMP_CONVERTER_DEF = new ConfigDef()
  .define({
    name: 'field',
    type: 'string',
    default: '',
    importance: 'high',
    documentation: 'The field holding the timestamp, or empty for the entire value.',
  })
  .define({
    name: 'target.type',
    type: 'string',
    validator: oneOf(TYPES),
    importance: 'high',
    documentation: 'The timestamp representation to convert to: string, unix, Date, Time or Timestamp.',
  })
  .define({
    name: 'format',
    type: 'string',
    default: '',
    importance: 'medium',
    documentation:
      'A java.text.SimpleDateFormat pattern (UTC), for parsing string timestamps and for `target.type=string`. Letters: G y u M L d D E a H k K h m s S z Z X; week-based ones (w W F Y) are refused.',
  })
  .define({
    name: 'unix.precision',
    type: 'string',
    default: 'milliseconds',
    validator: oneOf(PRECISIONS),
    importance: 'low',
    documentation:
      'The unit of unix timestamps read and written: seconds, milliseconds, microseconds or nanoseconds.',
  })
  .merge(fieldSyntaxDef())
  .merge(replaceNullDef());

const typeSchema = (type: TimestampType, optional: boolean): Schema => {
  switch (type) {
    case 'string':
      return { type: 'string', optional };
    case 'unix':
      return { type: 'int64', optional };
    case 'Date':
      return { type: 'int32', optional, name: LOGICAL.date, version: 1 };
    case 'Time':
      return { type: 'int32', optional, name: LOGICAL.time, version: 1 };
    case 'Timestamp':
      return { type: 'int64', optional, name: LOGICAL.timestamp, version: 1 };
  }
};

export class TimestampConverter implements Transformation {
  readonly #side: Operating;
  readonly #cache = new SchemaCache();
  #field = '';
  #target: TimestampType = 'Timestamp';
  #format: JavaDateFormat | undefined;
  #unitMs = 1;
  #replaceNull = true;

  constructor(side: Operating) {
    this.#side = side;
  }

  configure(props: Readonly<Record<string, string>>): void {
    const v = TIMESTAMP_CONVERTER_DEF.parse(props);
    this.#field = v.field;
    this.#target = v['target.type'] as TimestampType;
    this.#unitMs = UNIT_MS[v['unix.precision'] as Precision];
    this.#replaceNull = v['replace.null.with.default'];
    const pattern = v.format.trim();
    if (pattern !== '') {
      try {
        this.#format = new JavaDateFormat(v.format);
      } catch (error) {
        throw problem(
          'format',
          `${JSON.stringify(v.format)} ${(error as Error).message}`,
          'a java.text.SimpleDateFormat pattern',
        );
      }
    }
    if (this.#target === 'string' && this.#format === undefined)
      throw problem(
        'format',
        'is required with target.type=string',
        'a java.text.SimpleDateFormat pattern such as yyyy-MM-dd',
      );
  }

  apply(record: SinkRecord): SinkRecord {
    const schema = this.#side.schema(record);
    const value = this.#side.value(record);
    if (schema === undefined) {
      if (value === null || value === undefined) return record;
      if (this.#field === '')
        return this.#side.update(record, undefined, this.#convert(value, inferType(value)));
      const map = requireMap(value, PURPOSE);
      // Connect puts the field back converted, so an absent one appears as null
      const entries: [string, unknown][] = Object.entries(map).filter(([k]) => k !== this.#field);
      const v = get(map, this.#field);
      entries.push([this.#field, v === null || v === undefined ? null : this.#convert(v, inferType(v))]);
      return this.#side.update(record, undefined, fromEntries(entries));
    }
    // a null value keeps its place but takes the converted schema, as in Connect
    if (this.#field === '') {
      const target = this.#cache.get(schema, (s) => typeSchema(this.#target, s.optional ?? false));
      const converted =
        value === null || value === undefined ? null : this.#convert(value, schemaType(schema));
      return this.#side.update(record, target, converted);
    }
    const updated = this.#cache.get(schema, (s) => this.#structSchema(s));
    if (value === null || value === undefined) return this.#side.update(record, updated, null);
    const struct = requireStruct(schema, value, PURPOSE);
    const entries = (schema.fields ?? []).map((field): [string, unknown] => {
      const v = fieldValue(struct, field, this.#replaceNull);
      if (field.name !== this.#field || v === null) return [field.name, v];
      return [field.name, this.#convert(v, schemaType(field.schema))];
    });
    return this.#side.update(record, updated, fromEntries(entries));
  }

  /** Only the named field changes; a struct without it passes as it is, as in Connect. */
  #structSchema(source: Schema): Schema {
    const fields = (source.fields ?? []).map((f): Field =>
      f.name === this.#field
        ? { name: f.name, schema: typeSchema(this.#target, f.schema.optional ?? false) }
        : f,
    );
    const schema = structSchema(source, fields);
    // unlike the other field transforms, Connect keeps the struct's optional flag here
    return source.optional === true ? { ...schema, optional: true } : schema;
  }

  #convert(value: unknown, from: TimestampType): unknown {
    const ms = this.#toMillis(value, from);
    switch (this.#target) {
      case 'string':
        return this.#format!.format(new Date(ms));
      case 'unix':
        return Math.trunc(ms / this.#unitMs);
      case 'Date':
        return new Date(Math.floor(ms / DAY_MS) * DAY_MS);
      case 'Time':
        return new Date(((ms % DAY_MS) + DAY_MS) % DAY_MS);
      case 'Timestamp':
        return new Date(ms);
    }
  }

  #toMillis(value: unknown, from: TimestampType): number {
    switch (from) {
      case 'string': {
        if (this.#format === undefined)
          throw new DataError(
            'TimestampConverter requires format option to be specified when using string timestamps',
          );
        if (typeof value !== 'string')
          throw new DataError(`Expected a string timestamp, found ${kindOf(value)}`);
        try {
          return this.#format.parse(value);
        } catch (error) {
          throw new DataError(
            `Could not parse timestamp: value (${value}) does not match pattern (${this.#format.pattern}): ${(error as Error).message}`,
          );
        }
      }
      case 'unix':
        if (typeof value !== 'number')
          throw new DataError(`Expected a unix timestamp, found ${kindOf(value)}`);
        return Math.trunc(value * this.#unitMs);
      default:
        if (!(value instanceof Date)) throw new DataError(`Expected a ${from}, found ${kindOf(value)}`);
        return value.getTime();
    }
  }
}

function inferType(value: unknown): TimestampType {
  if (value instanceof Date) return 'Timestamp';
  // a Long is a unix time; a fraction (Java's Double) is not a timestamp Connect reads
  if (typeof value === 'number' && Number.isInteger(value)) return 'unix';
  if (typeof value === 'string') return 'string';
  throw new DataError(`TimestampConverter does not support ${kindOf(value)} objects as timestamps`);
}

function schemaType(schema: Schema): TimestampType {
  if (schema.name === LOGICAL.timestamp) return 'Timestamp';
  if (schema.name === LOGICAL.date) return 'Date';
  if (schema.name === LOGICAL.time) return 'Time';
  if (schema.type === 'string') return 'string';
  if (schema.type === 'int64') return 'unix';
  throw new DataError(
    `Schema ${schema.name ?? schema.type} does not correspond to a known timestamp type format`,
  );
}
