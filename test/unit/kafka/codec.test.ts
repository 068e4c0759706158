import { describe, expect, it } from 'vitest';
import { KafkaProtocolError } from '../../../src/kafka/errors/kafka-errors.js';
import { Reader } from '../../../src/kafka/protocol/reader.js';
import { Writer } from '../../../src/kafka/protocol/writer.js';
import {
  ONE_UUID,
  ZERO_UUID,
  isUuid,
  randomUuid,
  uuidFromHex,
  uuidToHex,
} from '../../../src/kafka/protocol/uuid.js';

const hex = (w: Writer): string => Buffer.from(w.finish()).toString('hex');
const r = (h: string): Reader => new Reader(Buffer.from(h.replace(/ /g, ''), 'hex'));

describe('Writer byte layout (Kafka protocol guide)', () => {
  it.each([
    [0, '00'],
    [1, '01'],
    [127, '7f'],
    [128, '8001'],
    [300, 'ac02'],
    [16383, 'ff7f'],
    [16384, '808001'],
    [2 ** 32 - 1, 'ffffffff0f'],
  ])('uvarint %d → %s', (v, bytes) => {
    expect(hex(new Writer().uvarint(v))).toBe(bytes);
    expect(r(bytes).uvarint()).toBe(v);
  });

  it.each([
    [0, '00'],
    [-1, '01'],
    [1, '02'],
    [-64, '7f'],
    [63, '7e'],
    [64, '8001'],
    [2147483647, 'feffffff0f'],
    [-2147483648, 'ffffffff0f'],
  ])('varint (zigzag) %d → %s', (v, bytes) => {
    expect(hex(new Writer().varint(v))).toBe(bytes);
    expect(r(bytes).varint()).toBe(v);
  });

  it('varlong reaches 10 bytes for int64 extremes', () => {
    expect(hex(new Writer().varlongBig(-(2n ** 63n)))).toBe('ffffffffffffffffff01');
    expect(hex(new Writer().varlongBig(2n ** 63n - 1n))).toBe('feffffffffffffffff01');
    expect(r('ffffffffffffffffff01').varlongBig()).toBe(-(2n ** 63n));
  });

  it('int64 from numbers, negative included', () => {
    expect(hex(new Writer().int64(-1))).toBe('ffffffffffffffff');
    expect(hex(new Writer().int64(2 ** 32 + 5))).toBe('0000000100000005');
    expect(hex(new Writer().int64(-(2 ** 32)))).toBe('ffffffff00000000');
    expect(r('ffffffff00000000').int64()).toBe(-(2 ** 32));
  });

  it('compact and classic strings, bytes and arrays, with their null forms', () => {
    expect(hex(new Writer().compactString('abc'))).toBe('04616263');
    expect(hex(new Writer().compactNullableString(null))).toBe('00');
    expect(hex(new Writer().compactString(''))).toBe('01');
    expect(hex(new Writer().string('ab'))).toBe('00026162');
    expect(hex(new Writer().nullableString(null))).toBe('ffff');
    expect(hex(new Writer().compactBytes(Buffer.from([9])))).toBe('0209');
    expect(hex(new Writer().nullableBytes(null))).toBe('ffffffff');
    expect(hex(new Writer().compactInt32Array([1, -1]))).toBe('0300000001ffffffff');
    expect(hex(new Writer().compactNullableArray(null, () => {}))).toBe('00');
    expect(hex(new Writer().nullableArray(null, () => {}))).toBe('ffffffff');
    expect(hex(new Writer().compactString('é'))).toBe('03c3a9'); // length in UTF-8 bytes
  });

  it('tagged fields: count, then tag / size / bytes, ascending', () => {
    const w = new Writer().taggedFields([
      { tag: 0, write: (x) => x.int16(7) },
      { tag: 300, write: (x) => x.bool(true) },
    ]);
    expect(hex(w)).toBe('02' + '00' + '02' + '0007' + 'ac02' + '01' + '01');
    expect(() =>
      new Writer().taggedFields([
        { tag: 2, write: () => {} },
        { tag: 1, write: () => {} },
      ]),
    ).toThrow(KafkaProtocolError);
  });

  it('grows from a tiny initial buffer', () => {
    const w = new Writer(1);
    for (let i = 0; i < 1000; i++) w.int32(i);
    const b = w.finish();
    expect(b.length).toBe(4000);
    expect(b.readInt32BE(3996)).toBe(999);
  });
});

describe('Writer refuses values out of range (SHARESINK_PROTOCOL_ENCODE)', () => {
  it.each([
    ['int8 128', (w: Writer) => w.int8(128)],
    ['int16 1.5', (w: Writer) => w.int16(1.5)],
    ['int32 2^31', (w: Writer) => w.int32(2 ** 31)],
    ['int64 2^53', (w: Writer) => w.int64(2 ** 53)],
    ['int64 NaN', (w: Writer) => w.int64(Number.NaN)],
    ['uvarint -1', (w: Writer) => w.uvarint(-1)],
    ['uvarint 2^32', (w: Writer) => w.uvarint(2 ** 32)],
    ['varlongBig 2^63', (w: Writer) => w.varlongBig(2n ** 63n)],
    ['uuid too short', (w: Writer) => w.uuid('abc')],
    ['uuid not canonical', (w: Writer) => w.uuid('AAAAAAAAAAAAAAAAAAAAAB')],
    ['uuid bad chars', (w: Writer) => w.uuid('AAAAAAAAAAAAAAAAAAAA!A')],
    ['string too long', (w: Writer) => w.string('x'.repeat(40000))],
  ])('%s', (_name, write) => {
    let error: unknown;
    try {
      write(new Writer());
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(KafkaProtocolError);
    expect((error as KafkaProtocolError).code).toBe('SHARESINK_PROTOCOL_ENCODE');
  });
});

describe('Reader failures are typed and positioned', () => {
  it('truncation names the position and what was missing', () => {
    const reader = r('0001 02');
    reader.int16();
    let error: unknown;
    try {
      reader.int32();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(KafkaProtocolError);
    expect(error).toMatchObject({ code: 'SHARESINK_PROTOCOL_DECODE', position: 2 });
    expect((error as Error).message).toMatch(/need 4 byte\(s\) at position 2, 1 left/);
  });

  it('rejects a varint longer than 32 bits and a varlong longer than 64 bits', () => {
    expect(() => r('ffffffff1f').uvarint()).toThrow(/longer than 32 bits/);
    expect(() => r('8080808080').uvarint()).toThrow(KafkaProtocolError);
    expect(() => r('ffffffffffffffffff02').varlongBig()).toThrow(/longer than 64 bits/);
  });

  it('rejects null where the field is not nullable', () => {
    expect(() => r('00').compactString()).toThrow(/non-nullable compact string/);
    expect(() => r('ffff').string()).toThrow(/non-nullable string/);
    expect(() => r('00').compactArray((x) => x.int8())).toThrow(/non-nullable compact array/);
  });

  it('rejects an array count that cannot fit before allocating it', () => {
    // count 2^31 claimed by a 5-byte buffer
    expect(() => r('ffffffff07').compactInt32Array()).toThrow(/cannot fit/);
    expect(() => r('7fffffff').array((x) => x.int8())).toThrow(/cannot fit/);
  });

  it('int64 outside the safe range is refused as a number, available as a bigint', () => {
    expect(() => r('0020000000000000').int64()).toThrow(/safe integer/);
    expect(r('0020000000000000').int64Big()).toBe(2n ** 53n);
    expect(r('001fffffffffffff').int64()).toBe(2 ** 53 - 1);
  });

  it('tagged sections: unknown tags skipped, known ones read inside their bounds', () => {
    // 2 fields: tag 1 (2 bytes 0x0102), tag 5 (1 byte 0x07); then an int8 after the section
    const reader = r('02 01 02 0102 05 01 07 2a');
    const seen: [number, number][] = [];
    reader.taggedFields((tag, t) => {
      if (tag === 5) seen.push([tag, t.int8()]);
    });
    expect(seen).toEqual([[5, 7]]);
    expect(reader.int8()).toBe(42);
    // a reader for a field cannot read past it
    expect(() => r('01 00 01 07').taggedFields((_t, t) => void t.int16())).toThrow(KafkaProtocolError);
    // a field longer than the input
    expect(() => r('01 00 05 07').taggedFields()).toThrow(KafkaProtocolError);
  });

  it('bytes are views, not copies', () => {
    const buf = Buffer.from('0361620a', 'hex');
    const b = new Reader(buf).compactBytes();
    buf[1] = 0x7a;
    expect(b.toString()).toBe('zb');
  });

  it('a reader bounded inside a buffer cannot see past its end', () => {
    const reader = new Reader(Buffer.from('00000001ffffffff', 'hex'), 0, 4);
    expect(reader.int32()).toBe(1);
    expect(() => reader.int8()).toThrow(KafkaProtocolError);
  });
});

describe('uuid', () => {
  it('uses the 22-character base64url form of Kafka tools', () => {
    expect(ZERO_UUID).toBe(Buffer.alloc(16).toString('base64url'));
    expect(uuidToHex(ONE_UUID)).toBe('00000000000000000000000000000001');
    expect(uuidFromHex('123e4567-e89b-12d3-a456-426614174000')).toBe('Ej5FZ-ibEtOkVkJmFBdAAA');
    expect(new Reader(new Writer().uuid('Ej5FZ-ibEtOkVkJmFBdAAA').finish()).uuid()).toBe(
      'Ej5FZ-ibEtOkVkJmFBdAAA',
    );
    expect(() => uuidFromHex('xyz')).toThrow(TypeError);
  });

  it('randomUuid: v4, canonical, never reserved, never starting with "-"', () => {
    for (let i = 0; i < 2000; i++) {
      const id = randomUuid();
      expect(isUuid(id)).toBe(true);
      expect(id.startsWith('-')).toBe(false);
      expect(id).not.toBe(ZERO_UUID);
      const b = Buffer.from(id, 'base64url');
      expect(b[6]! >> 4).toBe(4);
      expect(b[8]! >> 6).toBe(2);
    }
    expect(isUuid('AAAAAAAAAAAAAAAAAAAAAB')).toBe(false);
  });
});
