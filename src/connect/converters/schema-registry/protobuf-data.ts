/**
 * Protobuf schemas (.proto text from the registry) and messages to Connect data, as Connect's
 * ProtobufConverter maps them: message → struct, repeated → array, map → map, enum → string (the
 * value's name), oneof → an optional struct named after the oneof, int32/sint32/sfixed32 → int32,
 * 64-bit and uint32 → int64, float → float32, double → float64, google.protobuf.Timestamp → Timestamp,
 * the wrapper types (google.protobuf.StringValue, …) → optional primitives. Message fields and proto3
 * `optional` fields are optional; other scalars always have a value (proto3 defaults).
 *
 * protobufjs parses the text once per schema id and generates each message's decoder; the message
 * indexes of a record pick the message (the first of the file for [0]).
 */
import type Protobuf from 'protobufjs';
import { requireOptional } from '../../../optional-package.js';
import { DataError } from '../../errors.js';
import { LOGICAL, type Field, type Schema } from '../../schema.js';
import type { CompiledSchema, ResolvedReference } from './avro-data.js';
import { UnsupportedSchemaError } from './errors.js';
import { messageIndexes } from './wire.js';

/** Required when the first schema of its format is compiled, not when a pool thread imports the converters (25–40 ms a library, in every thread). */
const protobufjs = (): typeof Protobuf => requireOptional<typeof Protobuf>('protobufjs', 'ProtobufConverter');

type Read = (value: unknown) => unknown;
interface Mapped {
  readonly schema: Schema;
  readonly read: Read;
}

const identity: Read = (v) => v;
const toNumber: Read = (v) => (typeof v === 'number' ? v : (v as { toNumber(): number }).toNumber());
const toUnsigned: Read = (v) =>
  typeof v === 'number' ? v : (v as { toNumber(unsigned?: boolean): number }).toNumber(true);

const SCALARS: Readonly<Record<string, Mapped>> = {
  double: { schema: { type: 'float64' }, read: identity },
  float: { schema: { type: 'float32' }, read: identity },
  int32: { schema: { type: 'int32' }, read: identity },
  sint32: { schema: { type: 'int32' }, read: identity },
  sfixed32: { schema: { type: 'int32' }, read: identity },
  uint32: { schema: { type: 'int64' }, read: identity },
  fixed32: { schema: { type: 'int64' }, read: identity },
  int64: { schema: { type: 'int64' }, read: toNumber },
  sint64: { schema: { type: 'int64' }, read: toNumber },
  sfixed64: { schema: { type: 'int64' }, read: toNumber },
  uint64: { schema: { type: 'int64' }, read: toUnsigned },
  fixed64: { schema: { type: 'int64' }, read: toUnsigned },
  bool: { schema: { type: 'boolean' }, read: identity },
  string: { schema: { type: 'string' }, read: identity },
  bytes: { schema: { type: 'bytes' }, read: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v as Uint8Array)) },
};

const WRAPPERS: Readonly<Record<string, string>> = {
  '.google.protobuf.DoubleValue': 'double',
  '.google.protobuf.FloatValue': 'float',
  '.google.protobuf.Int64Value': 'int64',
  '.google.protobuf.UInt64Value': 'uint64',
  '.google.protobuf.Int32Value': 'int32',
  '.google.protobuf.UInt32Value': 'uint32',
  '.google.protobuf.BoolValue': 'bool',
  '.google.protobuf.StringValue': 'string',
  '.google.protobuf.BytesValue': 'bytes',
};

function optional(m: Mapped): Mapped {
  const read = m.read;
  return {
    schema: { ...m.schema, optional: true },
    read: (v) => (v === null || v === undefined ? null : read(v)),
  };
}

class Builder {
  readonly #building = new Set<string>();
  readonly #done = new Map<string, Mapped>();

  message(type: Protobuf.Type): Mapped {
    const name = type.fullName;
    const done = this.#done.get(name);
    if (done !== undefined) return done;
    if (name === '.google.protobuf.Timestamp')
      return {
        schema: { type: 'int64', name: LOGICAL.timestamp, version: 1 },
        read: (v) => {
          const t = v as { seconds?: unknown; nanos?: number };
          return new Date((toNumber(t.seconds ?? 0) as number) * 1000 + Math.floor((t.nanos ?? 0) / 1e6));
        },
      };
    const wrapped = WRAPPERS[name];
    if (wrapped !== undefined) {
      const inner = SCALARS[wrapped]!;
      return { schema: inner.schema, read: (v) => inner.read((v as { value: unknown }).value) };
    }
    if (this.#building.has(name))
      throw new UnsupportedSchemaError(
        `the Protobuf message ${name.slice(1)} contains itself; Connect schemas cannot be recursive`,
      );
    this.#building.add(name);
    const fields: Field[] = [];
    const reads: Array<{ name: string; read: Read }> = [];
    const inOneof = new Set<string>();
    for (const oneof of type.oneofsArray) {
      const members = oneof.fieldsArray;
      // proto3 `optional` is a synthetic oneof of one field: the field itself is optional
      if (members.length === 1 && members[0]!.options?.['proto3_optional'] === true) continue;
      if (members.length === 1 && oneof.name === `_${members[0]!.name}`) continue;
      const mapped = members.map((f) => ({ name: f.name, mapped: optional(this.field(f)) }));
      for (const f of members) inOneof.add(f.name);
      const schema: Schema = {
        type: 'struct',
        name: oneof.name,
        optional: true,
        fields: mapped.map((m) => ({ name: m.name, schema: m.mapped.schema })),
      };
      const fieldName = `${oneof.name}_0`;
      fields.push({ name: fieldName, schema });
      const caseRead = mapped;
      reads.push({
        name: fieldName,
        read: (msg) => {
          const m = msg as Record<string, unknown>;
          const set = (m as { [k: string]: unknown })[oneof.name];
          if (set === undefined || set === null) return null;
          const out: Record<string, unknown> = {};
          for (const c of caseRead) out[c.name] = c.name === set ? c.mapped.read(m[c.name]) : null;
          return out;
        },
      });
    }
    for (const f of type.fieldsArray) {
      if (inOneof.has(f.name)) continue;
      let mapped = this.field(f);
      const isMessage = f.resolvedType instanceof protobufjs().Type && !f.map && !f.repeated;
      if (isMessage || f.partOf !== null) mapped = optional(mapped);
      fields.push({ name: f.name, schema: mapped.schema });
      const read = mapped.read;
      const key = f.name;
      const partOf = f.partOf;
      reads.push({
        name: key,
        // a proto3 optional that is unset reads as null, not as its default
        read:
          partOf === null
            ? (msg) => read((msg as Record<string, unknown>)[key])
            : (msg) =>
                (msg as Record<string, unknown>)[partOf.name] === key
                  ? read((msg as Record<string, unknown>)[key])
                  : null,
      });
    }
    this.#building.delete(name);
    const count = reads.length;
    const mapped: Mapped = {
      schema: { type: 'struct', name: name.slice(1), fields },
      read: (msg) => {
        const out: Record<string, unknown> = {};
        for (let i = 0; i < count; i++) {
          const r = reads[i]!;
          out[r.name] = r.read(msg);
        }
        return out;
      },
    };
    this.#done.set(name, mapped);
    return mapped;
  }

  field(f: Protobuf.Field): Mapped {
    f.resolve();
    let single: Mapped;
    if (f.resolvedType instanceof protobufjs().Enum) {
      const names = f.resolvedType.valuesById;
      const enumName = f.resolvedType.fullName.slice(1);
      single = {
        schema: {
          type: 'string',
          name: enumName,
          parameters: { 'io.confluent.connect.protobuf.Enum': enumName },
        },
        read: (v) => names[v as number] ?? String(v),
      };
    } else if (f.resolvedType instanceof protobufjs().Type) {
      single = this.message(f.resolvedType);
    } else {
      const scalar = SCALARS[f.type];
      if (scalar === undefined)
        throw new UnsupportedSchemaError(`the Protobuf type ${f.type} of field ${f.name}`);
      single = scalar;
    }
    if (f instanceof protobufjs().MapField) {
      const keyScalar = SCALARS[f.keyType];
      if (keyScalar === undefined)
        throw new UnsupportedSchemaError(`the map key type ${f.keyType} of field ${f.name}`);
      const valueRead = single.read;
      const stringKeys = f.keyType === 'string';
      return {
        schema: { type: 'map', keySchema: keyScalar.schema, valueSchema: single.schema },
        read: (v) => {
          const entries = Object.entries((v ?? {}) as object);
          if (stringKeys) {
            const out: Record<string, unknown> = {};
            for (const [k, item] of entries) out[k] = valueRead(item);
            return out;
          }
          const out = new Map<unknown, unknown>();
          for (const [k, item] of entries)
            out.set(keyScalar.schema.type === 'boolean' ? k === 'true' : Number(k), valueRead(item));
          return out;
        },
      };
    }
    if (f.repeated) {
      const read = single.read;
      return {
        schema: { type: 'array', valueSchema: single.schema },
        read: (v) => ((v ?? []) as unknown[]).map(read),
      };
    }
    return single;
  }
}

/** The file's top-level messages in declaration order, or a message's nested ones. */
function messagesOf(ns: Protobuf.NamespaceBase): Protobuf.Type[] {
  return ns.nestedArray.filter((n): n is Protobuf.Type => n instanceof protobufjs().Type);
}

function parseInto(root: Protobuf.Root, text: string, what: string): Protobuf.IParserResult {
  try {
    return protobufjs().parse(text, root, { keepCase: true, alternateCommentMode: false });
  } catch (cause) {
    throw new UnsupportedSchemaError(`${what} does not parse: ${(cause as Error).message}`, { cause });
  }
}

/** Compiles a .proto file (with the files it imports, as registry references) into a decoder. */
export function compileProtobuf(text: string, references: readonly ResolvedReference[] = []): CompiledSchema {
  // the file's own messages, in order, for the message indexes
  const alone = parseInto(new (protobufjs().Root)(), text, 'the Protobuf schema');
  const pkg = alone.package;
  const topNames = messagesOf(pkg ? (alone.root.lookup(pkg) as Protobuf.Namespace) : alone.root).map(
    (t) => t.name,
  );

  const root = new (protobufjs().Root)();
  const imports = new Set([...(alone.imports ?? []), ...(alone.weakImports ?? [])]);
  for (const ref of references) {
    const parsed = parseInto(root, ref.schema, `the referenced Protobuf schema ${ref.name}`);
    for (const i of [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])]) imports.add(i);
  }
  for (const file of imports) {
    if (references.some((r) => r.name === file)) continue;
    const common = protobufjs().common.get(file);
    if (common === null)
      throw new UnsupportedSchemaError(
        `the Protobuf schema imports ${file}, which the registry does not list as a reference`,
      );
    root.addJSON(common.nested ?? {});
  }
  parseInto(root, text, 'the Protobuf schema');
  try {
    root.resolveAll();
  } catch (cause) {
    throw new UnsupportedSchemaError(`the Protobuf schema does not resolve: ${(cause as Error).message}`, {
      cause,
    });
  }
  const top = topNames.map((n) => root.lookupType(pkg ? `${pkg}.${n}` : n));
  if (top.length === 0) throw new UnsupportedSchemaError('the Protobuf schema defines no message');
  const builder = new Builder();
  const byPath = new Map<string, { type: Protobuf.Type; mapped: Mapped }>();
  const pick = (indexes: readonly number[]): { type: Protobuf.Type; mapped: Mapped } => {
    const key = indexes.join('.');
    let found = byPath.get(key);
    if (found === undefined) {
      let type = top[indexes[0]!];
      for (let i = 1; i < indexes.length && type !== undefined; i++) type = messagesOf(type)[indexes[i]!];
      if (type === undefined)
        throw new DataError(`the message indexes [${indexes.join(', ')}] name no message of the schema`);
      found = { type, mapped: builder.message(type) };
      byPath.set(key, found);
    }
    return found;
  };
  pick([0]); // a schema that cannot be mapped fails here, once, rather than per record
  return {
    decode(bytes, offset) {
      const { indexes, offset: start } = messageIndexes(bytes, offset);
      const { type, mapped } = pick(indexes);
      let message: Protobuf.Message;
      try {
        message = type.decode(bytes.subarray(start));
      } catch (cause) {
        throw new DataError(
          `the Protobuf body does not decode as ${type.fullName.slice(1)}: ${(cause as Error).message}`,
          { cause },
        );
      }
      return { schema: mapped.schema, value: mapped.read(message) };
    },
  };
}
