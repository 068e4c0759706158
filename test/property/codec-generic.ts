// A schema-driven (slow, generic) Kafka message codec for tests: it interprets the field lists of
// codec-schemas.ts the way Kafka's generated code reads the message JSON, so the hand-written encoders and
// decoders in src/kafka/protocol/messages can be checked against it field by field, in every version, with
// random values (fast-check arbitraries generated from the same schema).
import fc from 'fast-check';
import { Reader } from '../../src/kafka/protocol/reader.js';
import { Writer, type TaggedField } from '../../src/kafka/protocol/writer.js';
import { ZERO_UUID } from '../../src/kafka/protocol/uuid.js';

export interface FieldSchema {
  name: string;
  type: string;
  versions: string;
  nullableVersions?: string;
  tag?: number;
  taggedVersions?: string;
  default?: string | number | boolean;
  fields?: FieldSchema[];
}

export interface MessageSchema {
  name: string;
  validVersions: string;
  flexibleVersions: string;
  fields: FieldSchema[];
  commonStructs?: { name: string; fields: FieldSchema[] }[];
}

type Obj = Record<string, unknown>;

/** Does version `v` fall in a Kafka version spec (`'3+'`, `'1-2'`, `'0'`, `'none'`)? */
export function inVersions(spec: string | undefined, v: number): boolean {
  if (spec === undefined || spec === 'none') return false;
  if (spec.endsWith('+')) return v >= Number(spec.slice(0, -1));
  const dash = spec.indexOf('-');
  if (dash > 0) return v >= Number(spec.slice(0, dash)) && v <= Number(spec.slice(dash + 1));
  return v === Number(spec);
}

/** Does the spec overlap [lo, hi]? */
function overlaps(spec: string, lo: number, hi: number): boolean {
  for (let v = lo; v <= hi; v++) if (inVersions(spec, v)) return true;
  return false;
}

export function camel(name: string): string {
  return name[0]!.toLowerCase() + name.slice(1);
}

const PRIMITIVES = new Set([
  'int8',
  'int16',
  'uint16',
  'int32',
  'int64',
  'bool',
  'string',
  'bytes',
  'records',
  'uuid',
]);

interface Ctx {
  schema: MessageSchema;
  version: number;
  flexible: boolean;
  /** Implemented version range of the API under test: absent fields outside it are not defaulted. */
  range: [number, number];
}

function ctxOf(schema: MessageSchema, version: number, range: [number, number]): Ctx {
  return { schema, version, flexible: inVersions(schema.flexibleVersions, version), range };
}

function structFields(ctx: Ctx, f: FieldSchema, typeName: string): FieldSchema[] {
  if (f.fields !== undefined) return f.fields;
  const common = ctx.schema.commonStructs?.find((c) => c.name === typeName);
  if (common === undefined) throw new Error(`no struct ${typeName} in ${ctx.schema.name}`);
  return common.fields;
}

function isTagged(f: FieldSchema, v: number): boolean {
  return f.tag !== undefined && inVersions(f.taggedVersions, v);
}

function nullable(f: FieldSchema, v: number): boolean {
  return inVersions(f.nullableVersions, v);
}

// ── encode ──────────────────────────────────────────────────────────────────────────────────────────────

function encodePrimitive(w: Writer, ctx: Ctx, type: string, value: unknown, isNullable: boolean): void {
  const flex = ctx.flexible;
  switch (type) {
    case 'int8':
      w.int8(value as number);
      return;
    case 'int16':
      w.int16(value as number);
      return;
    case 'uint16':
      w.uint16(value as number);
      return;
    case 'int32':
      w.int32(value as number);
      return;
    case 'int64':
      w.int64(value as number);
      return;
    case 'bool':
      w.bool(value as boolean);
      return;
    case 'uuid':
      w.uuid(value as string);
      return;
    case 'string': {
      const s = value as string | null;
      if (flex && isNullable) w.compactNullableString(s);
      else if (flex) w.compactString(s!);
      else if (isNullable) w.nullableString(s);
      else w.string(s!);
      return;
    }
    case 'bytes':
    case 'records': {
      const b = value as Buffer | null;
      if (flex && isNullable) w.compactNullableBytes(b);
      else if (flex) w.compactBytes(b!);
      else if (isNullable) w.nullableBytes(b);
      else w.bytes(b!);
      return;
    }
    default:
      throw new Error(`not a primitive: ${type}`);
  }
}

function encodeValue(
  w: Writer,
  ctx: Ctx,
  f: FieldSchema,
  type: string,
  value: unknown,
  extraTags: boolean,
): void {
  const isNullable = nullable(f, ctx.version);
  if (type.startsWith('[]')) {
    const elem = type.slice(2);
    const arr = value as unknown[] | null;
    if (arr === null) {
      if (ctx.flexible) w.uvarint(0);
      else w.int32(-1);
      return;
    }
    if (ctx.flexible) w.uvarint(arr.length + 1);
    else w.int32(arr.length);
    for (const item of arr) {
      if (PRIMITIVES.has(elem)) encodePrimitive(w, ctx, elem, item, false);
      else encodeStruct(w, ctx, structFields(ctx, f, elem), item as Obj, extraTags);
    }
    return;
  }
  if (PRIMITIVES.has(type)) {
    encodePrimitive(w, ctx, type, value, isNullable);
    return;
  }
  // a struct field
  if (isNullable) {
    if (value === null) {
      w.int8(-1);
      return;
    }
    w.int8(1);
  }
  encodeStruct(w, ctx, structFields(ctx, f, type), value as Obj, extraTags);
}

function encodeStruct(w: Writer, ctx: Ctx, fields: FieldSchema[], obj: Obj, extraTags: boolean): void {
  const tagged: TaggedField[] = [];
  for (const f of fields) {
    if (!inVersions(f.versions, ctx.version)) continue;
    const value = obj[camel(f.name)];
    if (isTagged(f, ctx.version)) {
      tagged.push({ tag: f.tag!, write: (tw) => encodeValue(tw, ctx, f, f.type, value, extraTags) });
    } else {
      encodeValue(w, ctx, f, f.type, value, extraTags);
    }
  }
  if (!ctx.flexible) return;
  // an unknown tag every decoder must skip
  if (extraTags) tagged.push({ tag: 999, write: (tw) => tw.raw(Buffer.from([1, 2, 3, 0xff])) });
  tagged.sort((a, b) => a.tag - b.tag);
  w.taggedFields(tagged);
}

/** Encodes a message body (no header) with the generic codec. */
export function genericEncode(
  schema: MessageSchema,
  version: number,
  obj: Obj,
  options: { extraTags?: boolean; range?: [number, number] } = {},
): Buffer {
  const w = new Writer();
  encodeStruct(
    w,
    ctxOf(schema, version, options.range ?? [version, version]),
    schema.fields,
    obj,
    options.extraTags ?? false,
  );
  return w.finish();
}

// ── decode ──────────────────────────────────────────────────────────────────────────────────────────────

function decodePrimitive(r: Reader, ctx: Ctx, type: string, isNullable: boolean): unknown {
  const flex = ctx.flexible;
  switch (type) {
    case 'int8':
      return r.int8();
    case 'int16':
      return r.int16();
    case 'uint16':
      return r.uint16();
    case 'int32':
      return r.int32();
    case 'int64':
      return r.int64();
    case 'bool':
      return r.bool();
    case 'uuid':
      return r.uuid();
    case 'string':
      if (flex) return isNullable ? r.compactNullableString() : r.compactString();
      return isNullable ? r.nullableString() : r.string();
    case 'bytes':
    case 'records':
      if (flex) return isNullable ? r.compactNullableBytes() : r.compactBytes();
      return isNullable ? r.nullableBytes() : r.bytes();
    default:
      throw new Error(`not a primitive: ${type}`);
  }
}

function decodeValue(r: Reader, ctx: Ctx, f: FieldSchema, type: string, fill: boolean): unknown {
  const isNullable = nullable(f, ctx.version);
  if (type.startsWith('[]')) {
    const elem = type.slice(2);
    const n = ctx.flexible ? r.uvarint() - 1 : r.int32();
    if (n < 0) return null;
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) {
      out.push(
        PRIMITIVES.has(elem)
          ? decodePrimitive(r, ctx, elem, false)
          : decodeStruct(r, ctx, structFields(ctx, f, elem), fill),
      );
    }
    return out;
  }
  if (PRIMITIVES.has(type)) return decodePrimitive(r, ctx, type, isNullable);
  if (isNullable && r.int8() < 0) return null;
  return decodeStruct(r, ctx, structFields(ctx, f, type), fill);
}

function defaultValue(ctx: Ctx, f: FieldSchema): unknown {
  const d = f.default;
  if (f.type.startsWith('[]')) return d === 'null' ? null : [];
  switch (f.type) {
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'int64':
      return d === undefined ? 0 : Number(d);
    case 'bool':
      return d === true || d === 'true';
    case 'string':
      return d === 'null' ? null : (d ?? '');
    case 'uuid':
      return ZERO_UUID;
    case 'bytes':
    case 'records':
      return Buffer.alloc(0);
    default:
      return d === 'null' ? null : decodeDefaults(ctx, structFields(ctx, f, f.type));
  }
}

function decodeDefaults(ctx: Ctx, fields: FieldSchema[]): Obj {
  const out: Obj = {};
  for (const f of fields) out[camel(f.name)] = defaultValue(ctx, f);
  return out;
}

function decodeStruct(r: Reader, ctx: Ctx, fields: FieldSchema[], fill: boolean): Obj {
  const out: Obj = {};
  for (const f of fields) {
    if (!inVersions(f.versions, ctx.version)) {
      if (fill && overlaps(f.versions, ctx.range[0], ctx.range[1])) out[camel(f.name)] = defaultValue(ctx, f);
      continue;
    }
    if (isTagged(f, ctx.version)) {
      out[camel(f.name)] = defaultValue(ctx, f);
      continue;
    }
    out[camel(f.name)] = decodeValue(r, ctx, f, f.type, fill);
  }
  if (ctx.flexible) {
    r.taggedFields((tag, tr) => {
      const f = fields.find((x) => x.tag === tag && isTagged(x, ctx.version));
      if (f !== undefined) out[camel(f.name)] = decodeValue(tr, ctx, f, f.type, fill);
    });
  }
  return out;
}

/** Decodes a message body with the generic codec; throws if bytes are left over. */
export function genericDecode(schema: MessageSchema, version: number, body: Buffer): Obj {
  const r = new Reader(body);
  const out = decodeStruct(r, ctxOf(schema, version, [version, version]), schema.fields, false);
  if (r.remaining() !== 0) throw new Error(`${r.remaining()} byte(s) left after ${schema.name} v${version}`);
  return out;
}

/**
 * `obj` plus the default of every field absent in `version` but present somewhere in `range` (what the
 * hand-written decoders return for such fields).
 */
export function withVersionDefaults(
  schema: MessageSchema,
  version: number,
  range: [number, number],
  obj: Obj,
): Obj {
  const ctx = ctxOf(schema, version, range);
  const fill = (fields: FieldSchema[], o: Obj): Obj => {
    const out: Obj = { ...o };
    for (const f of fields) {
      const key = camel(f.name);
      if (!inVersions(f.versions, version)) {
        if (overlaps(f.versions, range[0], range[1])) out[key] = defaultValue(ctx, f);
        continue;
      }
      const v = o[key];
      if (v === null || v === undefined || PRIMITIVES.has(f.type) || PRIMITIVES.has(f.type.slice(2)))
        continue;
      const sub = structFields(ctx, f, f.type.startsWith('[]') ? f.type.slice(2) : f.type);
      out[key] = Array.isArray(v) ? v.map((x) => fill(sub, x as Obj)) : fill(sub, v as Obj);
    }
    return out;
  };
  return fill(schema.fields, obj);
}

// ── arbitraries ─────────────────────────────────────────────────────────────────────────────────────────

const str = fc.string({ unit: 'grapheme', maxLength: 6 });
const uuid = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('base64url'));
const bytes = fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b));

function primitiveArb(type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'int8':
      return fc.integer({ min: -128, max: 127 });
    case 'int16':
      return fc.integer({ min: -32768, max: 32767 });
    case 'uint16':
      return fc.integer({ min: 0, max: 65535 });
    case 'int32':
      return fc.integer({ min: -2147483648, max: 2147483647 });
    case 'int64':
      return fc.oneof(
        fc.maxSafeInteger(),
        fc.constantFrom(0, -1, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 32, -(2 ** 31) - 1),
      );
    case 'bool':
      return fc.boolean();
    case 'uuid':
      return uuid;
    case 'string':
      return str;
    case 'bytes':
    case 'records':
      return bytes;
    default:
      throw new Error(`not a primitive: ${type}`);
  }
}

function valueArb(ctx: Ctx, f: FieldSchema, type: string, depth: number): fc.Arbitrary<unknown> {
  let arb: fc.Arbitrary<unknown>;
  if (type.startsWith('[]')) {
    const elem = type.slice(2);
    const e = PRIMITIVES.has(elem)
      ? primitiveArb(elem)
      : structArb(ctx, structFields(ctx, f, elem), depth + 1);
    arb = fc.array(e, { maxLength: depth > 1 ? 2 : 3 });
  } else if (PRIMITIVES.has(type)) {
    arb = primitiveArb(type);
  } else {
    arb = structArb(ctx, structFields(ctx, f, type), depth + 1);
  }
  return nullable(f, ctx.version) ? fc.option(arb, { nil: null, freq: 4 }) : arb;
}

function structArb(ctx: Ctx, fields: FieldSchema[], depth: number): fc.Arbitrary<Obj> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of fields) {
    if (inVersions(f.versions, ctx.version)) model[camel(f.name)] = valueArb(ctx, f, f.type, depth);
  }
  return fc.record(model) as fc.Arbitrary<Obj>;
}

/** Random message objects for `version` (only the fields that exist in that version). */
export function messageArb(schema: MessageSchema, version: number): fc.Arbitrary<Obj> {
  return structArb(ctxOf(schema, version, [version, version]), schema.fields, 0);
}
