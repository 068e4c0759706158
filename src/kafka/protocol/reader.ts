/**
 * Bounds-checked decoder for the Kafka wire format (classic and flexible versions).
 *
 * Every read checks the remaining length first and throws {@link KafkaProtocolError}
 * (`SHARESINK_PROTOCOL_DECODE`) with the byte position on truncated or malformed input; nothing reads past
 * `end`, nothing loops on attacker-controlled counts without first checking that the bytes exist.
 *
 * Numbers: int64 fields are returned as `number` by {@link Reader.int64} and must be safe integers
 * (|v| ≤ 2^53 − 1), which holds for offsets, timestamps, producer ids and epochs in practice; a larger value
 * throws instead of silently losing precision. {@link Reader.int64Big} returns a `bigint` for the rare field
 * that needs all 64 bits.
 *
 * Byte fields (`bytes`, `records`) are returned as views ({@link Buffer.subarray}) into the input buffer:
 * no copy. Keep the input buffer alive (and unmodified) while the views are in use.
 */
import { KafkaProtocolError } from '../errors/kafka-errors.js';

const TWO_32 = 4294967296;

/** Shared empty buffer for zero-length byte fields. */
export const EMPTY_BUFFER: Buffer = Buffer.alloc(0);

export class Reader {
  /** The underlying buffer. */
  readonly buf: Buffer;
  /** Next byte to read. */
  pos: number;
  /** One past the last readable byte. */
  readonly end: number;

  constructor(buf: Buffer, start = 0, end = buf.length) {
    if (start < 0 || end > buf.length || start > end) {
      throw new KafkaProtocolError(`reader bounds [${start}, ${end}) outside buffer of ${buf.length} bytes`);
    }
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  /** Bytes left to read. */
  remaining(): number {
    return this.end - this.pos;
  }

  /** Throws unless `n` more bytes are available. */
  need(n: number): void {
    if (n > this.end - this.pos) {
      throw new KafkaProtocolError(
        `truncated input: need ${n} byte(s) at position ${this.pos}, ${this.end - this.pos} left`,
        { position: this.pos },
      );
    }
  }

  /** A decode error at the current position. */
  fail(message: string): KafkaProtocolError {
    return new KafkaProtocolError(`${message} (at byte ${this.pos})`, { position: this.pos });
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  int8(): number {
    this.need(1);
    return this.buf.readInt8(this.pos++);
  }

  uint8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  uint16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  uint32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  /** int64 as a safe-integer `number`; throws if the value needs more than 53 bits. */
  int64(): number {
    this.need(8);
    const hi = this.buf.readInt32BE(this.pos);
    const lo = this.buf.readUInt32BE(this.pos + 4);
    const v = hi * TWO_32 + lo;
    if (!Number.isSafeInteger(v)) {
      throw this.fail(`int64 value ${this.buf.readBigInt64BE(this.pos)} is outside the safe integer range`);
    }
    this.pos += 8;
    return v;
  }

  /** int64 as `bigint` (all 64 bits). */
  int64Big(): bigint {
    this.need(8);
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  /** 1 byte; any non-zero value is true (as the Java client reads it). */
  bool(): boolean {
    this.need(1);
    return this.buf[this.pos++] !== 0;
  }

  /** Unsigned varint of at most 32 bits (at most 5 bytes), as used for compact lengths and tags. */
  uvarint(): number {
    const buf = this.buf;
    let result = 0;
    for (let i = 0; i < 5; i++) {
      if (this.pos >= this.end) this.need(1);
      const b = buf[this.pos++]!;
      if (i === 4) {
        if (b > 0x0f) {
          this.pos--;
          throw this.fail('unsigned varint is longer than 32 bits');
        }
        return result + b * 268435456; // 2^28
      }
      result |= (b & 0x7f) << (7 * i);
      if (b < 0x80) return result >>> 0;
    }
    /* c8 ignore next */
    throw this.fail('unreachable');
  }

  /** Signed (zigzag) varint of at most 32 bits. */
  varint(): number {
    const u = this.uvarint();
    return (u >>> 1) ^ -(u & 1);
  }

  /** Signed (zigzag) varlong as a safe-integer `number`; throws outside the safe range. */
  varlong(): number {
    const buf = this.buf;
    // Fast path: up to 7 bytes (49 bits) fits a double exactly.
    let result = 0;
    let mul = 1;
    const start = this.pos;
    for (let i = 0; i < 7; i++) {
      if (this.pos >= this.end) this.need(1);
      const b = buf[this.pos++]!;
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
      mul *= 128;
    }
    this.pos = start;
    const big = this.varlongBig();
    const n = Number(big);
    if (!Number.isSafeInteger(n)) throw this.fail(`varlong value ${big} is outside the safe integer range`);
    return n;
  }

  /** Signed (zigzag) varlong as `bigint`; at most 10 bytes. */
  varlongBig(): bigint {
    let raw = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.need(1);
      const b = this.buf[this.pos++]!;
      if (i === 9 && b > 0x01) {
        this.pos--;
        throw this.fail('varlong is longer than 64 bits');
      }
      raw |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return (raw >> 1n) ^ -(raw & 1n);
      shift += 7n;
    }
    /* c8 ignore next */
    throw this.fail('unreachable');
  }

  /** 16 raw bytes, returned as the 22-character base64url form Kafka's tools print (e.g. topic ids). */
  uuid(): string {
    this.need(16);
    const s = this.buf.toString('base64url', this.pos, this.pos + 16);
    this.pos += 16;
    return s;
  }

  // ── strings ─────────────────────────────────────────────────────────────────────────────────────────

  private utf8(len: number): string {
    this.need(len);
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }

  /** Compact string (uvarint length+1); null is a decode error. */
  compactString(): string {
    const n = this.uvarint();
    if (n === 0) throw this.fail('null where a non-nullable compact string was expected');
    return this.utf8(n - 1);
  }

  /** Compact nullable string (uvarint length+1, 0 = null). */
  compactNullableString(): string | null {
    const n = this.uvarint();
    return n === 0 ? null : this.utf8(n - 1);
  }

  /** Classic string (int16 length); null is a decode error. */
  string(): string {
    const n = this.int16();
    if (n < 0) throw this.fail('null where a non-nullable string was expected');
    return this.utf8(n);
  }

  /** Classic nullable string (int16 length, -1 = null). */
  nullableString(): string | null {
    const n = this.int16();
    if (n < -1) throw this.fail(`invalid string length ${n}`);
    return n === -1 ? null : this.utf8(n);
  }

  // ── bytes ───────────────────────────────────────────────────────────────────────────────────────────

  /** A view of the next `len` bytes. */
  view(len: number): Buffer {
    this.need(len);
    const b = len === 0 ? EMPTY_BUFFER : this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }

  /** Compact bytes (uvarint length+1); null is a decode error. */
  compactBytes(): Buffer {
    const n = this.uvarint();
    if (n === 0) throw this.fail('null where non-nullable compact bytes were expected');
    return this.view(n - 1);
  }

  /** Compact nullable bytes (uvarint length+1, 0 = null). */
  compactNullableBytes(): Buffer | null {
    const n = this.uvarint();
    return n === 0 ? null : this.view(n - 1);
  }

  /** Classic bytes (int32 length); null is a decode error. */
  bytes(): Buffer {
    const n = this.int32();
    if (n < 0) throw this.fail('null where non-nullable bytes were expected');
    return this.view(n);
  }

  /** Classic nullable bytes (int32 length, -1 = null). */
  nullableBytes(): Buffer | null {
    const n = this.int32();
    if (n < -1) throw this.fail(`invalid bytes length ${n}`);
    return n === -1 ? null : this.view(n);
  }

  // ── arrays ──────────────────────────────────────────────────────────────────────────────────────────

  /** Checks an element count against the bytes left: every element takes at least `minSize` bytes. */
  private count(n: number, minSize: number): number {
    if (n * minSize > this.end - this.pos) {
      throw this.fail(`array of ${n} element(s) cannot fit in the ${this.end - this.pos} byte(s) left`);
    }
    return n;
  }

  /** Compact array (uvarint count+1); null is a decode error. */
  compactArray<T>(element: (r: Reader) => T, minElementSize = 1): T[] {
    const n = this.uvarint();
    if (n === 0) throw this.fail('null where a non-nullable compact array was expected');
    return this.elements(this.count(n - 1, minElementSize), element);
  }

  /** Compact nullable array (uvarint count+1, 0 = null). */
  compactNullableArray<T>(element: (r: Reader) => T, minElementSize = 1): T[] | null {
    const n = this.uvarint();
    return n === 0 ? null : this.elements(this.count(n - 1, minElementSize), element);
  }

  /** Classic array (int32 count); null (-1) is a decode error. */
  array<T>(element: (r: Reader) => T, minElementSize = 1): T[] {
    const n = this.int32();
    if (n < 0) throw this.fail('null where a non-nullable array was expected');
    return this.elements(this.count(n, minElementSize), element);
  }

  /** Classic nullable array (int32 count, -1 = null). */
  nullableArray<T>(element: (r: Reader) => T, minElementSize = 1): T[] | null {
    const n = this.int32();
    if (n < -1) throw this.fail(`invalid array length ${n}`);
    return n === -1 ? null : this.elements(this.count(n, minElementSize), element);
  }

  private elements<T>(n: number, element: (r: Reader) => T): T[] {
    const out = new Array<T>(n);
    for (let i = 0; i < n; i++) out[i] = element(this);
    return out;
  }

  /** Compact array of int32 (e.g. partition indexes). */
  compactInt32Array(): number[] {
    return this.compactArray(readInt32, 4);
  }

  /** Compact array of compact strings. */
  compactStringArray(): string[] {
    return this.compactArray(readCompactString);
  }

  // ── tagged fields ───────────────────────────────────────────────────────────────────────────────────

  /**
   * Reads a tagged-field section. For each field, `onTag(tag, r)` is called with a reader bounded to the
   * field's bytes (when given); unknown tags are skipped. The section must be well-formed: a field longer
   * than the bytes left is a decode error.
   */
  taggedFields(onTag?: (tag: number, r: Reader) => void): void {
    const n = this.uvarint();
    if (n === 0) return;
    this.count(n, 2);
    for (let i = 0; i < n; i++) {
      const tag = this.uvarint();
      const size = this.uvarint();
      this.need(size);
      const start = this.pos;
      if (onTag !== undefined) onTag(tag, new Reader(this.buf, start, start + size));
      this.pos = start + size;
    }
  }
}

function readInt32(r: Reader): number {
  return r.int32();
}

function readCompactString(r: Reader): string {
  return r.compactString();
}
