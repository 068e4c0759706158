// PostgresSink against the real PostgreSQL server (SHARESINK_TEST_PG_URL, default
// postgres://postgres@127.0.0.1:5432/test). No server, no green run: beforeAll connects and fails.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import {
  convertersFromProps,
  isRetriableError,
  resolveConnectorModule,
  SinkRecord,
  type RawRecord,
  type Schema,
} from '../../src/connect/index.js';
import { PutPool } from '../../src/pool/put-pool.js';
import { PostgresSinkConnector, PostgresSinkTask } from '../../src/sinks/postgres/index.js';
import { toRow } from '../../src/sinks/postgres/rows.js';
import { createTableSql } from '../../src/sinks/postgres/sql.js';
import { testTaskContext, type ErrantReport } from '../../src/testing/task-context.js';
import { startProxy } from '../faults/harness/tcp-proxy.js';

const PG_URL = process.env.SHARESINK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

type Errant = ErrantReport;
interface PgTask {
  task: PostgresSinkTask;
  errant: Errant[];
}

/** A task driven directly, with a context that collects errant reports as the runtime would. */
async function pgTask(props: Record<string, string>): Promise<PgTask> {
  const task = new PostgresSinkTask();
  const { context, errant } = testTaskContext(props);
  task.initialize(context);
  await task.start(props);
  return { task, errant };
}

let admin: pg.Client;
/** DROP statements, run in reverse at the end. */
const cleanup: string[] = [];
const tasks: PgTask[] = [];

beforeAll(async () => {
  admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect().catch((error: unknown) => {
    throw new Error(
      `PostgreSQL is not reachable at ${PG_URL} (set SHARESINK_TEST_PG_URL); these tests never skip`,
      {
        cause: error,
      },
    );
  });
});
afterAll(async () => {
  await Promise.all(tasks.map((t) => t.task.stop()));
  for (const sql of cleanup.reverse()) await admin.query(sql);
  await admin?.end();
});

function uniqueTable(prefix = 'sink_pg'): string {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  cleanup.push(`DROP TABLE IF EXISTS ${q(name)}`);
  return name;
}

const q = (identifier: string): string => `"${identifier.replaceAll('"', '""')}"`;

async function start(props: Record<string, string>): Promise<PgTask> {
  const t = await pgTask({ 'connection.url': PG_URL, ...props });
  tasks.push(t);
  return t;
}

let nextOffset = 0;
function rec(value: unknown, init: Partial<ConstructorParameters<typeof SinkRecord>[0]> = {}): SinkRecord {
  return new SinkRecord({
    topic: 'orders',
    partition: 0,
    offset: nextOffset++,
    timestamp: 1_700_000_000_000,
    timestampType: 'CreateTime',
    key: null,
    value,
    ...init,
  });
}

/** Resolves once a session is blocked on a lock while running a statement that names `table`. */
async function waitForLockWait(table: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const [row] = await rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $$%${table}%$$`,
    );
    if (row!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no session waited on a lock for ${table} within 5 s`);
}

async function rows<T = Record<string, unknown>>(sql: string): Promise<T[]> {
  return (await admin.query(sql)).rows as T[];
}

/** Counts INSERT statements on a table with a statement-level trigger: proof of batching. */
async function countStatements(table: string): Promise<() => Promise<number>> {
  const counter = `${table}_stmts`;
  cleanup.push(`DROP TABLE IF EXISTS "${counter}"`, `DROP FUNCTION IF EXISTS "${counter}_fn" CASCADE`);
  await admin.query(`CREATE TABLE "${counter}" (n int NOT NULL)`);
  await admin.query(`INSERT INTO "${counter}" VALUES (0)`);
  await admin.query(`CREATE FUNCTION "${counter}_fn"() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN UPDATE "${counter}" SET n = n + 1; RETURN NULL; END $$`);
  await admin.query(
    `CREATE TRIGGER "${counter}_t" AFTER INSERT ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION "${counter}_fn"()`,
  );
  return async () => (await rows<{ n: number }>(`SELECT n FROM "${counter}"`))[0]!.n;
}

describe('PostgresSink against PostgreSQL', () => {
  it('insert: writes 250 struct records with one multi-row INSERT per batch.size rows', async () => {
    const table = uniqueTable();
    await admin.query(`CREATE TABLE "${table}" (id int, name text, tags text[], meta jsonb, at timestamptz)`);
    const statements = await countStatements(table);
    const { task, errant } = await start({ table, 'batch.size': '100' });
    const batch = Array.from({ length: 250 }, (_, i) =>
      rec({ id: i, name: `n${i}`, tags: ['a', `t${i}`], meta: { i, deep: [i] }, at: new Date(i * 1000) }),
    );
    await task.put(batch);
    expect(errant).toEqual([]);
    expect(await statements()).toBe(3);
    expect(await rows(`SELECT count(*)::int AS n FROM "${table}"`)).toEqual([{ n: 250 }]);
    expect(await rows(`SELECT id, name, tags, meta, at FROM "${table}" WHERE id = 7`)).toEqual([
      { id: 7, name: 'n7', tags: ['a', 't7'], meta: { i: 7, deep: [7] }, at: new Date(7000) },
    ]);
  });

  it('a multi-row statement (one array per column) writes what one row at a time would, for awkward values and types', async () => {
    const table = uniqueTable();
    const schema = `sink_pg "schema" ${randomBytes(3).toString('hex')}`;
    cleanup.push(`DROP SCHEMA IF EXISTS ${q(schema)} CASCADE`);
    await admin.query(`CREATE SCHEMA ${q(schema)}`);
    await admin.query(`CREATE TYPE ${q(schema)}."Mood" AS ENUM ('ok', 'sad')`);
    await admin.query(`CREATE DOMAIN ${q(schema)}.small AS int CHECK (VALUE < 100)`);
    await admin.query(
      `CREATE TABLE ${q(schema)}.${q(table)} (id int, txt text, code char(3), short varchar(5), big bigint,
         amount numeric(8,2), ratio double precision, ok boolean, raw bytea, doc jsonb, plain json,
         day date, at time, ts timestamptz, "timestamp" timestamp, mood ${q(schema)}."Mood", n ${q(schema)}.small)`,
    );
    const awkward = ['a"b', 'back\\slash', '{braces},comma', 'NULL', '', ' padded ', 'ünï ☃', 'x\ny'];
    const values = awkward.map((txt, i) => ({
      id: i,
      txt,
      code: i % 2 === 0 ? 'ab' : 'xyz',
      short: txt.slice(0, 5),
      big: 2 ** 53 - i,
      amount: 1234.567 + i,
      ratio: i === 0 ? null : 1 / i,
      ok: i % 2 === 0,
      raw: Buffer.from([0, 92, 34, i]),
      doc: { txt, n: [i, '"q"'] },
      plain: [txt],
      day: new Date(Date.UTC(2024, 1, 29 - i)),
      at: new Date(Date.UTC(1970, 0, 1, 12, i, 30, 125)),
      ts: new Date(Date.UTC(2024, 0, 1, 0, 0, i)),
      timestamp: `2024-01-01 00:00:0${i}`,
      mood: i % 2 === 0 ? 'ok' : 'sad',
      n: i,
    }));
    const { task, errant } = await start({ table, 'table.schema': schema });
    await task.put(values.map((v) => rec(v)));
    await task.put([rec({ ...values[0]!, id: 100 })]); // one row: written with VALUES
    expect(errant).toEqual([]);
    const written = await rows(
      `SELECT id, txt, code, short, big::text, amount::text, ratio, ok, raw, doc, plain, day::text, at::text,
              ts, "timestamp"::text, mood::text, n FROM ${q(schema)}.${q(table)} ORDER BY id`,
    );
    const expected = (v: (typeof values)[number], id = v.id) => ({
      id,
      txt: v.txt,
      code: v.code.padEnd(3),
      short: v.short,
      big: String(v.big),
      amount: (Math.round(v.amount * 100) / 100).toFixed(2),
      ratio: v.ratio,
      ok: v.ok,
      raw: v.raw,
      doc: v.doc,
      plain: v.plain,
      day: v.day.toISOString().slice(0, 10),
      at: v.at.toISOString().slice(11, 23),
      ts: v.ts,
      timestamp: v.timestamp,
      mood: v.mood,
      n: v.n,
    });
    expect(written).toEqual([...values.map((v) => expected(v)), expected(values[0]!, 100)]);
  });

  it('a multi-row statement fails like VALUES would: too long for char(n) or varchar(n), not a number', async () => {
    const table = uniqueTable();
    await admin.query(`CREATE TABLE "${table}" (id int, code char(2), short varchar(3))`);
    const { task, errant } = await start({ table });
    const batch = [
      rec({ id: 1, code: 'ab', short: 'abc' }),
      rec({ id: 2, code: 'abc', short: 'a' }), // char(2): an explicit cast would truncate, assignment refuses
      rec({ id: 3, code: 'a', short: 'abcd' }),
      rec({ id: '4.5', code: 'a', short: 'a' }),
      rec({ id: 5, code: null, short: null }),
    ];
    await task.put(batch);
    expect(await rows(`SELECT id, code, short FROM "${table}" ORDER BY id`)).toEqual([
      { id: 1, code: 'ab', short: 'abc' },
      { id: 5, code: null, short: null },
    ]);
    expect(errant.map((e) => e.message)).toEqual([
      expect.stringMatching(/too long.*SQLSTATE 22001/),
      expect.stringMatching(/too long.*SQLSTATE 22001/),
      expect.stringMatching(/invalid input syntax for type integer.*SQLSTATE 22P02/),
    ]);
  });

  it('a column whose type changed under the task is written row by row once, then by one statement again', async () => {
    const table = uniqueTable();
    await admin.query(`CREATE TABLE "${table}" (id int, v text)`);
    const statements = await countStatements(table);
    const { task, errant } = await start({ table });
    const batch = (from: number) => [0, 1, 2].map((i) => rec({ id: from + i, v: from + i }));
    await task.put(batch(0));
    expect(await statements()).toBe(1);
    await admin.query(`ALTER TABLE "${table}" ALTER COLUMN v TYPE int USING v::int`);
    await task.put(batch(10)); // the cached text[] cast no longer fits: three single-row statements
    expect(await statements()).toBe(4);
    await task.put(batch(20));
    expect(await statements()).toBe(5);
    expect(errant).toEqual([]);
    expect(await rows(`SELECT count(*)::int AS n, sum(v)::int AS sum FROM "${table}"`)).toEqual([
      { n: 9, sum: 99 },
    ]);
  });

  it('a column type renamed under the task: the batch still goes in, as VALUES', async () => {
    const table = uniqueTable();
    const type = `${table}_mood`;
    cleanup.push(`DROP TYPE IF EXISTS "${type}_renamed" CASCADE`);
    await admin.query(`CREATE TYPE "${type}" AS ENUM ('ok', 'sad')`);
    await admin.query(`CREATE TABLE "${table}" (id int, m "${type}")`);
    const statements = await countStatements(table);
    const { task, errant } = await start({ table });
    await task.put([rec({ id: 1, m: 'ok' }), rec({ id: 2, m: 'sad' })]);
    await admin.query(`ALTER TYPE "${type}" RENAME TO "${type}_renamed"`);
    await task.put([rec({ id: 3, m: 'ok' }), rec({ id: 4, m: 'sad' })]);
    expect(errant).toEqual([]);
    expect(await statements()).toBe(2);
    expect(await rows(`SELECT id, m::text FROM "${table}" ORDER BY id`)).toEqual([
      { id: 1, m: 'ok' },
      { id: 2, m: 'sad' },
      { id: 3, m: 'ok' },
      { id: 4, m: 'sad' },
    ]);
  });

  it('auto.create: columns typed from the Connect schema, identifiers quoted literally', async () => {
    const table = uniqueTable('sink_pg "quoted"; drop');
    const schema: Schema = {
      type: 'struct',
      fields: [
        { name: 'id', schema: { type: 'int32' } },
        { name: 'name', schema: { type: 'string', optional: true } },
        { name: 'price', schema: { type: 'bytes', name: 'org.apache.kafka.connect.data.Decimal' } },
        { name: 'ok', schema: { type: 'boolean' } },
        { name: 'day', schema: { type: 'int32', name: 'org.apache.kafka.connect.data.Date' } },
        { name: 'x"); DROP TABLE y; --', schema: { type: 'float64', optional: true } },
        { name: 'nested', schema: { type: 'struct', optional: true, fields: [] } },
      ],
    };
    const { task, errant } = await start({ table, 'auto.create': 'true' });
    const value = {
      id: 1,
      name: null,
      price: '12.50',
      ok: true,
      day: new Date(Date.UTC(2024, 1, 29)),
      'x"); DROP TABLE y; --': 1.5,
      nested: { a: [1, 2] },
    };
    await task.put([rec(value, { valueSchema: schema })]);
    expect(errant).toEqual([]);
    const columns = await rows(
      `SELECT column_name AS name, data_type AS type, is_nullable AS nullable
         FROM information_schema.columns WHERE table_name = $$${table}$$ ORDER BY ordinal_position`,
    );
    expect(columns).toEqual([
      { name: 'id', type: 'integer', nullable: 'NO' },
      { name: 'name', type: 'text', nullable: 'YES' },
      { name: 'price', type: 'numeric', nullable: 'NO' },
      { name: 'ok', type: 'boolean', nullable: 'NO' },
      { name: 'day', type: 'date', nullable: 'NO' },
      { name: 'x"); DROP TABLE y; --', type: 'double precision', nullable: 'YES' },
      { name: 'nested', type: 'jsonb', nullable: 'YES' },
    ]);
    const [row] = await rows(`SELECT id, name, price::text, ok, day::text, nested FROM ${q(table)}`);
    expect(row).toEqual({
      id: 1,
      name: null,
      price: '12.50',
      ok: true,
      day: '2024-02-29',
      nested: { a: [1, 2] },
    });
  });

  it('auto.create: non-struct values get the key/value layout with their Kafka coordinates', async () => {
    const table = uniqueTable();
    const { task } = await start({ table, 'auto.create': 'true' });
    await task.put([
      rec('plain text', { key: 'k1', offset: 5 }),
      rec([1, 'two'], { key: Buffer.from('k2'), offset: 6, partition: 3, timestamp: null }),
      rec(null, { key: 'tombstone', offset: 7 }),
    ]);
    expect(
      await rows(`SELECT "__connect_topic" AS t, "__connect_partition" AS p, "__connect_offset"::int AS o,
                         "__connect_timestamp" AS ts, key, value FROM "${table}" ORDER BY 3`),
    ).toEqual([
      { t: 'orders', p: 0, o: 5, ts: new Date(1_700_000_000_000), key: 'k1', value: 'plain text' },
      { t: 'orders', p: 3, o: 6, ts: null, key: 'k2', value: [1, 'two'] },
    ]);
  });

  it('auto.create: losing the race to create the table (another session commits it first) still writes', async () => {
    const table = uniqueTable();
    const record = rec('raced', { key: 'k' });
    const rival = new pg.Client({ connectionString: PG_URL });
    await rival.connect();
    try {
      // the rival's uncommitted CREATE is invisible to the task's look-up, and its own CREATE waits on
      // the catalog until the rival commits, then fails: the race, made certain
      await rival.query('BEGIN');
      await rival.query(createTableSql(q(table), [toRow(record, table, 'insert', [])], 'insert', []));
      const { task } = await start({ table, 'auto.create': 'true' });
      const put = task.put([record]);
      await waitForLockWait(table);
      await rival.query('COMMIT');
      await put;
    } finally {
      await rival.end();
    }
    expect(await rows(`SELECT key, value FROM ${q(table)}`)).toEqual([{ key: 'k', value: 'raced' }]);
  });

  it('auto.create: six tasks creating the same table at once all write', async () => {
    const table = uniqueTable();
    const racers = await Promise.all(
      Array.from({ length: 6 }, () => start({ table, 'auto.create': 'true' })),
    );
    const results = await Promise.allSettled(
      racers.map(({ task }, i) => task.put([rec(`from task ${i}`, { key: `k${i}` })])),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(await rows(`SELECT count(*)::int AS n FROM ${q(table)}`)).toEqual([{ n: 6 }]);
  });

  it('upsert: one row per pk.fields value, the latest record winning, within and across puts', async () => {
    const table = uniqueTable();
    const { task, errant } = await start({
      table,
      'auto.create': 'true',
      'insert.mode': 'upsert',
      'pk.fields': 'id',
    });
    await task.put([
      rec({ id: 1, qty: 1, note: 'first' }),
      rec({ id: 2, qty: 2, note: 'first' }),
      rec({ id: 1, qty: 10, note: 'second' }),
      rec({ qty: 99, note: 'no id' }),
    ]);
    await task.put([rec({ id: 2, qty: 20, note: 'later put' })]);
    expect(await rows(`SELECT id::int, qty::int, note FROM "${table}" ORDER BY id`)).toEqual([
      { id: 1, qty: 10, note: 'second' },
      { id: 2, qty: 20, note: 'later put' },
    ]);
    expect(errant.map((e) => e.message)).toEqual(['the primary key field id is missing or null']);
  });

  it('idempotent: redelivered records (same batch twice, overlapping batches, two instances at once) change nothing', async () => {
    const table = uniqueTable();
    const props = { table, 'auto.create': 'true', 'insert.mode': 'idempotent' };
    const [one, two] = [await start(props), await start(props)];
    const batch = Array.from({ length: 60 }, (_, i) => rec({ n: i }, { offset: 1000 + i, partition: i % 3 }));
    await one.task.put(batch.slice(0, 40));
    await one.task.put(batch.slice(0, 40)); // the same batch again, as after a lock expiry
    await one.task.put(batch.slice(20, 60)); // overlaps the first
    await Promise.all([one.task.put(batch), two.task.put(batch)]); // two threads, same records
    const [count] = await rows<{ n: number; distinct: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT n)::int AS distinct FROM "${table}"`,
    );
    expect(count).toEqual({ n: 60, distinct: 60 });
    expect([...one.errant, ...two.errant]).toEqual([]);
    const [constraint] = await rows(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $$"${table}"$$::regclass`,
    );
    expect(constraint).toEqual({
      def: 'PRIMARY KEY (__connect_topic, __connect_partition, __connect_offset)',
    });
  });

  it('bad records are reported errant by row; the rest of the batch is written in the same put', async () => {
    const table = uniqueTable();
    await admin.query(
      `CREATE TABLE "${table}" (id int PRIMARY KEY, qty int NOT NULL CHECK (qty >= 0), code varchar(3))`,
    );
    const { task, errant } = await start({ table });
    const batch = [
      rec({ id: 1, qty: 1, code: 'a' }),
      rec({ id: 2, qty: -5, code: 'b' }), // check violation
      rec({ id: 3, qty: 3, code: 'toolong' }), // value too long
      rec({ id: 4, qty: 'four', code: 'd' }), // not an integer
      rec({ id: 1, qty: 5, code: 'dup' }), // duplicate key
      rec({ id: 6, qty: 6, code: 'f' }),
    ];
    await task.put(batch);
    expect(await rows(`SELECT id FROM "${table}" ORDER BY id`)).toEqual([{ id: 1 }, { id: 6 }]);
    expect(errant.map((e) => e.record.offset)).toEqual([1, 2, 3, 4].map((i) => batch[i]!.offset));
    expect(errant.map((e) => e.message)).toEqual([
      expect.stringMatching(/check constraint.*SQLSTATE 23514/),
      expect.stringMatching(/too long.*SQLSTATE 22001/),
      expect.stringMatching(/invalid input syntax for type integer.*SQLSTATE 22P02/),
      expect.stringMatching(/duplicate key.*SQLSTATE 23505/),
    ]);
  });

  it('an unreachable server is a RetriableError, not a crash, and the task still stops cleanly', async () => {
    const table = uniqueTable();
    const down = await pgTask({ 'connection.host': '127.0.0.1', 'connection.port': '1', table });
    tasks.push(down);
    const error: unknown = await down.task.put([rec({ id: 1 })]).catch((e: unknown) => e);
    expect(isRetriableError(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'SHARESINK_RETRIABLE',
      message: expect.stringContaining('ECONNREFUSED'),
    });
    const again: unknown = await down.task.put([rec({ id: 2 })]).catch((e: unknown) => e);
    expect(isRetriableError(again)).toBe(true);
    await down.task.stop();
  });

  it('a connection cut while a put holds it is a RetriableError, not an uncaught error event', async () => {
    // pg-pool hears a client's 'error' only while it is idle: unheard while the put holds the client,
    // the event killed the pool thread (SHARESINK_WORKER_CRASHED), rejecting the batch
    const table = uniqueTable();
    await admin.query(`CREATE TABLE "${table}" (id int)`);
    const target = new URL(PG_URL);
    const proxy = await startProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(PG_URL);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const { task } = await start({ 'connection.url': viaProxy.toString(), table });
    const locker = new pg.Client({ connectionString: PG_URL });
    await locker.connect();
    try {
      await task.put([rec({ id: 0 })]);
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE "${table}" IN ACCESS EXCLUSIVE MODE`);
      const put = task.put([rec({ id: 1 }), rec({ id: 2 })]).catch((e: unknown) => e);
      await waitForLockWait(table);
      await proxy.down();
      const error = await put;
      expect(isRetriableError(error)).toBe(true);
      expect(error).toMatchObject({ message: expect.stringMatching(/ECONNRESET|Connection terminated/) });
      await locker.query('ROLLBACK');
      await proxy.up();
      await task.put([rec({ id: 1 }), rec({ id: 2 })]);
      // the cut statement may still have run once the lock was gone: a duplicate, as at-least-once allows
      expect(await rows(`SELECT DISTINCT id FROM "${table}" ORDER BY id`)).toEqual([
        { id: 0 },
        { id: 1 },
        { id: 2 },
      ]);
    } finally {
      await locker.end();
      await task.stop();
      await proxy.close();
    }
  });

  it('an aborted put ends at once even when the server answers no new connection, so its cancel cannot get through', async () => {
    // the cancel needs a connection of its own; waiting connection.timeout.ms for it outlasted the
    // runtime's pool.abort.grace.ms (1 s), which then terminated the thread and every put on it
    const table = uniqueTable();
    await admin.query(`CREATE TABLE "${table}" (id int)`);
    const target = new URL(PG_URL);
    let stalled = false;
    const sockets = new Set<net.Socket>();
    const server = net.createServer((client) => {
      sockets.add(client);
      client.on('error', () => undefined).on('close', () => sockets.delete(client));
      if (stalled) return; // accepted and never answered, like a server that stopped responding
      const upstream = net.connect({ host: target.hostname, port: Number(target.port || 5432) });
      sockets.add(upstream);
      upstream.on('error', () => undefined).on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(PG_URL);
    url.hostname = '127.0.0.1';
    url.port = String((server.address() as net.AddressInfo).port);
    const props = { 'connection.url': url.toString(), 'connection.timeout.ms': '5000', table };
    const task = new PostgresSinkTask();
    const controller = new AbortController();
    const { context } = testTaskContext(props);
    task.initialize({ ...context, abortSignal: () => controller.signal });
    await task.start(props);
    const locker = new pg.Client({ connectionString: PG_URL });
    await locker.connect();
    try {
      await task.put([rec({ id: 0 })]);
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE "${table}" IN ACCESS EXCLUSIVE MODE`);
      const put = task.put([rec({ id: 1 })]).catch((e: unknown) => e);
      await waitForLockWait(table);
      stalled = true;
      const began = Date.now();
      controller.abort('put.timeout.ms');
      const error = await put;
      expect(Date.now() - began).toBeLessThan(1000);
      expect(error).toMatchObject({ message: expect.stringContaining('put aborted (put.timeout.ms)') });
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
      for (const socket of sockets) socket.destroy();
      await task.stop();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a table locked by another session (lock_timeout) is retriable; the retry after the lock writes', async () => {
    const table = uniqueTable();
    await admin.query(`CREATE TABLE "${table}" (id int)`);
    const url = `${PG_URL}?options=${encodeURIComponent('-c lock_timeout=200')}`;
    const { task } = await start({ 'connection.url': url, table });
    await task.put([rec({ id: 0 })]); // table described while nothing holds it
    const locker = new pg.Client({ connectionString: PG_URL });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE "${table}" IN ACCESS EXCLUSIVE MODE`);
      const error: unknown = await task.put([rec({ id: 1 })]).catch((e: unknown) => e);
      expect(isRetriableError(error)).toBe(true);
      expect(error).toMatchObject({ message: expect.stringContaining('SQLSTATE 55P03') });
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    await task.put([rec({ id: 1 })]);
    expect(await rows(`SELECT id FROM "${table}" ORDER BY id`)).toEqual([{ id: 0 }, { id: 1 }]);
  });

  it('the server refusing the user (unknown role, missing privilege) is retriable with what to fix; a GRANT heals the next put', async () => {
    const table = uniqueTable();
    await admin.query(`CREATE TABLE "${table}" (id int)`);
    const role = `${table}_writer`;
    await admin.query(`CREATE ROLE "${role}" LOGIN`);
    cleanup.push(`DROP ROLE IF EXISTS "${role}"`, `DROP OWNED BY "${role}"`);
    const db = new URL(PG_URL).pathname.slice(1);
    const host = { 'connection.host': '127.0.0.1', 'connection.database': db, table };

    const nobody = await pgTask({ ...host, 'connection.user': `${role}_missing` });
    tasks.push(nobody);
    const login: unknown = await nobody.task.put([rec({ id: 1 })]).catch((e: unknown) => e);
    expect(isRetriableError(login)).toBe(true);
    expect(login).toMatchObject({ message: expect.stringContaining('SQLSTATE 28000') });
    expect(login).toMatchObject({
      message: expect.stringContaining('check connection.user and connection.password'),
    });

    const writer = await pgTask({ ...host, 'connection.user': role });
    tasks.push(writer);
    const { task, errant } = writer;
    const denied: unknown = await task.put([rec({ id: 1 })]).catch((e: unknown) => e);
    expect(isRetriableError(denied)).toBe(true);
    expect(denied).toMatchObject({ message: expect.stringContaining('SQLSTATE 42501') });
    expect(denied).toMatchObject({ message: expect.stringContaining('GRANT INSERT') });
    expect(errant).toEqual([]);
    await admin.query(`GRANT INSERT ON "${table}" TO "${role}"`);
    await task.put([rec({ id: 1 })]);
    expect(await rows(`SELECT id FROM "${table}"`)).toEqual([{ id: 1 }]);
  });

  it('a database that does not exist, and upsert without the unique constraint ON CONFLICT needs, are retriable with the fix named', async () => {
    const table = uniqueTable();
    const nodb = await pgTask({
      'connection.host': '127.0.0.1',
      'connection.user': 'postgres',
      'connection.database': `${table}_nodb`,
      table,
    });
    tasks.push(nodb);
    const missing: unknown = await nodb.task.put([rec({ id: 1 })]).catch((e: unknown) => e);
    expect(isRetriableError(missing)).toBe(true);
    expect(missing).toMatchObject({ message: expect.stringContaining('SQLSTATE 3D000') });
    expect(missing).toMatchObject({ message: expect.stringContaining('the database does not exist') });

    await admin.query(`CREATE TABLE "${table}" (id int, name text)`);
    const { task, errant } = await start({ table, 'insert.mode': 'upsert', 'pk.fields': 'id' });
    const noConstraint: unknown = await task.put([rec({ id: 1, name: 'a' })]).catch((e: unknown) => e);
    expect(isRetriableError(noConstraint)).toBe(true);
    expect(noConstraint).toMatchObject({ message: expect.stringContaining('SQLSTATE 42P10') });
    expect(errant).toEqual([]);
    await admin.query(`ALTER TABLE "${table}" ADD PRIMARY KEY (id)`);
    await task.put([rec({ id: 1, name: 'a' })]);
    expect(await rows(`SELECT id, name FROM "${table}"`)).toEqual([{ id: 1, name: 'a' }]);
  });

  it('a missing table without auto.create is retriable, naming the fix; creating it heals the next put', async () => {
    const table = uniqueTable();
    const { task, errant } = await start({ table });
    const error: unknown = await task.put([rec({ id: 1 })]).catch((e: unknown) => e);
    expect(isRetriableError(error)).toBe(true);
    expect(error).toMatchObject({
      message: expect.stringContaining(`table "${table}" does not exist: create it, or set auto.create=true`),
    });
    expect(errant).toEqual([]);
    await admin.query(`CREATE TABLE "${table}" (id int)`);
    await task.put([rec({ id: 1 })]);
    expect(await rows(`SELECT id FROM "${table}"`)).toEqual([{ id: 1 }]);
  });

  it('idempotent mode on a table without the Kafka coordinate columns is retriable, naming them', async () => {
    const table = uniqueTable();
    await admin.query(`CREATE TABLE "${table}" (id int)`);
    const { task, errant } = await start({ table, 'insert.mode': 'idempotent' });
    const error: unknown = await task.put([rec({ id: 1 })]).catch((e: unknown) => e);
    expect(isRetriableError(error)).toBe(true);
    expect(error).toMatchObject({
      message: expect.stringContaining('__connect_topic, __connect_partition, __connect_offset'),
    });
    expect(errant).toEqual([]);
  });

  it('connection.url copied from a JDBC sink config (jdbc:postgresql://host:port/db?user=…) writes', async () => {
    const table = uniqueTable();
    await admin.query(`CREATE TABLE "${table}" (id int)`);
    const server = new URL(PG_URL);
    const params = new URLSearchParams({ user: decodeURIComponent(server.username) });
    if (server.password !== '') params.set('password', decodeURIComponent(server.password));
    const jdbcUrl = `jdbc:postgresql://${server.host}${server.pathname}?${params}`;
    expect(new PostgresSinkConnector().validate({ 'connection.url': jdbcUrl, table }).size).toBe(0);
    const t = await pgTask({ 'connection.url': jdbcUrl, table });
    tasks.push(t);
    await t.task.put([rec({ id: 1 }), rec({ id: 2 })]);
    expect(t.errant).toEqual([]);
    expect(await rows(`SELECT id FROM "${table}" ORDER BY id`)).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('a JDBC sink config with connection.user / connection.password beside the URL writes', async () => {
    const table = uniqueTable();
    await admin.query(`CREATE TABLE "${table}" (id int)`);
    const server = new URL(PG_URL);
    const props: Record<string, string> = {
      'connection.url': `jdbc:postgresql://${server.host}${server.pathname}`,
      'connection.user': decodeURIComponent(server.username),
      table,
    };
    if (server.password !== '') props['connection.password'] = decodeURIComponent(server.password);
    expect(new PostgresSinkConnector().validate(props).size).toBe(0);
    const t = await pgTask(props);
    tasks.push(t);
    await t.task.put([rec({ id: 3 })]);
    expect(t.errant).toEqual([]);
    expect(await rows(`SELECT id FROM "${table}"`)).toEqual([{ id: 3 }]);
  });

  it('the connector validates cross-key settings', () => {
    const connector = new PostgresSinkConnector();
    expect([...connector.validate({ 'insert.mode': 'upsert' }).keys()]).toEqual(['pk.fields']);
    expect([...connector.validate({ 'connection.url': PG_URL, 'connection.port': '5' }).keys()]).toEqual([
      'connection.url',
    ]);
    expect(connector.validate({ 'insert.mode': 'IDEMPOTENT', table: 'x_${topic}' }).size).toBe(0);
  });

  it('the task refuses bad settings at start', async () => {
    await expect(new PostgresSinkTask().start({ 'insert.mode': 'merge' })).rejects.toThrow(/insert.mode/);
  });
});

describe('PostgresSink on the worker-thread pool (connector.class=PostgresSink)', () => {
  it('converts and writes in the threads, rejects the bad record by index, and shrugs off redeliveries', async () => {
    const table = uniqueTable();
    const pool = new PutPool({
      connectorModule: resolveConnectorModule('PostgresSink'),
      threads: 2,
      logger: pino({ level: 'silent' }),
      stopTimeoutMs: 10_000,
    });
    const poolTask = {
      id: 'pg-pool',
      props: { 'connection.url': PG_URL, table, 'insert.mode': 'idempotent', 'auto.create': 'true' },
      converters: convertersFromProps({
        'key.converter': 'StringConverter',
        'value.converter': 'JsonConverter',
        'value.converter.schemas.enable': 'false',
      }),
    };
    const raws: RawRecord[] = Array.from({ length: 20 }, (_, i) => ({
      topic: 'orders',
      partition: i % 2,
      offset: 500 + i,
      timestamp: 1_700_000_000_000 + i,
      timestampType: 'CreateTime',
      key: Buffer.from(`k${i}`),
      value: Buffer.from(JSON.stringify({ id: i, qty: i === 7 ? 'many' : i })),
      headers: [],
    }));
    try {
      const first = await pool.put(poolTask, raws);
      expect(first).toMatchObject({
        kind: 'perRecord',
        rejected: [{ index: 7, message: expect.stringContaining('SQLSTATE 22P02') }],
      });
      // a redelivery of the whole batch, on both threads at once
      const again = await Promise.all([pool.put(poolTask, raws), pool.put(poolTask, raws)]);
      expect(again.map((r) => r.kind)).toEqual(['perRecord', 'perRecord']);
      expect(new Set([first.threadId, ...again.map((r) => r.threadId)]).size).toBe(2);
    } finally {
      await pool.close();
    }
    expect(
      await rows(`SELECT count(*)::int AS n, min(id)::int AS min, max(id)::int AS max FROM "${table}"`),
    ).toEqual([{ n: 19, min: 0, max: 19 }]);
  });
});

describe('PostgresSink on the worker-thread pool: an aborted put', () => {
  it('ends its statement when the runtime aborts it: nothing committed, the thread and instance live on', async () => {
    const table = uniqueTable();
    await admin.query(`CREATE TABLE "${table}" (id int)`);
    const pool = new PutPool({
      connectorModule: resolveConnectorModule('PostgresSink'),
      threads: 1,
      logger: pino({ level: 'silent' }),
      abortGraceMs: 30_000,
    });
    const poolTask = {
      id: 'pg-abort',
      props: { 'connection.url': PG_URL, table },
      converters: convertersFromProps({
        'value.converter': 'JsonConverter',
        'value.converter.schemas.enable': 'false',
      }),
    };
    const raw = (id: number): RawRecord[] => [
      {
        topic: 'orders',
        partition: 0,
        offset: id,
        timestamp: 0,
        timestampType: 'CreateTime',
        key: null,
        value: Buffer.from(JSON.stringify({ id })),
        headers: [],
      },
    ];
    const locker = new pg.Client({ connectionString: PG_URL });
    await locker.connect();
    try {
      expect(await pool.put(poolTask, raw(0))).toMatchObject({ kind: 'ok' }); // table described
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE "${table}" IN ACCESS EXCLUSIVE MODE`);
      const controller = new AbortController();
      const put = pool.put(poolTask, raw(1), { signal: controller.signal });
      await waitForLockWait(table);
      const began = Date.now();
      controller.abort('put.timeout.ms');
      expect(await put).toMatchObject({ kind: 'aborted', reason: 'put.timeout.ms' });
      expect(Date.now() - began).toBeLessThan(10_000);
      await locker.query('COMMIT');
      expect(await pool.put(poolTask, raw(2))).toMatchObject({ kind: 'ok', taskStarted: false });
    } finally {
      await locker.end();
      await pool.close();
    }
    expect(await rows(`SELECT id FROM "${table}" ORDER BY id`)).toEqual([{ id: 0 }, { id: 2 }]);
  });
});
