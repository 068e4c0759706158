/** Connect's MaskField: replaces field values with their type's "empty" value or a replacement. */
import { ConfigDef } from '../config-def.js';
import { nonEmptyList, nonEmptyString } from '../config-validators.js';
import { DataError } from '../errors.js';
import { LOGICAL, type Schema, type SchemaType } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';
import { fieldSyntaxDef, replaceNullDef } from './common-config.js';
import {
  copy,
  fieldValue,
  get,
  kindOf,
  put,
  requireMap,
  requireStruct,
  type Data,
  type Operating,
} from './data.js';
import type { Transformation } from './transformation.js';

const PURPOSE = 'mask fields';

export const MASK_FIELD_DEF = new ConfigDef()
  .define({
    name: 'fields',
    type: 'list',
    validator: nonEmptyList('a non-empty comma-separated list of field names'),
    importance: 'high',
    documentation: 'Names of the fields to mask.',
  })
  .define({
    name: 'replacement',
    type: 'string',
    default: null,
    validator: nonEmptyString(),
    importance: 'low',
    documentation:
      'Custom replacement for string and numeric fields (parsed as the field\'s number type). Without it, a field becomes its type\'s empty value: `""`, `0`, `false`, `[]`, `{}`, the epoch for dates.',
  })
  .merge(fieldSyntaxDef())
  .merge(replaceNullDef());

const INTEGER = /^[+-]?\d+$/;
const INT_RANGE: Partial<Record<SchemaType, readonly [number, number]>> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

export class MaskField implements Transformation {
  readonly #side: Operating;
  #fields: readonly string[] = [];
  #maskedSet: ReadonlySet<string> = new Set();
  #replacement: string | null = null;
  #replaceNull = true;

  constructor(side: Operating) {
    this.#side = side;
  }

  configure(props: Readonly<Record<string, string>>): void {
    const v = MASK_FIELD_DEF.parse(props);
    this.#fields = v.fields;
    this.#maskedSet = new Set(v.fields);
    this.#replacement = v.replacement;
    this.#replaceNull = v['replace.null.with.default'];
  }

  apply(record: SinkRecord): SinkRecord {
    // no tombstone pass-through: Connect's MaskField requires a map or struct, so a null fails the record
    const value = this.#side.value(record);
    const schema = this.#side.schema(record);
    if (schema === undefined) {
      const map = requireMap(value, PURPOSE);
      // Connect puts every listed field, so an absent one appears as null
      const out = copy(map);
      for (const name of this.#fields) put(out, name, this.#masked(get(map, name)));
      return this.#side.update(record, undefined, out);
    }
    const struct = requireStruct(schema, value, PURPOSE);
    // listed fields the struct does not have are ignored, as in Connect
    const out: Data = {};
    for (const field of schema.fields ?? []) {
      const v = fieldValue(struct, field, this.#replaceNull);
      put(out, field.name, this.#maskedSet.has(field.name) ? this.#maskedTyped(field.schema, v) : v);
    }
    return this.#side.update(record, schema, out);
  }

  /** Schemaless: the kind of the JS value decides (a JSON integer reads as Connect's Long). */
  #masked(v: unknown): unknown {
    if (v === null || v === undefined) return null;
    const r = this.#replacement;
    if (typeof v === 'string') return r ?? '';
    if (typeof v === 'number')
      return r === null ? 0 : this.#number(Number.isInteger(v) ? 'int64' : 'float64', r);
    if (typeof v === 'bigint') return r === null ? 0n : BigInt(this.#number('int64', r));
    if (r !== null) throw new DataError(`Cannot mask value of type ${kindOf(v)} with custom replacement.`);
    if (typeof v === 'boolean') return false;
    if (v instanceof Date) return new Date(0);
    if (Array.isArray(v)) return [];
    if (typeof v === 'object' && !(v instanceof Uint8Array)) return {};
    throw new DataError(`Cannot mask value of type ${kindOf(v)}`);
  }

  #maskedTyped(schema: Schema, v: unknown): unknown {
    if (v === null || v === undefined) return null;
    const r = this.#replacement;
    if (schema.name === LOGICAL.decimal) return r === null ? '0' : this.#decimal(r);
    if (schema.name === LOGICAL.date || schema.name === LOGICAL.time || schema.name === LOGICAL.timestamp) {
      if (r !== null)
        throw new DataError(`Cannot mask value of type ${schema.name} with custom replacement.`);
      return new Date(0);
    }
    switch (schema.type) {
      case 'string':
        return r ?? '';
      case 'int8':
      case 'int16':
      case 'int32':
      case 'int64':
      case 'float32':
      case 'float64':
        return r === null ? 0 : this.#number(schema.type, r);
      case 'boolean':
      case 'array':
      case 'map':
        if (r !== null)
          throw new DataError(`Cannot mask value of type ${schema.type} with custom replacement.`);
        return schema.type === 'boolean' ? false : schema.type === 'array' ? [] : {};
      default:
        throw new DataError(`Cannot mask value of type ${schema.type}`);
    }
  }

  #number(type: SchemaType, text: string): number {
    const range = INT_RANGE[type];
    if (range !== undefined) {
      const n = INTEGER.test(text.trim()) ? Number(text) : NaN;
      if (!Number.isSafeInteger(n) || n < range[0] || n > range[1])
        throw new DataError(`Unable to convert ${JSON.stringify(text)} to ${type}`);
      return n;
    }
    const n = Number(text);
    if (text.trim() === '' || !Number.isFinite(n))
      throw new DataError(`Unable to convert ${JSON.stringify(text)} to ${type}`);
    return type === 'float32' ? Math.fround(n) : n;
  }

  #decimal(text: string): string {
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text.trim()))
      throw new DataError(`Unable to convert ${JSON.stringify(text)} to Decimal`);
    return text.trim();
  }
}
