/**
 * JSON Schema (from the registry) and JSON payloads to Connect data, as Connect's JsonSchemaConverter
 * maps them: object with properties → struct (a property not in `required` is optional), array → array,
 * object with only additionalProperties → map of string keys, string → string, integer → int64,
 * number → float64, boolean → boolean, ["null", T] / oneOf [null, T] → optional T, local $refs. The
 * annotations Connect's own serializer writes are honoured: `connect.type` (int8 … float32, bytes) and
 * the logical types named by `title` (Decimal, Date, Time, Timestamp). Payloads are not validated.
 */
import { DataError } from '../../errors.js';
import { LOGICAL, type Field, type Schema, type SchemaType } from '../../schema.js';
import type { CompiledSchema, ResolvedReference } from './avro-data.js';
import { UnsupportedSchemaError } from './errors.js';

type Node = { [key: string]: unknown } | boolean;
type Read = (value: unknown) => unknown;
interface Mapped {
  readonly schema: Schema;
  readonly read: Read;
}

const identity: Read = (v) => v;
const DAY_MS = 86_400_000;
const CONNECT_TYPES: Readonly<Record<string, SchemaType>> = {
  int8: 'int8',
  int16: 'int16',
  int32: 'int32',
  int64: 'int64',
  float32: 'float32',
  float64: 'float64',
  bytes: 'bytes',
};

function nullable(m: Mapped): Mapped {
  const read = m.read;
  return {
    schema: { ...m.schema, optional: true },
    read: (v) => (v === null || v === undefined ? null : read(v)),
  };
}

class Builder {
  readonly #root: { [key: string]: unknown };
  readonly #refs = new Map<string, Mapped | 'building'>();

  constructor(root: { [key: string]: unknown }) {
    this.#root = root;
  }

  build(node: Node, path: string): Mapped {
    if (typeof node === 'boolean')
      return {
        schema: { type: 'string', optional: true },
        read: (v) => (v === undefined ? null : JSON.stringify(v)),
      };
    const ref = node['$ref'];
    if (typeof ref === 'string') return this.#ref(ref);
    for (const key of ['oneOf', 'anyOf'] as const) {
      const options = node[key];
      if (Array.isArray(options)) {
        const nonNull = (options as Node[]).filter((o) => !(typeof o === 'object' && o['type'] === 'null'));
        if (nonNull.length === 1 && nonNull.length < options.length)
          return nullable(this.build(nonNull[0]!, path));
        if (nonNull.length === 1) return this.build(nonNull[0]!, path);
        throw new UnsupportedSchemaError(
          `${path}: ${key} of several non-null schemas has no Connect equivalent here`,
        );
      }
    }
    let type = node['type'];
    let isNullable = false;
    if (Array.isArray(type)) {
      const types = type.filter((t) => t !== 'null');
      isNullable = types.length < type.length;
      if (types.length !== 1)
        throw new UnsupportedSchemaError(
          `${path}: a type list ${JSON.stringify(type)} has no Connect equivalent`,
        );
      type = types[0];
    }
    if (type === undefined && typeof node['properties'] === 'object') type = 'object';
    const mapped = this.#typed(type, node, path);
    return isNullable ? nullable(mapped) : mapped;
  }

  #typed(type: unknown, node: { [key: string]: unknown }, path: string): Mapped {
    const connectType =
      typeof node['connect.type'] === 'string' ? CONNECT_TYPES[node['connect.type']] : undefined;
    const title = typeof node['title'] === 'string' ? node['title'] : undefined;
    const parameters = node['connect.parameters'] as Record<string, string> | undefined;
    switch (type) {
      case 'string':
        if (connectType === 'bytes')
          return { schema: { type: 'bytes' }, read: (v) => Buffer.from(v as string, 'base64') };
        return { schema: { type: 'string' }, read: identity };
      case 'boolean':
        return { schema: { type: 'boolean' }, read: identity };
      case 'integer':
      case 'number': {
        if (title === LOGICAL.decimal) {
          const scale = Number(parameters?.['scale'] ?? 0);
          return {
            schema: {
              type: 'bytes',
              name: LOGICAL.decimal,
              version: 1,
              parameters: { scale: String(scale) },
            },
            read: (v) => (typeof v === 'number' ? v.toFixed(scale) : String(v)),
          };
        }
        if (title === LOGICAL.date)
          return {
            schema: { type: 'int32', name: LOGICAL.date, version: 1 },
            read: (v) => new Date((v as number) * DAY_MS),
          };
        if (title === LOGICAL.time)
          return {
            schema: { type: 'int32', name: LOGICAL.time, version: 1 },
            read: (v) => new Date(v as number),
          };
        if (title === LOGICAL.timestamp)
          return {
            schema: { type: 'int64', name: LOGICAL.timestamp, version: 1 },
            read: (v) => new Date(v as number),
          };
        const t = connectType ?? (type === 'integer' ? 'int64' : 'float64');
        return { schema: { type: t }, read: identity };
      }
      case 'array': {
        const items = node['items'];
        if (typeof items !== 'object' || items === null || Array.isArray(items))
          throw new UnsupportedSchemaError(`${path}: an array without one "items" schema`);
        const item = this.build(items as Node, `${path}.items`);
        const read = item.read;
        return {
          schema: { type: 'array', valueSchema: item.schema },
          read: (v) => (v as unknown[]).map(read),
        };
      }
      case 'object': {
        const properties = node['properties'];
        if (typeof properties !== 'object' || properties === null) {
          const extra = node['additionalProperties'];
          const values =
            typeof extra === 'object' && extra !== null
              ? this.build(extra as Node, `${path}.additionalProperties`)
              : this.build(true, path);
          const read = values.read;
          return {
            schema: { type: 'map', keySchema: { type: 'string' }, valueSchema: values.schema },
            read: (v) => {
              const out: Record<string, unknown> = {};
              for (const [k, item] of Object.entries(v as object)) out[k] = read(item);
              return out;
            },
          };
        }
        const required = new Set(Array.isArray(node['required']) ? (node['required'] as string[]) : []);
        const entries = Object.entries(properties as Record<string, Node>).map(([name, child]) => {
          const m = this.build(child, `${path}.${name}`);
          return { name, mapped: required.has(name) || m.schema.optional ? m : nullable(m) };
        });
        const fields: Field[] = entries.map((e) => ({ name: e.name, schema: e.mapped.schema }));
        return {
          schema: { type: 'struct', ...(title === undefined ? {} : { name: title }), fields },
          read: (v) => {
            if (typeof v !== 'object' || v === null || Array.isArray(v))
              throw new DataError(`${path}: expected a JSON object`);
            const obj = v as Record<string, unknown>;
            const out: Record<string, unknown> = {};
            for (const e of entries) {
              const item = obj[e.name];
              if ((item === undefined || item === null) && !e.mapped.schema.optional)
                throw new DataError(`${path}.${e.name}: required and missing`);
              out[e.name] = e.mapped.read(item ?? null);
            }
            return out;
          },
        };
      }
      default:
        throw new UnsupportedSchemaError(
          `${path}: the type ${JSON.stringify(type)} has no Connect equivalent`,
        );
    }
  }

  #ref(ref: string): Mapped {
    if (!ref.startsWith('#/'))
      throw new UnsupportedSchemaError(
        `the $ref ${ref} is not local to the schema (references across schemas are not read)`,
      );
    const found = this.#refs.get(ref);
    if (found === 'building')
      throw new UnsupportedSchemaError(`the $ref ${ref} is recursive; Connect schemas cannot be`);
    if (found !== undefined) return found;
    let node: unknown = this.#root;
    for (const part of ref.slice(2).split('/'))
      node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new UnsupportedSchemaError(`the $ref ${ref} points at nothing`);
    this.#refs.set(ref, 'building');
    const mapped = this.build(node as Node, ref);
    this.#refs.set(ref, mapped);
    return mapped;
  }
}

export function compileJsonSchema(
  text: string,
  _references: readonly ResolvedReference[] = [],
): CompiledSchema {
  let root: { [key: string]: unknown };
  try {
    root = JSON.parse(text) as { [key: string]: unknown };
  } catch (cause) {
    throw new UnsupportedSchemaError('the registry returned a JSON Schema that is not JSON', { cause });
  }
  const { schema, read } = new Builder(root).build(root, '$');
  return {
    decode(bytes, offset) {
      let json: unknown;
      try {
        json = JSON.parse(bytes.toString('utf8', offset));
      } catch (cause) {
        throw new DataError('the JSON Schema payload is not JSON', { cause });
      }
      if (json === null && schema.optional !== true)
        throw new DataError('a null payload for a schema that is not optional');
      return { schema, value: json === null ? null : read(json) };
    },
  };
}
