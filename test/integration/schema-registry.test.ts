// Schema Registry converters against the real registry (scripts/registry/start.sh: Apicurio Registry,
// Confluent API), the real broker and PostgreSQL, through `sharesink standalone` in share mode as a user
// runs it. Avro records come from a producer that is not sharesink's (Apache Avro's Java encoder and
// Kafka's Java producer); Protobuf and JSON Schema records are registered and encoded here. Bad records
// (unknown schema id, wrong magic byte) go to the group's dead-letter topic; a registry that cannot be
// reached holds the records back until it answers again.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frame } from '../../src/connect/converters/schema-registry/wire.js';
import { startProxy } from '../faults/harness/tcp-proxy.js';
import { startCli, type CliRun } from './harness/cli.js';
import { createTopic, deleteTopics, produce, testBrokers, uniqueName } from './harness/kafka.js';
import { produceAvroWithJava, registerSchema, schemaRegistry } from './harness/registry.js';
import { readFromBeginning } from './harness/share.js';
import { until } from './harness/wait.js';

const PG_URL = process.env.SHARESINK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
let registryUrl = '';
let db: pg.Client;
const topics: string[] = [];
const tables: string[] = [];
const runs: CliRun[] = [];
const dir = mkdtempSync(path.join(tmpdir(), 'sr-registry-'));

beforeAll(async () => {
  registryUrl = await schemaRegistry();
  db = new pg.Client({ connectionString: PG_URL });
  await db.connect().catch((error: unknown) => {
    throw new Error(`PostgreSQL is not reachable at ${PG_URL}; these tests never skip`, { cause: error });
  });
}, 180_000);

afterAll(async () => {
  for (const run of runs) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  for (const t of tables) await db.query(`DROP TABLE IF EXISTS "${t}"`);
  await db?.end();
  if (topics.length > 0) await deleteTopics(topics);
});

/** Runs one share-mode PostgresSink connector on `topic` with `converter` lines; returns the run. */
function runConnector(
  name: string,
  topic: string,
  table: string,
  converter: string[],
  mode: 'share' | 'classic' = 'share',
): CliRun {
  const worker = path.join(dir, `${name}-worker.properties`);
  writeFileSync(worker, [`bootstrap.servers=${testBrokers()}`, 'pool.threads=1'].join('\n'));
  const connector = path.join(dir, `${name}.properties`);
  writeFileSync(
    connector,
    [
      `name=${name}`,
      `topics=${topic}`,
      'connector.class=PostgresSink',
      `connection.url=${PG_URL}`,
      `table=${table}`,
      'auto.create=true',
      ...(mode === 'share'
        ? [
            'consumer.override.group.protocol=share',
            'share.group.share.auto.offset.reset=earliest',
            'errors.deadletterqueue.copy.record.enable=true',
          ]
        : ['consumer.override.group.protocol=classic', 'consumer.override.auto.offset.reset=earliest']),
      'errors.tolerance=all',
      `errors.deadletterqueue.topic.name=dlq.${name}`,
      'key.converter=org.apache.kafka.connect.storage.StringConverter',
      ...converter,
    ].join('\n'),
  );
  const run = startCli(['standalone', worker, connector]);
  runs.push(run);
  return run;
}

async function stop(run: CliRun): Promise<void> {
  run.child.kill('SIGTERM');
  await run.exited;
}

/** Waits for `n` rows in `table`; on timeout the error carries the worker's log. */
async function rowsIn(table: string, n: number, run: CliRun, timeoutMs = 60_000): Promise<void> {
  try {
    await until(
      `${n} rows in ${table}`,
      () => rowCount(table),
      (c) => c >= n,
      timeoutMs,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- worker log ---\n${run.stderr().slice(-6000)}`, {
      cause: error,
    });
  }
}

async function columns(table: string): Promise<Record<string, string>> {
  const { rows } = await db.query<{ column_name: string; data_type: string; is_nullable: string }>(
    'SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position',
    [table],
  );
  return Object.fromEntries(
    rows.map((r) => [r.column_name, `${r.data_type}${r.is_nullable === 'NO' ? ' not null' : ''}`]),
  );
}

async function rowCount(table: string): Promise<number> {
  try {
    return (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}"`)).rows[0]!.n;
  } catch {
    return 0; // not created yet
  }
}

function names(prefix: string): { name: string; topic: string; table: string } {
  const name = uniqueName(prefix);
  const table = name.replaceAll('-', '_');
  topics.push(name);
  tables.push(table);
  return { name, topic: name, table };
}

const ORDER_SCHEMA = {
  type: 'record',
  name: 'Order',
  namespace: 'sr.test',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'name', type: 'string' },
    { name: 'qty', type: 'int' },
    { name: 'price', type: { type: 'bytes', logicalType: 'decimal', precision: 10, scale: 2 } },
    {
      name: 'fee',
      type: { type: 'fixed', name: 'Fee', size: 8, logicalType: 'decimal', precision: 12, scale: 3 },
    },
    { name: 'day', type: { type: 'int', logicalType: 'date' } },
    { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'at_micros', type: { type: 'long', logicalType: 'timestamp-micros' } },
    { name: 'clock', type: { type: 'int', logicalType: 'time-millis' } },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID'] } },
    { name: 'tags', type: { type: 'array', items: 'string' } },
    { name: 'attrs', type: { type: 'map', values: 'int' } },
    {
      name: 'address',
      type: {
        type: 'record',
        name: 'Address',
        fields: [
          { name: 'city', type: 'string' },
          { name: 'zip', type: ['null', 'int'] },
        ],
      },
    },
    { name: 'ok', type: 'boolean' },
    { name: 'ratio', type: 'double' },
  ],
};

describe('Schema Registry converters into PostgreSQL', () => {
  it('Avro from a Java producer: every field lands with its type; unknown id and wrong magic go to the DLQ', async () => {
    const { name, topic, table } = names('sr-avro');
    await createTopic(topic);
    const id = await produceAvroWithJava(testBrokers(), topic, ORDER_SCHEMA, [
      {
        id: 1,
        name: 'one',
        qty: 3,
        price: '12.34',
        fee: '-0.005',
        day: '2024-02-29',
        at: 1700000000123,
        at_micros: 1700000000456,
        clock: 3723004,
        note: 'hi',
        status: 'PAID',
        tags: ['a', 'b'],
        attrs: { x: 1 },
        address: { city: 'Oslo', zip: 150 },
        ok: true,
        ratio: 0.5,
      },
      {
        id: 2,
        name: 'two',
        qty: -1,
        price: '-99999999.99',
        fee: '123456789.123',
        day: '1969-12-31',
        at: 0,
        at_micros: 1,
        clock: 0,
        note: null,
        status: 'NEW',
        tags: [],
        attrs: {},
        address: { city: 'Rome', zip: null },
        ok: false,
        ratio: -1.25,
      },
    ]);
    // bad records: an id no registry knows, bytes that are not framed, and a truncated body
    await produce(topic, [
      { key: 'unknown-id', value: frame(2_000_000_000, Buffer.from([2, 4])) },
      { key: 'wrong-magic', value: Buffer.from('{"id": 3}') },
      { key: 'cut-short', value: frame(id, Buffer.from([2])) },
    ]);
    const run = runConnector(name, topic, table, [
      'value.converter=io.confluent.connect.avro.AvroConverter',
      // the first URL refuses connections: the converter fails over to the second
      `value.converter.schema.registry.url=http://127.0.0.1:1/apis/ccompat/v7,${registryUrl}`,
      'value.converter.auto.register.schemas=false',
      // one line per bad record, as Connect's errors.log.enable gives
      'errors.log.enable=true',
    ]);
    await rowsIn(table, 2, run);
    const dead = await readFromBeginning(`dlq.${name}`, 3, 30_000);
    await stop(run);

    expect(await columns(table)).toEqual({
      id: 'bigint not null',
      name: 'text not null',
      qty: 'integer not null',
      price: 'numeric not null',
      fee: 'numeric not null',
      day: 'date not null',
      at: 'timestamp with time zone not null',
      at_micros: 'timestamp with time zone not null',
      clock: 'time without time zone not null',
      note: 'text',
      status: 'text not null',
      tags: 'jsonb not null',
      attrs: 'jsonb not null',
      address: 'jsonb not null',
      ok: 'boolean not null',
      ratio: 'double precision not null',
    });
    const { rows } = await db.query(
      `SELECT id, name, qty, price::text, fee::text, day::text, (extract(epoch from at) * 1000)::bigint::text AS at_ms, (extract(epoch from at_micros) * 1000)::bigint::text AS at_micros_ms,
              clock::text, note, status, tags, attrs, address, ok, ratio FROM "${table}" ORDER BY id`,
    );
    expect(rows).toEqual([
      {
        id: '1',
        name: 'one',
        qty: 3,
        price: '12.34',
        fee: '-0.005',
        day: '2024-02-29',
        at_ms: '1700000000123',
        at_micros_ms: '1700000000456',
        clock: '01:02:03.004',
        note: 'hi',
        status: 'PAID',
        tags: ['a', 'b'],
        attrs: { x: 1 },
        address: { city: 'Oslo', zip: 150 },
        ok: true,
        ratio: 0.5,
      },
      {
        id: '2',
        name: 'two',
        qty: -1,
        price: '-99999999.99',
        fee: '123456789.123',
        day: '1969-12-31',
        at_ms: '0',
        at_micros_ms: '1',
        clock: '00:00:00',
        note: null,
        status: 'NEW',
        tags: [],
        attrs: {},
        address: { city: 'Rome', zip: null },
        ok: false,
        ratio: -1.25,
      },
    ]);
    expect(dead.map((r) => r.key?.toString()).sort()).toEqual(['cut-short', 'unknown-id', 'wrong-magic']);
    const log = run.stderr();
    expect(log).toMatch(/schema id 2000000000 is not known to the schema registry at .*\(404\)/);
    expect(log).toMatch(
      /not in the Schema Registry wire format: the first byte is 123, not the magic byte 0/,
    );
    expect(log).toMatch(/the Avro body is cut short/);
    expect(log).toMatch(
      /value\.converter\.auto\.register\.schemas: ignored by sharesink's AvroConverter: only a serializer reads it/,
    );
  }, 180_000);

  it('Protobuf and JSON Schema registered and encoded here: typed columns and values', async () => {
    const proto = names('sr-proto');
    const jsonS = names('sr-json');
    await Promise.all([createTopic(proto.topic), createTopic(jsonS.topic)]);

    const protoText = `syntax = "proto3";
package sr.test;
import "google/protobuf/timestamp.proto";
message Unused { string x = 1; }
message Shipment {
  int64 id = 1;
  string name = 2;
  double weight = 3;
  bool fragile = 4;
  Kind kind = 5;
  repeated string tags = 6;
  map<string, int32> counts = 7;
  Dest dest = 8;
  google.protobuf.Timestamp sent = 9;
  optional string note = 10;
  uint32 boxes = 11;
  bytes blob = 12;
  message Dest { string city = 1; int32 zip = 2; }
  enum Kind { SMALL = 0; LARGE = 1; }
}`;
    const protoId = await registerSchema(`${proto.topic}-value`, protoText, 'PROTOBUF');
    const root = protobuf.parse(protoText, { keepCase: true }).root;
    root.addJSON(protobuf.common.get('google/protobuf/timestamp.proto')!.nested!);
    const Shipment = root.lookupType('sr.test.Shipment');
    const encode = (value: object): Buffer =>
      frame(protoId, Buffer.from(Shipment.encode(Shipment.fromObject(value)).finish()), [1]);
    await produce(proto.topic, [
      {
        key: 'p1',
        value: encode({
          id: 7,
          name: 'box',
          weight: 1.5,
          fragile: true,
          kind: 1,
          tags: ['x', 'y'],
          counts: { a: 2 },
          dest: { city: 'Lima', zip: 15001 },
          sent: { seconds: 1700000000, nanos: 250_000_000 },
          note: 'n',
          boxes: 4000000000,
          blob: Buffer.from([1, 2, 255]),
        }),
      },
      {
        key: 'p2',
        value: encode({
          id: 8,
          name: '',
          weight: 0,
          fragile: false,
          kind: 0,
          tags: [],
          counts: {},
          boxes: 0,
        }),
      },
    ]);

    const jsonSchema = {
      type: 'object',
      title: 'sr.test.Reading',
      properties: {
        sensor: { type: 'string' },
        value: { type: 'number' },
        count: { type: 'integer' },
        small: { type: 'integer', 'connect.type': 'int16' },
        ok: { type: 'boolean' },
        amount: {
          type: 'number',
          title: 'org.apache.kafka.connect.data.Decimal',
          'connect.parameters': { scale: '2' },
        },
        day: { type: 'integer', title: 'org.apache.kafka.connect.data.Date', 'connect.type': 'int32' },
        at: { type: 'integer', title: 'org.apache.kafka.connect.data.Timestamp', 'connect.type': 'int64' },
        place: { $ref: '#/definitions/Place' },
        labels: { type: 'array', items: { type: 'string' } },
        extra: { type: 'object', additionalProperties: { type: 'integer' } },
        comment: { oneOf: [{ type: 'null' }, { type: 'string' }] },
      },
      required: ['sensor', 'value', 'count', 'small', 'ok', 'amount', 'day', 'at', 'labels', 'extra'],
      definitions: {
        Place: { type: 'object', properties: { room: { type: 'string' } }, required: ['room'] },
      },
    };
    const jsonId = await registerSchema(`${jsonS.topic}-value`, JSON.stringify(jsonSchema), 'JSON');
    const json = (value: object): Buffer => frame(jsonId, Buffer.from(JSON.stringify(value)));
    await produce(jsonS.topic, [
      {
        key: 'j1',
        value: json({
          sensor: 's1',
          value: 20.5,
          count: 9007199254740991,
          small: -3,
          ok: true,
          amount: 10.25,
          day: 19782,
          at: 1700000000999,
          place: { room: 'lab' },
          labels: ['a'],
          extra: { k: 1 },
          comment: 'warm',
        }),
      },
      {
        key: 'j2',
        value: json({
          sensor: 's2',
          value: -1,
          count: 0,
          small: 0,
          ok: false,
          amount: 0,
          day: 0,
          at: 0,
          labels: [],
          extra: {},
          comment: null,
        }),
      },
    ]);

    const protoRun = runConnector(proto.name, proto.topic, proto.table, [
      'value.converter=io.confluent.connect.protobuf.ProtobufConverter',
      `value.converter.schema.registry.url=${registryUrl}`,
    ]);
    const jsonRun = runConnector(jsonS.name, jsonS.topic, jsonS.table, [
      'value.converter=io.confluent.connect.json.JsonSchemaConverter',
      `value.converter.schema.registry.url=${registryUrl}`,
    ]);
    await Promise.all([rowsIn(proto.table, 2, protoRun), rowsIn(jsonS.table, 2, jsonRun)]);
    await Promise.all([stop(protoRun), stop(jsonRun)]);

    expect(await columns(proto.table)).toEqual({
      id: 'bigint not null',
      name: 'text not null',
      weight: 'double precision not null',
      fragile: 'boolean not null',
      kind: 'text not null',
      tags: 'jsonb not null',
      counts: 'jsonb not null',
      dest: 'jsonb',
      sent: 'timestamp with time zone',
      note: 'text',
      boxes: 'bigint not null',
      blob: 'bytea not null',
    });
    const p = await db.query(
      `SELECT id, name, weight, fragile, kind, tags, counts, dest, (extract(epoch from sent) * 1000)::bigint::text AS sent_ms, note, boxes, encode(blob, 'hex') AS blob FROM "${proto.table}" ORDER BY id`,
    );
    expect(p.rows).toEqual([
      {
        id: '7',
        name: 'box',
        weight: 1.5,
        fragile: true,
        kind: 'LARGE',
        tags: ['x', 'y'],
        counts: { a: 2 },
        dest: { city: 'Lima', zip: 15001 },
        sent_ms: '1700000000250',
        note: 'n',
        boxes: '4000000000',
        blob: '0102ff',
      },
      {
        id: '8',
        name: '',
        weight: 0,
        fragile: false,
        kind: 'SMALL',
        tags: [],
        counts: {},
        dest: null,
        sent_ms: null,
        note: null,
        boxes: '0',
        blob: '',
      },
    ]);

    expect(await columns(jsonS.table)).toEqual({
      sensor: 'text not null',
      value: 'double precision not null',
      count: 'bigint not null',
      small: 'smallint not null',
      ok: 'boolean not null',
      amount: 'numeric not null',
      day: 'date not null',
      at: 'timestamp with time zone not null',
      place: 'jsonb',
      labels: 'jsonb not null',
      extra: 'jsonb not null',
      comment: 'text',
    });
    const j = await db.query(
      `SELECT sensor, value, count, small, ok, amount::text, day::text, (extract(epoch from at) * 1000)::bigint::text AS at_ms, place, labels, extra, comment FROM "${jsonS.table}" ORDER BY sensor`,
    );
    expect(j.rows).toEqual([
      {
        sensor: 's1',
        value: 20.5,
        count: '9007199254740991',
        small: -3,
        ok: true,
        amount: '10.25',
        day: '2024-02-29',
        at_ms: '1700000000999',
        place: { room: 'lab' },
        labels: ['a'],
        extra: { k: 1 },
        comment: 'warm',
      },
      {
        sensor: 's2',
        value: -1,
        count: '0',
        small: 0,
        ok: false,
        amount: '0.00',
        day: '1970-01-01',
        at_ms: '0',
        place: null,
        labels: [],
        extra: {},
        comment: null,
      },
    ]);
  }, 180_000);

  it('a registry that cannot be reached holds the records back, says so once, and loses nothing', async () => {
    const { name, topic, table } = names('sr-down');
    await createTopic(topic);
    const schema = JSON.stringify({ type: 'record', name: 'Ping', fields: [{ name: 'n', type: 'int' }] });
    const id = await registerSchema(`${topic}-value`, schema);
    // Avro binary of {n}: a zigzag varint
    await produce(
      topic,
      [1, 2, 3].map((n) => ({ key: `k${n}`, value: frame(id, Buffer.from([n * 2])) })),
    );
    const registryPort = Number(new URL(registryUrl).port);
    const proxy = await startProxy({ host: '127.0.0.1', port: registryPort });
    await proxy.down();
    const viaProxy = `http://127.0.0.1:${proxy.port}/apis/ccompat/v7`;
    const run = runConnector(name, topic, table, [
      'value.converter=io.confluent.connect.avro.AvroConverter',
      `value.converter.schema.registry.url=${viaProxy}`,
    ]);
    try {
      await until(
        'the unreachable-registry line',
        () => run.stderr(),
        (log) => log.includes('the schema registry cannot be reached'),
        60_000,
      );
      await new Promise((r) => setTimeout(r, 3_000)); // several retries go by
      expect(await rowCount(table)).toBe(0);
      await proxy.up();
      await rowsIn(table, 3, run);
    } finally {
      await stop(run);
      await proxy.close();
    }
    const log = run.stderr();
    const lines = log.split('\n').filter((l) => l.includes('the schema registry cannot be reached'));
    // warned once at the first failed attempt (later attempts log at debug)
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${viaProxy}/schemas/ids/${id}`);
    expect(lines[0]).toContain('ECONNREFUSED');
    const { rows } = await db.query(`SELECT n FROM "${table}" ORDER BY n`);
    expect(rows).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  }, 180_000);

  it("classic mode: a bad record goes to Connect's dead-letter topic, the good ones to the table", async () => {
    const { name, topic, table } = names('sr-classic');
    await createTopic(topic);
    topics.push(`dlq.${name}`);
    const schema = JSON.stringify({ type: 'record', name: 'Ping', fields: [{ name: 'n', type: 'int' }] });
    const id = await registerSchema(`${topic}-value`, schema);
    await produce(topic, [
      { key: 'k1', value: frame(id, Buffer.from([2])) },
      { key: 'bad', value: frame(2_000_000_001, Buffer.from([4])) },
      { key: 'k3', value: frame(id, Buffer.from([6])) },
    ]);
    const run = runConnector(
      name,
      topic,
      table,
      [
        'value.converter=io.confluent.connect.avro.AvroConverter',
        `value.converter.schema.registry.url=${registryUrl}`,
      ],
      'classic',
    );
    await rowsIn(table, 2, run);
    const [dead] = await readFromBeginning(`dlq.${name}`, 1, 30_000);
    await stop(run);
    expect(dead!.key?.toString()).toBe('bad');
    expect((await db.query(`SELECT n FROM "${table}" ORDER BY n`)).rows).toEqual([{ n: 1 }, { n: 3 }]);
  }, 180_000);
});
