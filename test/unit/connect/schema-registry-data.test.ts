// The Schema Registry converters' pure parts: the wire format, and Avro / Protobuf / JSON Schema bodies
// to Connect schemas and values (encoded here with avsc and protobufjs, as a producer would).
import avro from 'avsc';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { compileAvro } from '../../../src/connect/converters/schema-registry/avro-data.js';
import { compileJsonSchema } from '../../../src/connect/converters/schema-registry/json-schema-data.js';
import { compileProtobuf } from '../../../src/connect/converters/schema-registry/protobuf-data.js';
import { parseRegistrySettings } from '../../../src/connect/converters/schema-registry/settings.js';
import { frame, messageIndexes, schemaIdOf } from '../../../src/connect/converters/schema-registry/wire.js';
import { LOGICAL } from '../../../src/connect/schema.js';

describe('the Schema Registry wire format', () => {
  it('reads the schema id and refuses unframed or short bytes with the reason', () => {
    expect(schemaIdOf(frame(0x01020304, Buffer.from([9])))).toBe(0x01020304);
    expect(schemaIdOf(frame(4_000_000_000, Buffer.alloc(0)))).toBe(4_000_000_000);
    expect(() => schemaIdOf(Buffer.from('{"a":1}'))).toThrow(/the first byte is 123, not the magic byte 0/);
    expect(() => schemaIdOf(Buffer.from([0, 0, 1]))).toThrow(/3 byte\(s\), fewer than the 5/);
  });

  it('reads Protobuf message indexes, the [0] shortcut included', () => {
    expect(messageIndexes(frame(1, Buffer.from([8, 1]), [0]))).toEqual({ indexes: [0], offset: 6 });
    expect(messageIndexes(frame(1, Buffer.alloc(0), [2, 0, 70]))).toEqual({
      indexes: [2, 0, 70],
      offset: 10,
    });
    expect(() => messageIndexes(Buffer.from([0, 0, 0, 0, 1, 0x80]))).toThrow(/cut short/);
  });
});

describe('Avro to Connect', () => {
  const schema = {
    type: 'record',
    name: 'Row',
    namespace: 'ns',
    fields: [
      { name: 'id', type: 'long' },
      { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 9, scale: 2 } },
      { name: 'day', type: { type: 'int', logicalType: 'date' } },
      { name: 'at', type: { type: 'long', logicalType: 'timestamp-micros' } },
      { name: 'note', type: ['null', 'string'], default: null },
      { name: 'either', type: ['null', 'int', 'string'] },
      { name: 'kind', type: { type: 'enum', name: 'Kind', symbols: ['A', 'B'] } },
      { name: 'inner', type: { type: 'record', name: 'Inner', fields: [{ name: 'x', type: 'int' }] } },
      { name: 'again', type: ['null', 'Inner'] },
    ],
  };
  const encode = (value: object): Buffer =>
    frame(7, avro.Type.forSchema(schema as avro.Schema, { wrapUnions: true }).toBuffer(value));

  it('maps records, optionals, unions, enums, named references and logical types', () => {
    const compiled = compileAvro(JSON.stringify(schema));
    const { schema: s, value } = compiled.decode(
      encode({
        id: 5,
        amount: Buffer.from([0xff, 0x38]),
        day: 1,
        at: 1_500_999,
        note: { string: 'n' },
        either: { int: 3 },
        kind: 'B',
        inner: { x: 1 },
        again: { 'ns.Inner': { x: 2 } },
      }),
      5,
    );
    expect(value).toEqual({
      id: 5,
      amount: '-2.00',
      day: new Date(86_400_000),
      at: new Date(1500),
      note: 'n',
      either: { int: 3, string: null },
      kind: 'B',
      inner: { x: 1 },
      again: { x: 2 },
    });
    const field = (n: string) => s!.fields!.find((f) => f.name === n)!.schema;
    expect(field('amount')).toMatchObject({
      type: 'bytes',
      name: LOGICAL.decimal,
      parameters: { scale: '2' },
    });
    expect(field('at')).toMatchObject({ type: 'int64', name: LOGICAL.timestamp });
    expect(field('note')).toEqual({ type: 'string', optional: true });
    expect(field('either')).toMatchObject({
      type: 'struct',
      name: 'io.confluent.connect.avro.Union',
      optional: true,
    });
    expect(field('again')).toMatchObject({ type: 'struct', name: 'ns.Inner', optional: true });
  });

  it('says a body is cut short, and refuses a recursive schema', () => {
    const compiled = compileAvro(JSON.stringify(schema));
    expect(() => compiled.decode(frame(7, Buffer.from([10])), 5)).toThrow(/cut short/);
    const recursive = { type: 'record', name: 'Node', fields: [{ name: 'next', type: ['null', 'Node'] }] };
    expect(() => compileAvro(JSON.stringify(recursive))).toThrow(/refers to itself/);
  });
});

describe('Protobuf to Connect', () => {
  const text = `syntax = "proto3";
package p;
import "google/protobuf/timestamp.proto";
message First { int32 a = 1; }
message Second {
  uint64 big = 1;
  repeated Leaf leaves = 2;
  map<int32, string> names = 3;
  oneof choice { string s = 4; int32 i = 5; }
  optional bool flag = 6;
  google.protobuf.Timestamp at = 7;
  message Leaf { sint32 v = 1; }
}`;

  it('picks the message by its indexes and maps repeated, maps, oneof, optional and Timestamp', () => {
    const root = protobuf.parse(text, { keepCase: true }).root;
    root.addJSON(protobuf.common.get('google/protobuf/timestamp.proto')!.nested!);
    const Second = root.lookupType('p.Second');
    const body = Second.encode(
      Second.fromObject({
        big: 42,
        leaves: [{ v: -1 }],
        names: { 7: 'seven' },
        i: 9,
        at: { seconds: 2, nanos: 5e6 },
      }),
    ).finish();
    const compiled = compileProtobuf(text);
    const { schema, value } = compiled.decode(frame(3, Buffer.from(body), [1]), 5);
    expect(value).toEqual({
      choice_0: { s: null, i: 9 },
      big: 42,
      leaves: [{ v: -1 }],
      names: new Map([[7, 'seven']]),
      flag: null,
      at: new Date(2005),
    });
    expect(schema!.name).toBe('p.Second');
    const first = compileProtobuf(text).decode(frame(3, Buffer.from([8, 4]), [0]), 5);
    expect(first.value).toEqual({ a: 4 });
    expect(() => compiled.decode(frame(3, Buffer.alloc(0), [5]), 5)).toThrow(/name no message/);
  });
});

describe('JSON Schema to Connect', () => {
  it('maps objects, required and optional properties, local $refs and Connect annotations', () => {
    const compiled = compileJsonSchema(
      JSON.stringify({
        type: 'object',
        properties: {
          n: { type: 'integer', 'connect.type': 'int32' },
          d: { type: 'number', title: LOGICAL.decimal, 'connect.parameters': { scale: '1' } },
          ref: { $ref: '#/$defs/R' },
          maybe: { type: ['null', 'string'] },
        },
        required: ['n', 'd'],
        $defs: { R: { type: 'object', properties: { z: { type: 'boolean' } }, required: ['z'] } },
      }),
    );
    const { schema, value } = compiled.decode(
      Buffer.from('\0\0\0\0\x01{"n":3,"d":2.5,"ref":{"z":true}}', 'latin1'),
      5,
    );
    expect(value).toEqual({ n: 3, d: '2.5', ref: { z: true }, maybe: null });
    expect(schema!.fields!.map((f) => [f.name, f.schema.type, f.schema.optional === true])).toEqual([
      ['n', 'int32', false],
      ['d', 'bytes', false],
      ['ref', 'struct', true],
      ['maybe', 'string', true],
    ]);
    expect(() => compiled.decode(Buffer.from('\0\0\0\0\x01{"d":1}', 'latin1'), 5)).toThrow(
      /\$\.n: required and missing/,
    );
  });
});

describe('registry converter settings', () => {
  it('lists every problem with its key, and builds the Authorization header', () => {
    let error: unknown;
    try {
      parseRegistrySettings({
        'schema.registry.url': 'ftp://x, not a url',
        'basic.auth.credentials.source': 'USER_INFO',
        'schemas.cache.config': '0',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problemLines()).toEqual([
      'schema.registry.url: ftp://x is not an http or https URL',
      'schema.registry.url: "not a url" is not a URL; accepted: http://host:port or https://host:port, with a path if the registry has one',
      'basic.auth.user.info: is not set (or has no ":"); with basic.auth.credentials.source=USER_INFO it must be user:password',
      'schemas.cache.config: "0" is not a positive integer',
    ]);
    const basic = parseRegistrySettings({
      'schema.registry.url': 'http://u:p%40ss@h:1/api,http://h2:2',
      'basic.auth.credentials.source': 'URL',
    });
    expect(basic.authorization).toBe(`Basic ${Buffer.from('u:p@ss').toString('base64')}`);
    expect(basic.urls.map((u) => u.href)).toEqual(['http://h:1/api', 'http://h2:2/']);
    const bearer = parseRegistrySettings({
      'schema.registry.url': 'http://h:1',
      'bearer.auth.credentials.source': 'STATIC_TOKEN',
      'bearer.auth.token': 't0k',
    });
    expect(bearer.authorization).toBe('Bearer t0k');
  });
});
