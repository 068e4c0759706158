// The first "done when": a Confluent JdbcSinkConnector file with AvroConverter (the local
// registry, `npm run registry:start`), insert.mode=upsert, pk.mode=record_value, auto.create=true and
// consumer.override.group.protocol=share, unchanged, upserts every record into PostgreSQL and MariaDB:
// the final table is the last value per key. Records are Avro in the Confluent wire format (magic 0,
// 4-byte schema id), the schema registered through the registry's Confluent API.
// And Debezium change events in Avro, keys and values, from a producer that is not ours (Apache Avro's
// Java encoder and Kafka's Java producer, harness/registry.ts), through ExtractNewRecordState into the
// sink with delete.enabled=true and pk.mode=record_key: inserts, updates and deletes all reflected.
// PostgreSQL gets delete events only (delete.tombstone.handling.mode=tombstone turns each into a
// tombstone); MariaDB gets Debezium's delete event + tombstone pairs with the older keys
// (delete.handling.mode=drop, drop.tombstones=false: the tombstone deletes).
import avsc from 'avsc';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import { createTopic, deleteTopics, produce, testBrokers, uniqueTopic } from './harness/kafka.js';
import { debeziumChange } from './harness/debezium.js';
import { TEST_DBS, type TestDb } from './harness/jdbc-dbs.js';
import { produceAvroWithJava, schemaRegistry } from './harness/registry.js';
import { sleep, testLogger } from './harness/share.js';

const REGISTRY = process.env.SHARESINK_TEST_REGISTRY_URL ?? 'http://127.0.0.1:18081/apis/ccompat/v7';
const SCHEMA = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'int' },
    { name: 'customer', type: 'string' },
    { name: 'amount', type: 'double' },
    { name: 'note', type: ['null', 'string'], default: null },
  ],
};
const type = avsc.Type.forSchema(SCHEMA as avsc.Schema);

async function register(subject: string): Promise<number> {
  const response = await fetch(`${REGISTRY}/subjects/${subject}/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ schema: JSON.stringify(SCHEMA) }),
  }).catch((cause: unknown) => {
    throw new Error(
      `no schema registry answers at ${REGISTRY}: run npm run registry:start (these tests never skip)`,
      { cause },
    );
  });
  if (!response.ok) throw new Error(`registering ${subject}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: number }).id;
}

const DBZ_ROW = {
  type: 'record',
  name: 'Value',
  namespace: 'dbserver1.inventory.customers',
  fields: [
    { name: 'id', type: 'int' },
    { name: 'name', type: ['null', 'string'], default: null },
    { name: 'qty', type: ['null', 'int'], default: null },
  ],
};
const DBZ_ENVELOPE = {
  type: 'record',
  name: 'Envelope',
  namespace: 'dbserver1.inventory.customers',
  fields: [
    { name: 'before', type: ['null', DBZ_ROW], default: null },
    { name: 'after', type: ['null', 'dbserver1.inventory.customers.Value'], default: null },
    {
      name: 'source',
      type: {
        type: 'record',
        name: 'Source',
        namespace: 'io.debezium.connector.postgresql',
        fields: [
          { name: 'version', type: 'string' },
          { name: 'connector', type: 'string' },
          { name: 'table', type: 'string' },
          { name: 'lsn', type: ['null', 'long'], default: null },
          { name: 'ts_ms', type: 'long' },
        ],
      },
    },
    { name: 'op', type: 'string' },
    { name: 'ts_ms', type: ['null', 'long'], default: null },
  ],
};
const DBZ_KEY = {
  type: 'record',
  name: 'Key',
  namespace: 'dbserver1.inventory.customers',
  fields: [{ name: 'id', type: 'int' }],
};
type DbzRow = { id: number; name: string | null; qty: number | null };

const framed = (id: number, value: object): Buffer => {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(id, 1);
  return Buffer.concat([head, type.toBuffer(value)]);
};

const topics: string[] = [];
afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

describe.each(Object.keys(TEST_DBS) as (keyof typeof TEST_DBS)[])(
  'Avro → JDBC sink, share mode, %s',
  (which) => {
    let db: TestDb;
    afterAll(async () => {
      await db?.close();
    });

    it('upserts every record: the final table is the last value per key', async () => {
      db = await TEST_DBS[which]();
      const topic = uniqueTopic(`jdbc-avro-${which}`);
      topics.push(topic);
      await createTopic(topic, { partitions: 3 });
      const id = await register(`${topic}-value`);
      const last = new Map<number, { id: number; customer: string; amount: number; note: string | null }>();
      const records = [];
      for (let round = 0; round < 4; round++) {
        for (let k = 0; k < 25; k++) {
          const value = {
            id: k,
            customer: `c${k}-r${round}`,
            amount: round * 100 + k + 0.5,
            note: round % 2 ? `r${round}` : null,
          };
          last.set(k, value);
          records.push({ key: String(k), value: framed(id, value) });
        }
      }
      await produce(topic, records);
      const table = db.table('jdbc_avro');
      const worker = compileWorkerConfig({
        'bootstrap.servers': testBrokers(),
        'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
        'pool.threads': '2',
      });
      const config = compileConnectorConfig(
        {
          name: `${topic}-jdbc`,
          'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
          'tasks.max': '2',
          topics: topic,
          ...db.props,
          'table.name.format': table,
          'value.converter': 'io.confluent.connect.avro.AvroConverter',
          'value.converter.schema.registry.url': REGISTRY,
          'insert.mode': 'upsert',
          'pk.mode': 'record_value',
          'pk.fields': 'id',
          'auto.create': 'true',
          'consumer.override.group.protocol': 'share',
        },
        worker,
      );
      const w = new Worker({ worker, logger: testLogger, connectors: [config] });
      await w.start();
      const deadline = Date.now() + 60_000;
      try {
        while (
          Date.now() < deadline &&
          w.taskFailures.length === 0 &&
          (w.summary().connectors[0]?.counters['recordsAccepted'] ?? 0) < 100
        )
          await sleep(250);
      } finally {
        await w.stop();
      }
      expect(w.taskFailures).toEqual([]);
      expect(w.summary().connectors[0]!.counters['recordsAccepted']).toBe(100);
      const rows = await db.rows(`SELECT id, customer, amount, note FROM ${db.q(table)} ORDER BY id`);
      expect(
        rows.map((r) => ({
          id: Number(r['id']),
          customer: r['customer'],
          amount: Number(r['amount']),
          note: r['note'],
        })),
      ).toEqual([...last.values()]);
    });

    it('Debezium change events in Avro through ExtractNewRecordState: inserts, updates and deletes reflected', async () => {
      db ??= await TEST_DBS[which]();
      const registry = await schemaRegistry();
      const topic = uniqueTopic(`jdbc-dbz-avro-${which}`);
      topics.push(topic);
      await createTopic(topic, { partitions: 2 });
      let lsn = 1000;
      const change = (op: 'c' | 'u' | 'd', before: DbzRow | null, after: DbzRow | null) => {
        lsn += 8;
        return {
          key: { id: (after ?? before)!.id },
          value: debeziumChange(op, before, after, lsn),
        };
      };
      // MariaDB's run gets Debezium's default pairs (delete event, then tombstone); PostgreSQL's only the delete events
      const tombstones = which === 'mariadb';
      const tombstone = (id: number) => (tombstones ? [{ key: { id }, value: null }] : []);
      const [a, b, c, d] = [
        { id: 1, name: 'alice', qty: 1 },
        { id: 2, name: 'bob', qty: 2 },
        { id: 3, name: 'carol', qty: 3 },
        { id: 4, name: 'dave', qty: null },
      ];
      const events = [
        change('c', null, a),
        change('c', null, b),
        change('c', null, c),
        change('c', null, d),
        change('u', a, { ...a, qty: 10 }),
        change('d', b, null),
        ...tombstone(2),
        change('u', c, { ...c, name: 'caroline', qty: null }),
        change('d', d, null),
        ...tombstone(4),
        change('u', { ...a, qty: 10 }, { ...a, qty: 11 }),
      ];
      await produceAvroWithJava(testBrokers(), topic, DBZ_ENVELOPE, events, DBZ_KEY);
      const table = db.table('jdbc_dbz_avro');
      const worker = compileWorkerConfig({ 'bootstrap.servers': testBrokers(), 'pool.threads': '2' });
      const config = compileConnectorConfig(
        {
          name: `${topic}-jdbc`,
          'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
          'tasks.max': '2',
          topics: topic,
          ...db.props,
          'table.name.format': table,
          'key.converter': 'io.confluent.connect.avro.AvroConverter',
          'key.converter.schema.registry.url': registry,
          'value.converter': 'io.confluent.connect.avro.AvroConverter',
          'value.converter.schema.registry.url': registry,
          'insert.mode': 'upsert',
          'pk.mode': 'record_key',
          'delete.enabled': 'true',
          'auto.create': 'true',
          transforms: 'unwrap',
          'transforms.unwrap.type': 'io.debezium.transforms.ExtractNewRecordState',
          ...(tombstones
            ? {
                'transforms.unwrap.delete.handling.mode': 'drop',
                'transforms.unwrap.drop.tombstones': 'false',
              }
            : { 'transforms.unwrap.delete.tombstone.handling.mode': 'tombstone' }),
          'transforms.unwrap.add.fields': 'op',
          'consumer.override.group.protocol': 'share',
        },
        worker,
      );
      const want = [
        { id: 1, name: 'alice', qty: 11, __op: 'u' },
        { id: 3, name: 'caroline', qty: null, __op: 'u' },
      ];
      const content = async () =>
        (
          await db
            .rows(`SELECT id, name, qty, __op FROM ${db.q(table)} ORDER BY id`)
            .catch((): Record<string, unknown>[] => [])
        ).map((r) => ({
          id: Number(r['id']),
          name: r['name'],
          qty: r['qty'] === null ? null : Number(r['qty']),
          __op: r['__op'],
        }));
      const w = new Worker({ worker, logger: testLogger, connectors: [config] });
      await w.start();
      const deadline = Date.now() + 60_000;
      try {
        while (
          Date.now() < deadline &&
          w.taskFailures.length === 0 &&
          !(
            (w.summary().connectors[0]?.counters['recordsAccepted'] ?? 0) >= events.length &&
            JSON.stringify(await content()) === JSON.stringify(want)
          )
        )
          await sleep(250);
      } finally {
        await w.stop();
      }
      expect(w.taskFailures).toEqual([]);
      expect(w.summary().connectors[0]!.counters['recordsAccepted']).toBe(events.length);
      expect(await content()).toEqual(want);
      const columns = (await db.rows(`SELECT * FROM ${db.q(table)} WHERE id = 1`))[0]!;
      // the key's field is the primary key and the row has the after state's fields, no envelope
      expect(Object.keys(columns).sort()).toEqual(['__op', 'id', 'name', 'qty']);
    });
  },
);
