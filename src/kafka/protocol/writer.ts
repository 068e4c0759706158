/**
 * Growable encoder for the Kafka wire format (classic and flexible versions).
 *
 * Values out of range for their wire type (an int32 that is not an integer, an int64 that is not a safe
 * integer, a string longer than int16 allows, a malformed uuid) throw {@link KafkaProtocolError} with code
 * `SHARESINK_PROTOCOL_ENCODE`: they are programming errors, caught before a byte reaches the broker.
 */
import { encodeError } from '../errors/kafka-errors.js';

const TWO_32 = 4294967296;
const TWO_52 = 4503599627370496;

function checkInt(v: number, min: number, max: number, type: string): void {
  if (!Number.isInteger(v) || v < min || v > max) throw encodeError(`${v} is not a valid ${type}`);
}

/** A field of a tagged-field section: its tag and a function writing its value. */
export interface TaggedField {
  readonly tag: number;
  write(w: Writer): void;
}

export class Writer {
  private buf: Buffer;
  private pos = 0;

  constructor(initialCapacity = 256) {
    this.buf = Buffer.allocUnsafe(Math.max(16, initialCapacity));
  }

  /** Bytes written so far. */
  get length(): number {
    return this.pos;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** The bytes written: a view of the internal buffer. Do not write after calling it. */
  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  int8(v: number): this {
    checkInt(v, -128, 127, 'int8');
    this.ensure(1);
    this.buf.writeInt8(v, this.pos++);
    return this;
  }

  uint8(v: number): this {
    checkInt(v, 0, 255, 'uint8');
    this.ensure(1);
    this.buf[this.pos++] = v;
    return this;
  }

  int16(v: number): this {
    checkInt(v, -32768, 32767, 'int16');
    this.ensure(2);
    this.buf.writeInt16BE(v, this.pos);
    this.pos += 2;
    return this;
  }

  uint16(v: number): this {
    checkInt(v, 0, 65535, 'uint16');
    this.ensure(2);
    this.buf.writeUInt16BE(v, this.pos);
    this.pos += 2;
    return this;
  }

  int32(v: number): this {
    checkInt(v, -2147483648, 2147483647, 'int32');
    this.ensure(4);
    this.buf.writeInt32BE(v, this.pos);
    this.pos += 4;
    return this;
  }

  uint32(v: number): this {
    checkInt(v, 0, TWO_32 - 1, 'uint32');
    this.ensure(4);
    this.buf.writeUInt32BE(v, this.pos);
    this.pos += 4;
    return this;
  }

  /** int64 from a safe-integer `number`. */
  int64(v: number): this {
    if (!Number.isSafeInteger(v)) throw encodeError(`${v} is not a safe integer for an int64`);
    this.ensure(8);
    const hi = Math.floor(v / TWO_32);
    this.buf.writeInt32BE(hi, this.pos);
    this.buf.writeUInt32BE(v - hi * TWO_32, this.pos + 4);
    this.pos += 8;
    return this;
  }

  /** int64 from a `bigint`. */
  int64Big(v: bigint): this {
    if (v < -(2n ** 63n) || v >= 2n ** 63n) throw encodeError(`${v} is not a valid int64`);
    this.ensure(8);
    this.buf.writeBigInt64BE(v, this.pos);
    this.pos += 8;
    return this;
  }

  bool(v: boolean): this {
    this.ensure(1);
    this.buf[this.pos++] = v ? 1 : 0;
    return this;
  }

  /** Unsigned varint, 0 ≤ v < 2^32. */
  uvarint(v: number): this {
    checkInt(v, 0, TWO_32 - 1, 'unsigned varint');
    this.ensure(5);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
    return this;
  }

  /** Signed (zigzag) varint, int32 range. */
  varint(v: number): this {
    checkInt(v, -2147483648, 2147483647, 'varint');
    return this.uvarint(((v << 1) ^ (v >> 31)) >>> 0);
  }

  /** Signed (zigzag) varlong from a safe-integer `number`. */
  varlong(v: number): this {
    if (!Number.isSafeInteger(v)) throw encodeError(`${v} is not a safe integer for a varlong`);
    if (v >= TWO_52 || v <= -TWO_52) return this.varlongBig(BigInt(v));
    let u = v >= 0 ? v * 2 : -v * 2 - 1;
    this.ensure(10);
    while (u >= 0x80) {
      this.buf[this.pos++] = (u % 128) | 0x80;
      u = Math.floor(u / 128);
    }
    this.buf[this.pos++] = u;
    return this;
  }

  /** Signed (zigzag) varlong from a `bigint`. */
  varlongBig(v: bigint): this {
    if (v < -(2n ** 63n) || v >= 2n ** 63n) throw encodeError(`${v} is not a valid varlong`);
    let u = v >= 0n ? v << 1n : (-v << 1n) - 1n;
    this.ensure(10);
    while (u >= 0x80n) {
      this.buf[this.pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.pos++] = Number(u);
    return this;
  }

  /** A uuid given in Kafka's 22-character base64url form. */
  uuid(v: string): this {
    if (v.length !== 22) throw encodeError(`uuid ${JSON.stringify(v)} is not 22 base64url characters`);
    this.ensure(16);
    const n = this.buf.write(v, this.pos, 16, 'base64url');
    if (n !== 16 || this.buf.toString('base64url', this.pos, this.pos + 16) !== v) {
      throw encodeError(`uuid ${JSON.stringify(v)} is not valid base64url`);
    }
    this.pos += 16;
    return this;
  }

  /** Raw bytes, no length prefix. */
  raw(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  // ── strings ─────────────────────────────────────────────────────────────────────────────────────────

  private utf8(s: string, len: number): void {
    this.ensure(len);
    this.buf.write(s, this.pos, len, 'utf8');
    this.pos += len;
  }

  compactString(s: string): this {
    const len = Buffer.byteLength(s, 'utf8');
    this.uvarint(len + 1);
    this.utf8(s, len);
    return this;
  }

  compactNullableString(s: string | null): this {
    return s === null ? this.uvarint(0) : this.compactString(s);
  }

  /** Classic string, int16 length. */
  string(s: string): this {
    const len = Buffer.byteLength(s, 'utf8');
    if (len > 32767) throw encodeError(`string of ${len} bytes is too long for an int16 length`);
    this.int16(len);
    this.utf8(s, len);
    return this;
  }

  nullableString(s: string | null): this {
    return s === null ? this.int16(-1) : this.string(s);
  }

  // ── bytes ───────────────────────────────────────────────────────────────────────────────────────────

  compactBytes(b: Uint8Array): this {
    this.uvarint(b.length + 1);
    return this.raw(b);
  }

  compactNullableBytes(b: Uint8Array | null): this {
    return b === null ? this.uvarint(0) : this.compactBytes(b);
  }

  /** Classic bytes, int32 length. */
  bytes(b: Uint8Array): this {
    this.int32(b.length);
    return this.raw(b);
  }

  nullableBytes(b: Uint8Array | null): this {
    return b === null ? this.int32(-1) : this.bytes(b);
  }

  // ── arrays ──────────────────────────────────────────────────────────────────────────────────────────

  compactArray<T>(items: readonly T[], element: (w: Writer, item: T) => void): this {
    this.uvarint(items.length + 1);
    for (let i = 0; i < items.length; i++) element(this, items[i]!);
    return this;
  }

  compactNullableArray<T>(items: readonly T[] | null, element: (w: Writer, item: T) => void): this {
    return items === null ? this.uvarint(0) : this.compactArray(items, element);
  }

  /** Classic array, int32 count. */
  array<T>(items: readonly T[], element: (w: Writer, item: T) => void): this {
    this.int32(items.length);
    for (let i = 0; i < items.length; i++) element(this, items[i]!);
    return this;
  }

  nullableArray<T>(items: readonly T[] | null, element: (w: Writer, item: T) => void): this {
    return items === null ? this.int32(-1) : this.array(items, element);
  }

  compactInt32Array(items: readonly number[]): this {
    return this.compactArray(items, writeInt32);
  }

  compactStringArray(items: readonly string[]): this {
    return this.compactArray(items, writeCompactString);
  }

  // ── tagged fields ───────────────────────────────────────────────────────────────────────────────────

  /** An empty tagged-field section (one 0 byte). */
  emptyTaggedFields(): this {
    this.ensure(1);
    this.buf[this.pos++] = 0;
    return this;
  }

  /** A tagged-field section; tags must be strictly ascending. */
  taggedFields(fields: readonly TaggedField[]): this {
    this.uvarint(fields.length);
    let last = -1;
    for (const f of fields) {
      if (f.tag <= last)
        throw encodeError(`tagged fields must have strictly ascending tags (${f.tag} after ${last})`);
      last = f.tag;
      const inner = new Writer(64);
      f.write(inner);
      const bytes = inner.finish();
      this.uvarint(f.tag);
      this.uvarint(bytes.length);
      this.raw(bytes);
    }
    return this;
  }
}

function writeInt32(w: Writer, v: number): void {
  w.int32(v);
}

function writeCompactString(w: Writer, v: string): void {
  w.compactString(v);
}
