// Round trips and failure modes of every primitive of the wire codec (Reader / Writer).
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { KafkaProtocolError } from '../../src/kafka/errors/kafka-errors.js';
import { Reader } from '../../src/kafka/protocol/reader.js';
import { Writer } from '../../src/kafka/protocol/writer.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

interface Prim<T> {
  name: string;
  arb: fc.Arbitrary<T>;
  write(w: Writer, v: T): void;
  read(r: Reader): T;
}

const str = fc.string({ unit: 'grapheme', maxLength: 40 });
const buf: fc.Arbitrary<Buffer> = fc.uint8Array({ maxLength: 64 }).map((b): Buffer => Buffer.from(b));

function prim<T>(p: Prim<T>): Prim<unknown> {
  return p as Prim<unknown>;
}

const PRIMS: Prim<unknown>[] = [
  prim({
    name: 'int8',
    arb: fc.integer({ min: -128, max: 127 }),
    write: (w, v) => w.int8(v),
    read: (r) => r.int8(),
  }),
  prim({
    name: 'uint8',
    arb: fc.integer({ min: 0, max: 255 }),
    write: (w, v) => w.uint8(v),
    read: (r) => r.uint8(),
  }),
  prim({
    name: 'int16',
    arb: fc.integer({ min: -32768, max: 32767 }),
    write: (w, v) => w.int16(v),
    read: (r) => r.int16(),
  }),
  prim({
    name: 'uint16',
    arb: fc.integer({ min: 0, max: 65535 }),
    write: (w, v) => w.uint16(v),
    read: (r) => r.uint16(),
  }),
  prim({ name: 'int32', arb: fc.integer(), write: (w, v) => w.int32(v), read: (r) => r.int32() }),
  prim({
    name: 'uint32',
    arb: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    write: (w, v) => w.uint32(v),
    read: (r) => r.uint32(),
  }),
  prim({ name: 'int64', arb: fc.maxSafeInteger(), write: (w, v) => w.int64(v), read: (r) => r.int64() }),
  prim({
    name: 'int64Big',
    arb: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
    write: (w, v) => w.int64Big(v),
    read: (r) => r.int64Big(),
  }),
  prim({ name: 'bool', arb: fc.boolean(), write: (w, v) => w.bool(v), read: (r) => r.bool() }),
  prim({
    name: 'uvarint',
    arb: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    write: (w, v) => w.uvarint(v),
    read: (r) => r.uvarint(),
  }),
  prim({ name: 'varint', arb: fc.integer(), write: (w, v) => w.varint(v), read: (r) => r.varint() }),
  prim({
    name: 'varlong',
    arb: fc.maxSafeInteger(),
    write: (w, v) => w.varlong(v),
    read: (r) => r.varlong(),
  }),
  prim({
    name: 'varlongBig',
    arb: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
    write: (w, v) => w.varlongBig(v),
    read: (r) => r.varlongBig(),
  }),
  prim({
    name: 'uuid',
    arb: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('base64url')),
    write: (w, v) => w.uuid(v),
    read: (r) => r.uuid(),
  }),
  prim({
    name: 'compactString',
    arb: str,
    write: (w, v) => w.compactString(v),
    read: (r) => r.compactString(),
  }),
  prim({
    name: 'compactNullableString',
    arb: fc.option(str, { nil: null }),
    write: (w, v) => w.compactNullableString(v),
    read: (r) => r.compactNullableString(),
  }),
  prim({ name: 'string', arb: str, write: (w, v) => w.string(v), read: (r) => r.string() }),
  prim({
    name: 'nullableString',
    arb: fc.option(str, { nil: null }),
    write: (w, v) => w.nullableString(v),
    read: (r) => r.nullableString(),
  }),
  prim({ name: 'compactBytes', arb: buf, write: (w, v) => w.compactBytes(v), read: (r) => r.compactBytes() }),
  prim({
    name: 'compactNullableBytes',
    arb: fc.option(buf, { nil: null }),
    write: (w, v) => w.compactNullableBytes(v),
    read: (r) => r.compactNullableBytes(),
  }),
  prim({ name: 'bytes', arb: buf, write: (w, v) => w.bytes(v), read: (r) => r.bytes() }),
  prim({
    name: 'nullableBytes',
    arb: fc.option(buf, { nil: null }),
    write: (w, v) => w.nullableBytes(v),
    read: (r) => r.nullableBytes(),
  }),
  prim({
    name: 'compactInt32Array',
    arb: fc.array(fc.integer(), { maxLength: 20 }),
    write: (w, v) => w.compactInt32Array(v),
    read: (r) => r.compactInt32Array(),
  }),
  prim({
    name: 'compactNullableArray<string>',
    arb: fc.option(fc.array(str, { maxLength: 5 }), { nil: null }),
    write: (w, v) => w.compactNullableArray(v, (x, s) => x.compactString(s)),
    read: (r) => r.compactNullableArray((x) => x.compactString()),
  }),
  prim({
    name: 'nullableArray<int16>',
    arb: fc.option(fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 10 }), { nil: null }),
    write: (w, v) => w.nullableArray(v, (x, n) => x.int16(n)),
    read: (r) => r.nullableArray((x) => x.int16(), 2),
  }),
];

// Tagged sections: strictly ascending tags, arbitrary payloads; decoding hands each field's bytes back.
const taggedArb = fc
  .uniqueArray(fc.tuple(fc.integer({ min: 0, max: 20000 }), buf), { selector: ([t]) => t, maxLength: 6 })
  .map((fields) => fields.sort((a, b) => a[0] - b[0]));

PRIMS.push(
  prim({
    name: 'taggedFields',
    arb: taggedArb,
    write: (w, fields) =>
      w.taggedFields(fields.map(([tag, bytes]) => ({ tag, write: (x: Writer) => x.raw(bytes) }))),
    read: (r) => {
      const out: [number, Buffer][] = [];
      r.taggedFields((tag, t) => out.push([tag, Buffer.from(t.view(t.remaining()))]));
      return out;
    },
  }),
);

function encode(p: Prim<unknown>, v: unknown): Buffer {
  const w = new Writer(16);
  p.write(w, v);
  return Buffer.from(w.finish());
}

describe.each(PRIMS.map((p) => [p.name, p] as const))('%s', (_name, p) => {
  test.prop([p.arb])('round trip, consuming exactly the bytes written', (v) => {
    const bytes = encode(p, v);
    const r = new Reader(bytes);
    expect(p.read(r)).toEqual(v);
    expect(r.remaining()).toBe(0);
  });

  test.prop([p.arb, fc.nat()])('every strict prefix throws KafkaProtocolError', (v, cut) => {
    const bytes = encode(p, v);
    if (bytes.length === 0) return;
    const prefix = bytes.subarray(0, cut % bytes.length);
    expect(() => p.read(new Reader(prefix))).toThrow(KafkaProtocolError);
  });

  test.prop([fc.uint8Array({ maxLength: 40 })])('random bytes: a value or KafkaProtocolError', (bytes) => {
    try {
      p.read(new Reader(Buffer.from(bytes)));
    } catch (err) {
      expect(err).toBeInstanceOf(KafkaProtocolError);
    }
  });

  test.prop([p.arb, p.arb])('values follow each other in one buffer', (a, b) => {
    const w = new Writer(1);
    p.write(w, a);
    p.write(w, b);
    const r = new Reader(Buffer.from(w.finish()));
    expect(p.read(r)).toEqual(a);
    expect(p.read(r)).toEqual(b);
    expect(r.remaining()).toBe(0);
  });
});

describe('number and bigint forms agree', () => {
  test.prop([fc.maxSafeInteger()])('int64 / int64Big', (v) => {
    expect(
      encode(
        PRIMS.find((p) => p.name === 'int64')!,
        v,
      ),
    ).toEqual(
      encode(
        PRIMS.find((p) => p.name === 'int64Big')!,
        BigInt(v),
      ),
    );
  });

  test.prop([fc.maxSafeInteger()])('varlong / varlongBig', (v) => {
    const a = new Writer().varlong(v).finish();
    const b = new Writer().varlongBig(BigInt(v)).finish();
    expect(Buffer.from(a)).toEqual(Buffer.from(b));
  });

  test.prop([fc.integer()])('varint / varlong for int32 values', (v) => {
    expect(Buffer.from(new Writer().varint(v).finish())).toEqual(
      Buffer.from(new Writer().varlong(v).finish()),
    );
  });

  test.prop([fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).filter((v) => v > 2n ** 53n || v < -(2n ** 53n))])(
    'int64 / varlong beyond the safe range: number readers refuse, bigint readers succeed',
    (v) => {
      const a = Buffer.from(new Writer().int64Big(v).finish());
      expect(() => new Reader(a).int64()).toThrow(KafkaProtocolError);
      expect(new Reader(a).int64Big()).toBe(v);
      const b = Buffer.from(new Writer().varlongBig(v).finish());
      expect(() => new Reader(b).varlong()).toThrow(KafkaProtocolError);
      expect(new Reader(b).varlongBig()).toBe(v);
    },
  );
});
