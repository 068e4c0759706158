// The JDBC sink in share mode on the real broker, into PostgreSQL and MariaDB:
// - Debezium-shaped change events (JsonConverter with schemas) through ExtractNewRecordState into the
//   sink with delete.enabled=true: inserts, updates and deletes all reflected;
// - order under redelivery: the first put of an update is slowed past its lock (share.lock.renewal=off,
//   a short share.record.lock.duration.ms), so the runtime aborts it and the record is redelivered after
//   a newer update of the same key was written (tasks.max=2: either task may get either record). The
//   newer value stays; with order.guard=false the redelivered older one overwrites it, which shows the
//   test can fail.
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import { createTopic, deleteTopics, produce, testBrokers, uniqueTopic } from './harness/kafka.js';
import { debeziumChange } from './harness/debezium.js';
import { TEST_DBS, type TestDb } from './harness/jdbc-dbs.js';
import { sleep, testLogger } from './harness/share.js';

const topics: string[] = [];
afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

const workerConfig = (extra: Record<string, string> = {}) =>
  compileWorkerConfig({
    'bootstrap.servers': testBrokers(),
    'key.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'pool.threads': '2',
    ...extra,
  });

const field = (name: string, type: string, optional: boolean) => ({ field: name, type, optional });
const ROW = (optional: boolean, f: string) => ({
  type: 'struct',
  fields: [field('id', 'int32', false), field('name', 'string', true), field('qty', 'int32', true)],
  optional,
  name: 'dbserver1.inventory.customers.Value',
  field: f,
});
const ENVELOPE = {
  type: 'struct',
  fields: [
    ROW(true, 'before'),
    ROW(true, 'after'),
    {
      type: 'struct',
      fields: [
        field('version', 'string', false),
        field('connector', 'string', false),
        field('table', 'string', false),
        field('lsn', 'int64', true),
        field('ts_ms', 'int64', false),
      ],
      optional: false,
      name: 'io.debezium.connector.postgresql.Source',
      field: 'source',
    },
    field('op', 'string', false),
    field('ts_ms', 'int64', true),
  ],
  optional: false,
  name: 'dbserver1.inventory.customers.Envelope',
};
const KEY_SCHEMA = {
  type: 'struct',
  fields: [field('id', 'int32', false)],
  optional: false,
  name: 'dbserver1.inventory.customers.Key',
};

type Row = { id: number; name: string | null; qty: number | null };
let lsn = 1000;
function change(op: 'c' | 'u' | 'd', before: Row | null, after: Row | null) {
  const id = (after ?? before)!.id;
  lsn += 8;
  return {
    key: JSON.stringify({ schema: KEY_SCHEMA, payload: { id } }),
    value: JSON.stringify({ schema: ENVELOPE, payload: debeziumChange(op, before, after, lsn) }),
  };
}
const tombstone = (id: number) => ({
  key: JSON.stringify({ schema: KEY_SCHEMA, payload: { id } }),
  value: null,
});

async function runUntil(worker: Worker, done: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  await worker.start();
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline && worker.taskFailures.length === 0 && !(await done())) await sleep(250);
  } finally {
    await worker.stop();
  }
}

describe.each(Object.keys(TEST_DBS) as (keyof typeof TEST_DBS)[])(
  'JDBC sink in share mode on %s',
  (which) => {
    let db: TestDb;
    afterAll(async () => {
      await db?.close();
    });
    const content = async (table: string) =>
      (
        await db.rows(`SELECT * FROM ${db.q(table)} ORDER BY id`).catch((): Record<string, unknown>[] => [])
      ).map((r): Record<string, unknown> & { id: number } => ({ ...r, id: Number(r['id']) }));

    it('Debezium change events through ExtractNewRecordState: inserts, updates and deletes reflected', async () => {
      db ??= await TEST_DBS[which]();
      const topic = uniqueTopic(`jdbc-dbz-${which}`);
      topics.push(topic);
      await createTopic(topic, { partitions: 2 });
      const table = db.table('jdbc_dbz');
      const a1 = { id: 1, name: 'alice', qty: 1 };
      const b1 = { id: 2, name: 'bob', qty: 2 };
      const c1 = { id: 3, name: 'carol', qty: 3 };
      await produce(topic, [
        change('c', null, a1),
        change('c', null, b1),
        change('c', null, c1),
        change('u', a1, { ...a1, qty: 10 }),
        change('d', b1, null),
        tombstone(2),
        change('u', c1, { ...c1, name: 'caroline' }),
        change('u', { ...a1, qty: 10 }, { ...a1, qty: 11 }),
      ]);
      const worker = workerConfig();
      const config = compileConnectorConfig(
        {
          name: `${topic}-jdbc`,
          'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
          'tasks.max': '2',
          topics: topic,
          ...db.props,
          'table.name.format': table,
          'insert.mode': 'upsert',
          'pk.mode': 'record_key',
          'pk.fields': 'id',
          'delete.enabled': 'true',
          'auto.create': 'true',
          'auto.evolve': 'true',
          transforms: 'unwrap',
          'transforms.unwrap.type': 'io.debezium.transforms.ExtractNewRecordState',
          'transforms.unwrap.drop.tombstones': 'false',
          'transforms.unwrap.delete.handling.mode': 'none',
          'transforms.unwrap.add.fields': 'op,source.ts_ms',
          'consumer.override.group.protocol': 'share',
          'share.group.share.auto.offset.reset': 'earliest',
        },
        worker,
      );
      const w = new Worker({ worker, logger: testLogger, connectors: [config] });
      const want = [
        { id: 1, name: 'alice', qty: 11, __op: 'u' },
        { id: 3, name: 'caroline', qty: 3, __op: 'u' },
      ];
      const shaped = async () =>
        (await content(table)).map((r) => ({
          id: r.id,
          name: r['name'],
          qty: Number(r['qty']),
          __op: r['__op'],
        }));
      await runUntil(w, async () => {
        const [summary] = w.summary().connectors;
        return (
          (summary?.counters['recordsAccepted'] ?? 0) >= 8 &&
          JSON.stringify(await shaped()) === JSON.stringify(want)
        );
      });
      expect(w.taskFailures).toEqual([]);
      expect(await shaped()).toEqual(want);
      const rows = await content(table);
      expect(rows.every((r) => Number(r['__source_ts_ms']) > 1_700_000_000_000)).toBe(true);
    });

    it.each([
      ['on', 'the newer value stays', 'v2'],
      ['off', 'the redelivered older value overwrites it (what the guard prevents)', 'v1'],
    ])(
      'order guard %s: an update redelivered after a lock expiry lands after a newer one: %s',
      async (guard, _, expected) => {
        db ??= await TEST_DBS[which]();
        const topic = uniqueTopic(`jdbc-order-${which}`);
        topics.push(topic);
        await createTopic(topic);
        const table = db.table('jdbc_order');
        await db.exec(`CREATE TABLE ${db.q(table)} (id INT PRIMARY KEY, name VARCHAR(20), qty INT)`);
        // v1's first write sleeps 12 s in the database, past its 4 s lock: the runtime aborts the put
        await db.slowFirstWrite(table, 'v1', 12);
        const value = (name: string, qty: number) => ({
          schema: {
            type: 'struct',
            fields: [field('id', 'int32', false), field('name', 'string', true), field('qty', 'int32', true)],
            optional: false,
          },
          payload: { id: 7, name, qty },
        });
        const key = JSON.stringify({ schema: { type: 'int32', optional: false }, payload: 7 });
        await produce(topic, [{ key, value: JSON.stringify(value('v1', 1)) }]);
        // one put per thread: v2 is written on the other thread while v1's put sleeps, whichever task
        // fetches it (a JDBC task's puts keep to one thread while it has room, and would queue behind v1's)
        const worker = workerConfig({ 'pool.puts.per.thread': '1' });
        const config = compileConnectorConfig(
          {
            name: `${topic}-jdbc`,
            'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
            'tasks.max': '2',
            topics: topic,
            ...db.props,
            'table.name.format': table,
            'insert.mode': 'upsert',
            'pk.mode': 'record_value',
            'pk.fields': 'id',
            'order.guard': guard === 'on' ? 'true' : 'false',
            'consumer.override.group.protocol': 'share',
            'share.group.share.auto.offset.reset': 'earliest',
            'share.group.share.record.lock.duration.ms': '4000',
            'share.lock.renewal': 'off',
          },
          worker,
        );
        const w = new Worker({ worker, logger: testLogger, connectors: [config] });
        let producedNewer = false;
        await runUntil(
          w,
          async () => {
            if (!producedNewer) {
              if ((await db.sleeping(table)) === 0) return false;
              // v1's put is asleep in the database: now the newer update of the same key
              await produce(topic, [{ key, value: JSON.stringify(value('v2', 2)) }]);
              producedNewer = true;
              return false;
            }
            const [summary] = w.summary().connectors;
            // v2 accepted, and v1 accepted on its redelivery
            return (summary?.counters['recordsAccepted'] ?? 0) >= 2;
          },
          60_000,
        );
        expect(producedNewer).toBe(true);
        expect(w.taskFailures).toEqual([]);
        const [summary] = w.summary().connectors;
        expect(summary!.counters['recordsAccepted']).toBe(2);
        const rows = await content(table);
        expect(rows.map((r) => r['name'])).toEqual([expected]);
      },
    );
  },
);
