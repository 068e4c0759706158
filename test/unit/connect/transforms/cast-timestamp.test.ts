import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/errors.js';
import { LOGICAL } from '../../../../src/connect/schema.js';
import { JavaDateFormat } from '../../../../src/connect/transforms/java-date-format.js';
import { javaDouble, javaFloat } from '../../../../src/connect/transforms/java-text.js';
import { BOOLEAN, FLOAT64, INT32, INT64, OPT_STRING, rec, STRING, struct, transform } from './helpers.js';

const TS = Date.UTC(2026, 0, 29, 13, 45, 6, 789);

describe('Java number text', () => {
  it('prints doubles and floats as Java does', () => {
    expect(javaDouble(1)).toBe('1.0');
    expect(javaDouble(1.5)).toBe('1.5');
    expect(javaDouble(1e10)).toBe('1.0E10');
    expect(javaDouble(1.25e-5)).toBe('1.25E-5');
    expect(javaFloat(0.1)).toBe('0.1');
    expect(javaFloat(Math.fround(3.3))).toBe('3.3');
  });
});

describe('Cast', () => {
  it('casts schemaless fields, truncating like Java narrowing casts', () => {
    const t = transform('Cast$Value', { spec: 'a:int8,b:string,c:boolean,d:float64,e:int32' });
    const out = t.apply(rec({ value: { a: 300.7, b: 2.0, c: 'TRUE', d: '1.5', e: '12', other: 'x' } }))!;
    expect(out.value).toEqual({ other: 'x', a: 44, b: '2', c: true, d: 1.5, e: 12 });
  });

  it('casts struct fields and rewrites their schemas, keeping optional', () => {
    const schema = struct({ id: STRING, price: FLOAT64, note: OPT_STRING, ok: BOOLEAN });
    const t = transform('Cast$Value', { spec: 'id:int64,price:string,ok:int32' });
    const out = t.apply(rec({ value: { id: '12', price: 3, note: null, ok: true }, valueSchema: schema }))!;
    expect(out.value).toEqual({ id: 12, price: '3.0', note: null, ok: 1 });
    expect(out.valueSchema!.fields!.map((f) => [f.name, f.schema.type, f.schema.optional])).toEqual([
      ['id', 'int64', false],
      ['price', 'string', false],
      ['note', 'string', true],
      ['ok', 'int32', false],
    ]);
  });

  it('casts the whole key with a single type, bytes to base64 text', () => {
    const t = transform('Cast$Key', { spec: 'string' });
    expect(t.apply(rec({ key: 42, keySchema: INT32 }))!).toMatchObject({ key: '42', keySchema: STRING });
    expect(t.apply(rec({ key: Buffer.from('hi') }))!.key).toBe('aGk=');
  });

  it('casts logical values as Connect encodes them, Decimal as a number, and passes null values through', () => {
    const day = Date.UTC(2026, 0, 29);
    const schema = struct({
      d: { type: 'int32', optional: false, name: LOGICAL.date, version: 1 },
      ts: { type: 'int64', optional: false, name: LOGICAL.timestamp, version: 1 },
      price: { type: 'bytes', optional: false, name: LOGICAL.decimal, parameters: { scale: '2' } },
      ratio: FLOAT64,
    });
    const t = transform('Cast$Value', { spec: 'd:int32,ts:string,price:int32,ratio:boolean' });
    const out = t.apply(
      rec({ value: { d: new Date(day), ts: new Date(TS), price: '12.75', ratio: 0.5 }, valueSchema: schema }),
    )!;
    expect(out.value).toEqual({
      d: day / 86_400_000,
      ts: '2026-01-29T13:45:06.789Z',
      price: 12,
      ratio: false,
    });
    const tombstone = rec({ value: null, valueSchema: { type: 'int32', optional: true } });
    expect(transform('Cast$Value', { spec: 'string' }).apply(tombstone)).toBe(tombstone);
    const whole = transform('Cast$Value', { spec: 'int64' }).apply(
      rec({
        value: new Date(TS),
        valueSchema: { type: 'int64', name: LOGICAL.timestamp, version: 1, doc: 'd' },
      }),
    )!;
    expect(whole).toMatchObject({
      value: TS,
      valueSchema: { type: 'int64', name: LOGICAL.timestamp, doc: 'd' },
    });
  });

  it('fails a record whose text is not a number, and refuses bad specs at configure time', () => {
    const t = transform('Cast$Value', { spec: 'n:int16' });
    expect(() => t.apply(rec({ value: { n: 'x' } }))).toThrow(/could not cast/);
    expect(() => transform('Cast$Value', { spec: 'n:decimal' })).toThrow(ConfigError);
    expect(() => transform('Cast$Value', { spec: 'int8,a:int8' })).toThrow(/whole-value/);
  });
});

describe('JavaDateFormat', () => {
  it('formats and parses in UTC with Java pattern letters', () => {
    const f = new JavaDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSSX");
    expect(f.format(new Date(TS))).toBe('2026-01-29T13:45:06.789Z');
    expect(f.parse('2026-01-29T13:45:06.789Z')).toBe(TS);
    expect(new JavaDateFormat('yyyyMMdd').parse('20260129')).toBe(Date.UTC(2026, 0, 29));
    expect(new JavaDateFormat('EEE, d MMM yyyy hh:mm a').format(new Date(TS))).toBe(
      'Thu, 29 Jan 2026 01:45 PM',
    );
    expect(new JavaDateFormat('dd/MM/yy', Date.UTC(2026, 0, 1)).parse('01/02/99')).toBe(Date.UTC(1999, 1, 1));
  });

  it('refuses week-based letters and bad input', () => {
    expect(() => new JavaDateFormat('YYYY-ww')).toThrow(/not supported/);
    expect(() => new JavaDateFormat('yyyy-MM-dd').parse('29.01.2026')).toThrow(/Unparseable/);
  });
});

describe('TimestampConverter', () => {
  it('converts a schemaless field between unix, string and Timestamp', () => {
    const toString = transform('TimestampConverter$Value', {
      field: 'at',
      'target.type': 'string',
      format: 'yyyy-MM-dd HH:mm:ss',
    });
    expect(toString.apply(rec({ value: { at: TS, x: 1 } }))!.value).toEqual({
      at: '2026-01-29 13:45:06',
      x: 1,
    });
    const toUnix = transform('TimestampConverter$Value', {
      field: 'at',
      'target.type': 'unix',
      format: 'yyyy-MM-dd HH:mm:ss',
      'unix.precision': 'seconds',
    });
    expect(toUnix.apply(rec({ value: { at: '2026-01-29 13:45:06' } }))!.value).toEqual({
      at: Date.UTC(2026, 0, 29, 13, 45, 6) / 1000,
    });
  });

  it('rewrites a struct field schema to the Date logical type', () => {
    const t = transform('TimestampConverter$Value', { field: 'at', 'target.type': 'Date' });
    const out = t.apply(rec({ value: { at: TS, id: 1 }, valueSchema: struct({ at: INT64, id: INT32 }) }))!;
    expect(out.value).toEqual({ at: new Date(Date.UTC(2026, 0, 29)), id: 1 });
    expect(out.valueSchema!.fields![0]).toEqual({
      name: 'at',
      schema: { type: 'int32', optional: false, name: LOGICAL.date, version: 1 },
    });
  });

  it('converts the whole key with $Key, Time keeping the time of day', () => {
    const t = transform('TimestampConverter$Key', { 'target.type': 'Time' });
    const out = t.apply(rec({ key: new Date(TS), keySchema: { type: 'int64', name: LOGICAL.timestamp } }))!;
    expect(out.key).toEqual(new Date(Date.UTC(1970, 0, 1, 13, 45, 6, 789)));
    expect(out.keySchema).toMatchObject({ type: 'int32', name: LOGICAL.time });
  });

  it('puts an absent schemaless field back as null, leaves structs without the field alone, refuses fractions', () => {
    const t = transform('TimestampConverter$Value', { field: 'at', 'target.type': 'Timestamp' });
    expect(t.apply(rec({ value: { x: 1 } }))!.value).toEqual({ x: 1, at: null });
    const schema = struct({ x: INT32 }, { optional: true });
    expect(t.apply(rec({ value: { x: 1 }, valueSchema: schema }))!).toMatchObject({
      value: { x: 1 },
      valueSchema: { optional: true },
    });
    expect(() => t.apply(rec({ value: { at: 1.5 } }))).toThrow(/does not support number/);
  });

  it('keeps a null value, giving it the converted schema', () => {
    const whole = transform('TimestampConverter$Value', { 'target.type': 'Timestamp' });
    const out = whole.apply(rec({ value: null, valueSchema: { type: 'int64', optional: true } }))!;
    expect(out.value).toBeNull();
    expect(out.valueSchema).toMatchObject({ type: 'int64', optional: true, name: LOGICAL.timestamp });
    const field = transform('TimestampConverter$Value', { field: 'at', 'target.type': 'unix' });
    const schema = struct(
      { at: { type: 'int64', optional: true, name: LOGICAL.timestamp } },
      { optional: true },
    );
    expect(field.apply(rec({ value: null, valueSchema: schema }))!.value).toBeNull();
    expect(field.apply(rec({ value: { at: null }, valueSchema: schema }))!.value).toEqual({ at: null });
    const schemaless = rec({ value: null });
    expect(field.apply(schemaless)).toBe(schemaless);
  });

  it('needs a format for strings, checked at configure time for the target and per record for input', () => {
    expect(() => transform('TimestampConverter$Value', { 'target.type': 'string' })).toThrow(
      /format: is required/,
    );
    expect(() => transform('TimestampConverter$Value', { 'target.type': 'epoch' })).toThrow(ConfigError);
    const t = transform('TimestampConverter$Value', { 'target.type': 'unix' });
    expect(() => t.apply(rec({ value: '2026-01-29' }))).toThrow(/requires format/);
  });
});
