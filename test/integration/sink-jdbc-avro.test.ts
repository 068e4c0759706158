// The first "done when": a Confluent JdbcSinkConnector file with AvroConverter (the local
// registry, `npm run registry:start`), insert.mode=upsert, pk.mode=record_value, auto.create=true and
// consumer.override.group.protocol=share, unchanged, upserts every record into PostgreSQL and MariaDB:
// the final table is the last value per key. Records are Avro in the Confluent wire format (magic 0,
// 4-byte schema id), the schema registered through the registry's Confluent API.
import avsc from 'avsc';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import { createTopic, deleteTopics, produce, testBrokers, uniqueTopic } from './harness/kafka.js';
import { TEST_DBS, type TestDb } from './harness/jdbc-dbs.js';
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
  },
);
