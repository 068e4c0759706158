/**
 * Avro schemas and values to Connect's, as Connect's AvroConverter maps them: record → struct,
 * ["null", T] → optional T, other unions → a struct named io.confluent.connect.avro.Union with one
 * optional field per branch, enum → string, fixed → bytes, map → map of string keys, and the logical
 * types decimal (bytes and fixed), date, time-millis/-micros and timestamp-millis/-micros → Decimal,
 * Date, Time, Timestamp (Connect's Time and Timestamp hold milliseconds: micros are truncated).
 *
 * avsc decodes the body (compiled once per schema, with unions wrapped so a value names its branch and
 * without logical types so the raw value is at hand); a mapper built once from the same schema turns
 * avsc's value into the Connect value.
 */
import type Avsc from 'avsc';
import { requireOptional } from '../../../optional-package.js';
import { DataError } from '../../errors.js';
import { LOGICAL, type Field, type Schema, type SchemaAndValue } from '../../schema.js';
import { decimalFromBytes } from '../json-data.js';
import { UnsupportedSchemaError } from './errors.js';

/** Required when the first schema of its format is compiled, not when a pool thread imports the converters (25–40 ms a library, in every thread). */
const avsc = (): typeof Avsc => requireOptional<typeof Avsc>('avsc', 'AvroConverter');

type AvroJson = string | AvroJson[] | { [key: string]: unknown };
type Read = (value: unknown) => unknown;

interface Mapped {
  readonly schema: Schema;
  readonly read: Read;
}

/** A registry schema made ready to decode, once per schema id. */
export interface CompiledSchema {
  /** Decodes the bytes after the 5-byte header (starting at `offset`) to Connect data. */
  decode(bytes: Buffer, offset: number): SchemaAndValue;
}

/** A referenced schema, in the order it must be read (dependencies first). */
export interface ResolvedReference {
  readonly name: string;
  readonly schema: string;
}

const DAY_MS = 86_400_000;
const UNION = 'io.confluent.connect.avro.Union';
const ENUM = 'io.confluent.connect.avro.Enum';
const identity: Read = (v) => v;

const PRIMITIVES: Readonly<Record<string, Schema['type']>> = {
  boolean: 'boolean',
  int: 'int32',
  long: 'int64',
  float: 'float32',
  double: 'float64',
  bytes: 'bytes',
  string: 'string',
};

class Builder {
  readonly #named = new Map<string, Mapped | 'building'>();

  build(json: AvroJson, namespace: string | undefined): Mapped {
    if (typeof json === 'string') return this.#reference(json, namespace);
    if (Array.isArray(json)) return this.#union(json, namespace);
    const type = json['type'];
    if (typeof type !== 'string' && typeof type !== 'object')
      throw new UnsupportedSchemaError(`an Avro schema without a type: ${JSON.stringify(json)}`);
    const logical = json['logicalType'];
    if (typeof logical === 'string') {
      const mapped = this.#logical(logical, json, namespace);
      if (mapped !== undefined) return mapped;
    }
    switch (type) {
      case 'record':
      case 'error':
        return this.#record(json, namespace);
      case 'enum': {
        const name = fullName(json, namespace);
        const mapped = {
          schema: { type: 'string', name, parameters: { [ENUM]: name } },
          read: identity,
        } as const;
        this.#named.set(name, mapped);
        return mapped;
      }
      case 'fixed': {
        const mapped: Mapped = { schema: { type: 'bytes', name: fullName(json, namespace) }, read: identity };
        this.#named.set(fullName(json, namespace), mapped);
        return mapped;
      }
      case 'array': {
        const items = this.build(json['items'] as AvroJson, namespace);
        const read = items.read;
        return {
          schema: { type: 'array', valueSchema: items.schema },
          read: read === identity ? identity : (v) => (v as unknown[]).map(read),
        };
      }
      case 'map': {
        const values = this.build(json['values'] as AvroJson, namespace);
        const read = values.read;
        return {
          schema: { type: 'map', keySchema: { type: 'string' }, valueSchema: values.schema },
          read:
            read === identity
              ? (v) => ({ ...(v as object) })
              : (v) => {
                  const out: Record<string, unknown> = {};
                  for (const [k, item] of Object.entries(v as object)) out[k] = read(item);
                  return out;
                },
        };
      }
      default:
        return this.build(type as AvroJson, namespace);
    }
  }

  #reference(name: string, namespace: string | undefined): Mapped {
    if (name === 'null')
      throw new UnsupportedSchemaError('the Avro type "null" outside a union has no Connect equivalent');
    const primitive = PRIMITIVES[name];
    if (primitive !== undefined) return { schema: { type: primitive }, read: identity };
    const full = name.includes('.') || namespace === undefined ? name : `${namespace}.${name}`;
    const found = this.#named.get(full) ?? this.#named.get(name);
    if (found === 'building')
      throw new UnsupportedSchemaError(
        `the Avro record ${full} refers to itself; Connect schemas cannot be recursive`,
      );
    if (found === undefined)
      throw new UnsupportedSchemaError(`the Avro schema names ${full}, which it does not define`);
    return found;
  }

  #record(json: { [key: string]: unknown }, namespace: string | undefined): Mapped {
    const name = fullName(json, namespace);
    const inner = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : namespace;
    this.#named.set(name, 'building');
    const fields = (json['fields'] as Array<{ name: string; type: AvroJson }>).map((f) => ({
      name: f.name,
      mapped: this.build(f.type, inner),
    }));
    const schema: Schema = {
      type: 'struct',
      name,
      fields: fields.map((f): Field => ({ name: f.name, schema: f.mapped.schema })),
    };
    const names = fields.map((f) => f.name);
    const reads = fields.map((f) => f.mapped.read);
    const count = names.length;
    const read: Read = (v) => {
      const record = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (let i = 0; i < count; i++) {
        const field = names[i]!;
        out[field] = reads[i]!(record[field]);
      }
      return out;
    };
    const mapped = { schema, read };
    this.#named.set(name, mapped);
    return mapped;
  }

  /** avsc's wrapped union value is null or an object whose one key names the branch. */
  #union(branches: AvroJson[], namespace: string | undefined): Mapped {
    const hasNull = branches.some((b) => b === 'null');
    const others = branches.filter((b) => b !== 'null');
    const mapped = others.map((b) => ({ key: branchName(b, namespace), mapped: this.build(b, namespace) }));
    if (mapped.length === 0) throw new UnsupportedSchemaError('an Avro union of only "null"');
    if (mapped.length === 1) {
      const only = mapped[0]!;
      const key = only.key;
      const read = only.mapped.read;
      return {
        schema: { ...only.mapped.schema, optional: true },
        read: (v) => (v === null || v === undefined ? null : read((v as Record<string, unknown>)[key])),
      };
    }
    const fields = mapped.map((m) => ({
      name: m.key.slice(m.key.lastIndexOf('.') + 1),
      schema: { ...m.mapped.schema, optional: true },
    }));
    const byKey = new Map(mapped.map((m, i) => [m.key, { field: fields[i]!.name, read: m.mapped.read }]));
    return {
      schema: { type: 'struct', name: UNION, optional: hasNull, fields },
      read: (v) => {
        if (v === null || v === undefined) return null;
        const key = Object.keys(v)[0]!;
        const branch = byKey.get(key);
        if (branch === undefined) throw new DataError(`Avro union value of an unknown branch ${key}`);
        const out: Record<string, unknown> = {};
        for (const f of fields) out[f.name] = null;
        out[branch.field] = branch.read((v as Record<string, unknown>)[key]);
        return out;
      },
    };
  }

  #logical(
    logical: string,
    json: { [key: string]: unknown },
    namespace: string | undefined,
  ): Mapped | undefined {
    const base = json['type'];
    switch (`${logical}/${base}`) {
      case 'decimal/bytes':
      case 'decimal/fixed': {
        const scale = Number(json['scale'] ?? 0);
        const precision = json['precision'];
        const parameters: Record<string, string> = { scale: String(scale) };
        if (precision !== undefined) parameters['connect.decimal.precision'] = String(precision);
        const mapped: Mapped = {
          schema: { type: 'bytes', name: LOGICAL.decimal, version: 1, parameters },
          read: (v) => decimalFromBytes(v as Uint8Array, scale),
        };
        if (base === 'fixed') this.#named.set(fullName(json, namespace), mapped);
        return mapped;
      }
      case 'date/int':
        return {
          schema: { type: 'int32', name: LOGICAL.date, version: 1 },
          read: (v) => new Date((v as number) * DAY_MS),
        };
      case 'time-millis/int':
        return {
          schema: { type: 'int32', name: LOGICAL.time, version: 1 },
          read: (v) => new Date(v as number),
        };
      case 'time-micros/long':
        return {
          schema: { type: 'int32', name: LOGICAL.time, version: 1 },
          read: (v) => new Date(Math.floor((v as number) / 1000)),
        };
      case 'timestamp-millis/long':
        return {
          schema: { type: 'int64', name: LOGICAL.timestamp, version: 1 },
          read: (v) => new Date(v as number),
        };
      case 'timestamp-micros/long':
        return {
          schema: { type: 'int64', name: LOGICAL.timestamp, version: 1 },
          read: (v) => new Date(Math.floor((v as number) / 1000)),
        };
      default:
        // Avro's rule: an unknown logical type (uuid, local-timestamp-*, …) reads as its base type
        return undefined;
    }
  }
}

function fullName(json: { [key: string]: unknown }, namespace: string | undefined): string {
  const name = String(json['name']);
  if (name.includes('.')) return name;
  const ns = typeof json['namespace'] === 'string' ? json['namespace'] : namespace;
  return ns ? `${ns}.${name}` : name;
}

/** The key avsc gives a branch in a wrapped union value: the primitive or the qualified name. */
function branchName(json: AvroJson, namespace: string | undefined): string {
  if (typeof json === 'string') {
    if (PRIMITIVES[json] !== undefined) return json;
    return json.includes('.') || namespace === undefined ? json : `${namespace}.${json}`;
  }
  if (Array.isArray(json)) throw new UnsupportedSchemaError('an Avro union directly inside a union');
  const type = json['type'];
  if (type === 'record' || type === 'error' || type === 'enum' || type === 'fixed')
    return fullName(json, namespace);
  if (typeof type === 'string') return type;
  return branchName(type as AvroJson, namespace);
}

function parseJson(text: string, what: string): AvroJson {
  try {
    return JSON.parse(text) as AvroJson;
  } catch (cause) {
    throw new UnsupportedSchemaError(`the registry returned ${what} that is not JSON`, { cause });
  }
}

/**
 * Compiles an Avro schema (the registry's text) into a decoder of Connect data. Referenced schemas
 * (named types the schema uses by name) are read first, in the order given.
 */
export function compileAvro(text: string, references: readonly ResolvedReference[] = []): CompiledSchema {
  const registry: Record<string, Avsc.Type> = {};
  const builder = new Builder();
  for (const ref of references) {
    const json = parseJson(ref.schema, `the referenced Avro schema ${ref.name}`);
    avsc().Type.forSchema(json as Avsc.Schema, { wrapUnions: true, registry });
    builder.build(json, undefined);
  }
  const json = parseJson(text, 'an Avro schema');
  const type = avsc().Type.forSchema(json as Avsc.Schema, { wrapUnions: true, registry });
  const mapped = builder.build(json, undefined);
  const { schema, read } = mapped;
  return {
    decode(bytes, offset) {
      const { value, offset: end } = type.decode(bytes, offset);
      if (end < 0) throw new DataError('the Avro body is cut short (fewer bytes than its schema needs)');
      return { schema, value: read(value) };
    },
  };
}
