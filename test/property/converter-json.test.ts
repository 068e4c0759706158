import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { JsonConverter } from '../../src/connect/converters/json-converter.js';
import { LOGICAL, Schemas, type Schema } from '../../src/connect/schema.js';

const converter = (schemasEnable: boolean): JsonConverter => {
  const c = new JsonConverter();
  c.configure({ 'schemas.enable': String(schemasEnable) }, false);
  return c;
};

describe('JsonConverter round-trips arbitrary JSON', () => {
  test.prop([fc.jsonValue(), fc.boolean()])(
    'value → bytes → value, with or without the envelope',
    (value, envelope) => {
      const c = converter(envelope);
      const back = c.toConnectData('t', c.fromConnectData('t', undefined, value));
      expect(back.schema).toBeUndefined();
      // JSON has no -0: compare with what JSON can represent
      expect(back.value).toEqual(JSON.parse(JSON.stringify(value)));
    },
  );

  test.prop([fc.json()])('plain JSON text reads as JSON.parse reads it', (text) => {
    const back = converter(false).toConnectData('t', Buffer.from(text, 'utf8'));
    expect(back.value).toEqual(JSON.parse(text));
  });

  test.prop([fc.jsonValue()])('an envelope written by hand reads back its payload', (payload) => {
    const bytes = Buffer.from(JSON.stringify({ schema: null, payload }), 'utf8');
    expect(converter(true).toConnectData('t', bytes).value).toEqual(JSON.parse(JSON.stringify(payload)));
  });
});

const FIELD_TYPES: Record<string, { schema: Schema; value: fc.Arbitrary<unknown> }> = {
  int8: { schema: Schemas.INT8, value: fc.integer({ min: -128, max: 127 }) },
  int32: { schema: Schemas.INT32, value: fc.integer() },
  int64: { schema: Schemas.INT64, value: fc.maxSafeInteger() },
  float64: {
    schema: Schemas.FLOAT64,
    value: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
  },
  boolean: { schema: Schemas.BOOLEAN, value: fc.boolean() },
  string: { schema: Schemas.OPTIONAL_STRING, value: fc.option(fc.string({ unit: 'binary' }), { nil: null }) },
  bytes: { schema: Schemas.BYTES, value: fc.uint8Array({ maxLength: 16 }).map((b) => Buffer.from(b)) },
  timestamp: {
    schema: { type: 'int64', name: LOGICAL.timestamp },
    value: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).map((ms) => new Date(ms)),
  },
  decimal: {
    schema: { type: 'bytes', name: LOGICAL.decimal, parameters: { scale: '2' } },
    value: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map((n) => {
      const abs = (n < 0n ? -n : n).toString().padStart(3, '0');
      return `${n < 0n ? '-' : ''}${abs.slice(0, -2)}.${abs.slice(-2)}`;
    }),
  },
  list: {
    schema: { type: 'array', valueSchema: Schemas.STRING },
    value: fc.array(fc.string(), { maxLength: 3 }),
  },
};

const struct = fc
  .uniqueArray(
    fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom(...Object.keys(FIELD_TYPES))),
    {
      selector: ([name]) => name,
      maxLength: 8,
    },
  )
  .chain((fields) =>
    fc.tuple(...fields.map(([, type]) => FIELD_TYPES[type]!.value)).map((values) => ({
      schema: {
        type: 'struct',
        name: 'Generated',
        fields: fields.map(([name, type]) => ({ name, schema: FIELD_TYPES[type]!.schema })),
      } satisfies Schema,
      value: Object.fromEntries(fields.map(([name], i) => [name, values[i]])),
    })),
  );

describe('JsonConverter round-trips data with a schema', () => {
  test.prop([struct])('struct → envelope → struct', ({ schema, value }) => {
    const c = converter(true);
    const back = c.toConnectData('t', c.fromConnectData('t', schema, value));
    expect(back.value).toEqual(value);
    expect(back.schema?.fields?.map((f) => f.name)).toEqual(schema.fields.map((f) => f.name));
  });
});
