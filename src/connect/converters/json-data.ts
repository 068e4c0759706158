import { DataError } from '../errors.js';
import { LOGICAL, type Field, type Schema, type SchemaType } from '../schema.js';

/**
 * Connect's JSON envelope format: schemas as JSON objects and values converted with their schema.
 * Objects are built with Object.fromEntries so a field named `__proto__` stays a plain field.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const TYPES = new Set<SchemaType>([
  'int8',
  'int16',
  'int32',
  'int64',
  'float32',
  'float64',
  'boolean',
  'string',
  'bytes',
  'array',
  'map',
  'struct',
]);
const INT_RANGE: Partial<Record<SchemaType, [number, number]>> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};
const DAY_MS = 86_400_000;

export type DecimalFormat = 'BASE64' | 'NUMERIC';

export interface JsonDataOptions {
  decimalFormat: DecimalFormat;
  replaceNullWithDefault: boolean;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(schema: Schema): string {
  return schema.name ?? schema.type;
}

export function schemaFromJson(json: Json, options: JsonDataOptions): Schema | undefined {
  if (json === null) return undefined;
  if (!isObject(json)) throw new DataError('A schema must be a JSON object or null');
  const type = json['type'];
  if (typeof type !== 'string' || !TYPES.has(type as SchemaType)) {
    throw new DataError(`Unknown schema type ${JSON.stringify(type)}`);
  }
  const base: { -readonly [K in keyof Schema]: Schema[K] } = {
    type: type as SchemaType,
    optional: json['optional'] === true,
  };
  if (typeof json['name'] === 'string') base.name = json['name'];
  if (typeof json['version'] === 'number') base.version = json['version'];
  if (typeof json['doc'] === 'string') base.doc = json['doc'];
  if (isObject(json['parameters'])) {
    base.parameters = Object.fromEntries(Object.entries(json['parameters']).map(([k, v]) => [k, String(v)]));
  }
  if (type === 'struct') {
    const fields = json['fields'];
    if (!Array.isArray(fields)) throw new DataError('A struct schema needs a "fields" array');
    base.fields = fields.map((f): Field => {
      if (!isObject(f) || typeof f['field'] !== 'string')
        throw new DataError('A struct field needs a "field" name');
      return { name: f['field'], schema: schemaFromJson(f, options)! };
    });
  } else if (type === 'array') {
    base.valueSchema = required(schemaFromJson(json['items'] ?? null, options), 'array', 'items');
  } else if (type === 'map') {
    base.keySchema = required(schemaFromJson(json['keys'] ?? null, options), 'map', 'keys');
    base.valueSchema = required(schemaFromJson(json['values'] ?? null, options), 'map', 'values');
  }
  if (json['default'] !== undefined && json['default'] !== null) {
    base.default = valueFromJson({ ...base, optional: true }, json['default'], options);
  }
  return base;
}

function required(schema: Schema | undefined, type: string, key: string): Schema {
  if (schema === undefined) throw new DataError(`A ${type} schema needs "${key}"`);
  return schema;
}

export function schemaToJson(schema: Schema | undefined, fieldName?: string): Json {
  if (schema === undefined) return null;
  const out: [string, Json][] = [['type', schema.type]];
  if (schema.type === 'struct') {
    out.push(['fields', (schema.fields ?? []).map((f) => schemaToJson(f.schema, f.name))]);
  } else if (schema.type === 'array') {
    out.push(['items', schemaToJson(schema.valueSchema)]);
  } else if (schema.type === 'map') {
    out.push(['keys', schemaToJson(schema.keySchema)], ['values', schemaToJson(schema.valueSchema)]);
  }
  out.push(['optional', schema.optional === true]);
  if (schema.name !== undefined) out.push(['name', schema.name]);
  if (schema.version !== undefined) out.push(['version', schema.version]);
  if (schema.doc !== undefined) out.push(['doc', schema.doc]);
  if (schema.parameters !== undefined) out.push(['parameters', { ...schema.parameters }]);
  if (schema.default !== undefined && schema.default !== null) {
    out.push([
      'default',
      valueToJson(schema, schema.default, { decimalFormat: 'BASE64', replaceNullWithDefault: true }),
    ]);
  }
  if (fieldName !== undefined) out.push(['field', fieldName]);
  return Object.fromEntries(out) as JsonObject;
}

/** Payload JSON to a Connect value, checked against `schema`. */
export function valueFromJson(schema: Schema, json: Json | undefined, options: JsonDataOptions): unknown {
  if (json === null || json === undefined) {
    if (options.replaceNullWithDefault && schema.default !== undefined) return schema.default;
    if (schema.optional) return null;
    throw new DataError(`Invalid null value for required ${describe(schema)} field`);
  }
  const fail = (): never => {
    throw new DataError(`Expected ${describe(schema)}, got ${JSON.stringify(json).slice(0, 60)}`);
  };
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64': {
      const [min, max] = INT_RANGE[schema.type]!;
      if (typeof json !== 'number' || !Number.isInteger(json) || json < min || json > max) return fail();
      if (schema.name === LOGICAL.date) return new Date(json * DAY_MS);
      if (schema.name === LOGICAL.time || schema.name === LOGICAL.timestamp) return new Date(json);
      return json;
    }
    case 'float32':
    case 'float64':
      return typeof json === 'number' ? json : fail();
    case 'boolean':
      return typeof json === 'boolean' ? json : fail();
    case 'string':
      return typeof json === 'string' ? json : fail();
    case 'bytes':
      if (schema.name === LOGICAL.decimal) {
        const scale = Number(schema.parameters?.['scale'] ?? 0);
        if (typeof json === 'number') return scaleDecimal(json.toFixed(scale).replace('.', ''), scale);
        return typeof json === 'string' ? decimalFromBytes(Buffer.from(json, 'base64'), scale) : fail();
      }
      return typeof json === 'string' ? Buffer.from(json, 'base64') : fail();
    case 'array':
      return Array.isArray(json)
        ? json.map((item) => valueFromJson(schema.valueSchema!, item, options))
        : fail();
    case 'map':
      return mapFromJson(schema, json, options) ?? fail();
    case 'struct': {
      if (!isObject(json)) return fail();
      return Object.fromEntries(
        (schema.fields ?? []).map((f) => [f.name, valueFromJson(f.schema, json[f.name] ?? null, options)]),
      );
    }
  }
}

function mapFromJson(schema: Schema, json: Json, options: JsonDataOptions): unknown {
  const keySchema = schema.keySchema!;
  const valueSchema = schema.valueSchema!;
  if (keySchema.type === 'string' && isObject(json)) {
    return Object.fromEntries(
      Object.entries(json).map(([k, v]) => [k, valueFromJson(valueSchema, v, options)]),
    );
  }
  if (!Array.isArray(json)) return undefined;
  const map = new Map<unknown, unknown>();
  for (const entry of json) {
    if (!Array.isArray(entry) || entry.length !== 2) return undefined;
    map.set(valueFromJson(keySchema, entry[0], options), valueFromJson(valueSchema, entry[1], options));
  }
  return map;
}

/** A Connect value to payload JSON; with no schema, only JSON-shaped values, Buffers and Maps pass. */
export function valueToJson(schema: Schema | undefined, value: unknown, options: JsonDataOptions): Json {
  if (schema === undefined) return schemalessToJson(value);
  if (value === null || value === undefined) {
    if (schema.default !== undefined) return valueToJson(schema, schema.default, options);
    if (schema.optional) return null;
    throw new DataError(`Invalid null value for required ${describe(schema)} field`);
  }
  const fail = (): never => {
    throw new DataError(`Value of type ${typeof value} does not match schema ${describe(schema)}`);
  };
  if (value instanceof Date) {
    if (schema.name === LOGICAL.date) return Math.floor(value.getTime() / DAY_MS);
    if (schema.name === LOGICAL.time || schema.name === LOGICAL.timestamp) return value.getTime();
    return fail();
  }
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
    case 'float32':
    case 'float64':
      return typeof value === 'number' ? value : fail();
    case 'boolean':
      return typeof value === 'boolean' ? value : fail();
    case 'string':
      return typeof value === 'string' ? value : fail();
    case 'bytes':
      if (schema.name === LOGICAL.decimal && (typeof value === 'string' || typeof value === 'number')) {
        const scale = Number(schema.parameters?.['scale'] ?? 0);
        const unscaled = unscale(String(value), scale);
        return options.decimalFormat === 'NUMERIC'
          ? Number(String(value))
          : decimalToBytes(unscaled).toString('base64');
      }
      return value instanceof Uint8Array ? Buffer.from(value).toString('base64') : fail();
    case 'array':
      return Array.isArray(value)
        ? value.map((item) => valueToJson(schema.valueSchema, item, options))
        : fail();
    case 'map': {
      const entries =
        value instanceof Map
          ? [...value.entries()]
          : typeof value === 'object'
            ? Object.entries(value)
            : fail();
      if (schema.keySchema?.type === 'string') {
        return Object.fromEntries(
          entries.map(([k, v]) => [String(k), valueToJson(schema.valueSchema, v, options)]),
        );
      }
      return entries.map(([k, v]) => [
        valueToJson(schema.keySchema, k, options),
        valueToJson(schema.valueSchema, v, options),
      ]);
    }
    case 'struct': {
      if (typeof value !== 'object') return fail();
      const record = value as Record<string, unknown>;
      return Object.fromEntries(
        (schema.fields ?? []).map((f) => [f.name, valueToJson(f.schema, record[f.name], options)]),
      );
    }
  }
}

function schemalessToJson(value: unknown): Json {
  const text = JSON.stringify(
    value ?? null,
    function (this: Record<string, unknown>, key: string, v: unknown) {
      const original = this[key];
      if (original instanceof Uint8Array) return Buffer.from(original).toString('base64');
      if (original instanceof Map) return Object.fromEntries(original);
      return v;
    },
  );
  return JSON.parse(text) as Json;
}

/** A Decimal's value from its two's-complement big-endian unscaled bytes (Connect's Decimal encoding, Avro's too). */
export function decimalFromBytes(bytes: Uint8Array, scale: number): string {
  let unscaled = 0n;
  for (const byte of bytes) unscaled = (unscaled << 8n) | BigInt(byte);
  if (bytes.length > 0 && (bytes[0]! & 0x80) !== 0) unscaled -= 1n << BigInt(bytes.length * 8);
  return scaleDecimal(unscaled.toString(), scale);
}

function scaleDecimal(digits: string, scale: number): string {
  if (scale <= 0) return digits;
  const negative = digits.startsWith('-');
  const abs = (negative ? digits.slice(1) : digits).padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${abs.slice(0, -scale)}.${abs.slice(-scale)}`;
}

function unscale(decimal: string, scale: number): bigint {
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(decimal.trim());
  if (match === null) throw new DataError(`${JSON.stringify(decimal)} is not a decimal number`);
  const fraction = (match[3] ?? '').padEnd(scale, '0');
  if (fraction.length > scale) throw new DataError(`${decimal} has more than ${scale} decimal places`);
  return BigInt(`${match[1]}${match[2] || '0'}${fraction}`);
}

function decimalToBytes(unscaled: bigint): Buffer {
  const bytes: number[] = [];
  let rest = unscaled;
  do {
    bytes.unshift(Number(rest & 0xffn));
    rest >>= 8n;
  } while (!(rest === 0n && (bytes[0]! & 0x80) === 0) && !(rest === -1n && (bytes[0]! & 0x80) !== 0));
  return Buffer.from(bytes);
}
