// The JDBC sink's task against the real PostgreSQL and MariaDB servers (see harness/jdbc-dbs.ts):
// Confluent's settings (insert.mode, pk.mode, pk.fields, fields.whitelist, delete.enabled,
// auto.create, auto.evolve), the order guard with records put out of order on one instance and raced
// from two, bad rows on the tolerance path, and the sharesink/testing idempotence check. Both dialects
// run every case.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SinkRecord, type Schema } from '../../src/connect/index.js';
import { JdbcSinkTask } from '../../src/sinks/jdbc/index.js';
import { checkSinkTask, type RunContext } from '../../src/testing/index.js';
import { testTaskContext, type ErrantReport } from '../../src/testing/task-context.js';
import { TEST_DBS, type TestDb } from './harness/jdbc-dbs.js';

const ID: Schema = { type: 'int32', optional: false };
const NAME: Schema = { type: 'string', optional: true };
const ROW: Schema = {
  type: 'struct',
  optional: false,
  fields: [
    { name: 'id', schema: ID },
    { name: 'name', schema: NAME },
    { name: 'qty', schema: { type: 'int32', optional: true } },
  ],
};
const KEY: Schema = { type: 'struct', optional: false, fields: [{ name: 'id', schema: ID }] };

function rec(
  offset: number,
  id: number,
  value: Record<string, unknown> | null,
  topic = 'jdbc_t',
  partition = 0,
): SinkRecord {
  return new SinkRecord({
    topic,
    partition,
    offset,
    timestamp: 1_700_000_000_000,
    timestampType: 'CreateTime',
    keySchema: KEY,
    key: { id },
    valueSchema: value === null ? undefined : ROW,
    value: value === null ? null : { id, ...value },
  });
}

describe.each(Object.keys(TEST_DBS) as (keyof typeof TEST_DBS)[])('JdbcSinkTask on %s', (which) => {
  let db: TestDb;
  const tasks: JdbcSinkTask[] = [];
  beforeAll(async () => {
    db = await TEST_DBS[which]();
  });
  afterAll(async () => {
    await Promise.all(tasks.map((t) => t.stop()));
    await db?.close();
  });

  async function start(
    props: Record<string, string>,
  ): Promise<{ task: JdbcSinkTask; errant: ErrantReport[] }> {
    const all = { ...db.props, ...props };
    const task = new JdbcSinkTask();
    const { context, errant } = testTaskContext(all);
    task.initialize(context);
    await task.start(all);
    tasks.push(task);
    return { task, errant };
  }

  const content = async (table: string) =>
    (await db.rows(`SELECT id, name, qty FROM ${db.q(table)} ORDER BY id`)).map((r) => ({
      id: Number(r['id']),
      name: r['name'],
      qty: r['qty'] === null ? null : Number(r['qty']),
    }));

  it('plain inserts take two puts at once, each on its own connection: one waits in the database, the other commits', async () => {
    const table = db.table('jdbc_two_at_once');
    const { task, errant } = await start({ 'table.name.format': table, 'auto.create': 'true' });
    expect(task.putsAtOnce()).toBe(2);
    await task.put([rec(0, 1, { name: 'first', qty: 1 })]);
    await db.slowFirstWrite(table, 'slow', 3);
    const slow = task.put([rec(1, 2, { name: 'slow', qty: 2 }), rec(2, 3, { name: 'c', qty: 3 })]);
    await expect.poll(() => db.sleeping(table), { timeout: 5_000, interval: 50 }).toBe(1);
    // a second put of the same instance while the first one sleeps in its statement
    const began = Date.now();
    await task.put([rec(3, 4, { name: 'd', qty: 4 }), rec(4, 5, { name: 'e', qty: 5 })]);
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(await db.sleeping(table)).toBe(1);
    expect((await content(table)).map((r) => r.id)).toEqual([1, 4, 5]);
    await slow;
    expect(errant).toEqual([]);
    expect((await content(table)).map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it('keyed inserts, upserts and deletes keep one put at a time', async () => {
    const table = db.table('jdbc_one_at_once');
    const keyed = { 'table.name.format': table, 'pk.mode': 'record_value', 'pk.fields': 'id' };
    expect((await start(keyed)).task.putsAtOnce()).toBe(1);
    expect((await start({ ...keyed, 'insert.mode': 'upsert' })).task.putsAtOnce()).toBe(1);
  });

  it('upsert with pk.mode=record_value and auto.create: the last value per key, typed columns', async () => {
    const table = db.table('jdbc_upsert');
    const { task, errant } = await start({
      'table.name.format': table,
      'insert.mode': 'upsert',
      'pk.mode': 'record_value',
      'pk.fields': 'id',
      'auto.create': 'true',
    });
    await task.put([
      rec(0, 1, { name: 'a', qty: 1 }),
      rec(1, 2, { name: 'b', qty: 2 }),
      rec(2, 1, { name: 'a2', qty: 3 }),
    ]);
    await task.put([rec(3, 2, { name: 'b2', qty: null })]);
    expect(errant).toEqual([]);
    expect(await content(table)).toEqual([
      { id: 1, name: 'a2', qty: 3 },
      { id: 2, name: 'b2', qty: null },
    ]);
  });

  it('delete.enabled with pk.mode=record_key: tombstones delete rows; fields.whitelist keeps the listed fields', async () => {
    const table = db.table('jdbc_delete');
    const { task } = await start({
      'table.name.format': table,
      'insert.mode': 'upsert',
      'pk.mode': 'record_key',
      'delete.enabled': 'true',
      'fields.whitelist': 'name,qty',
      'auto.create': 'true',
    });
    await task.put([
      rec(0, 1, { name: 'a', qty: 1 }),
      rec(1, 2, { name: 'b', qty: 2 }),
      rec(2, 3, { name: 'c', qty: 3 }),
    ]);
    await task.put([rec(3, 2, null), rec(4, 3, { name: 'c2', qty: 4 })]);
    expect(await content(table)).toEqual([
      { id: 1, name: 'a', qty: 1 },
      { id: 3, name: 'c2', qty: 4 },
    ]);
  });

  it('insert.mode=update changes existing rows only; auto.evolve adds a column for a new field', async () => {
    const table = db.table('jdbc_update');
    const { task } = await start({
      'table.name.format': table,
      'insert.mode': 'upsert',
      'pk.mode': 'record_value',
      'pk.fields': 'id',
      'auto.create': 'true',
      'auto.evolve': 'true',
    });
    await task.put([rec(0, 1, { name: 'a', qty: 1 })]);
    const wider = new SinkRecord({
      topic: 'jdbc_t',
      partition: 0,
      offset: 1,
      timestamp: null,
      timestampType: 'CreateTime',
      key: null,
      value: { id: 2, name: 'b', qty: 2, colour: 'red' },
    });
    await task.put([wider]);
    expect((await db.rows(`SELECT colour FROM ${db.q(table)} WHERE id = 2`))[0]!['colour']).toBe('red');
    const updater = await start({
      'table.name.format': table,
      'insert.mode': 'update',
      'pk.mode': 'record_value',
      'pk.fields': 'id',
    });
    await updater.task.put([rec(5, 1, { name: 'a-updated', qty: 9 }), rec(6, 7, { name: 'nobody', qty: 0 })]);
    expect(await content(table)).toEqual([
      { id: 1, name: 'a-updated', qty: 9 },
      { id: 2, name: 'b', qty: 2 },
    ]);
  });

  it('order guard: an older record put after a newer one changes nothing, and cannot bring a deleted row back', async () => {
    const table = db.table('jdbc_order');
    const props = {
      'table.name.format': table,
      'insert.mode': 'upsert',
      'pk.mode': 'record_key',
      'delete.enabled': 'true',
      'auto.create': 'true',
    };
    const { task } = await start(props);
    await task.put([rec(5, 1, { name: 'new', qty: 5 })]);
    await task.put([rec(3, 1, { name: 'old', qty: 3 })]);
    expect(await content(table)).toEqual([{ id: 1, name: 'new', qty: 5 }]);
    await task.put([rec(7, 1, null)]);
    await task.put([rec(6, 1, { name: 'before-delete', qty: 6 })]);
    expect(await content(table)).toEqual([]);
    await task.put([rec(8, 1, { name: 'again', qty: 8 })]);
    expect(await content(table)).toEqual([{ id: 1, name: 'again', qty: 8 }]);

    // the same puts with the guard off: the older record wins, which is what the guard prevents
    const unguarded = db.table('jdbc_order_off');
    const off = await start({ ...props, 'table.name.format': unguarded, 'order.guard': 'false' });
    await off.task.put([rec(5, 1, { name: 'new', qty: 5 })]);
    await off.task.put([rec(3, 1, { name: 'old', qty: 3 })]);
    expect(await content(unguarded)).toEqual([{ id: 1, name: 'old', qty: 3 }]);
  });

  it('order guard: two instances racing on one key leave the newest record of every key', async () => {
    const table = db.table('jdbc_race');
    const props = {
      'table.name.format': table,
      'insert.mode': 'upsert',
      'pk.mode': 'record_value',
      'pk.fields': 'id',
      'auto.create': 'true',
    };
    const a = await start(props);
    const b = await start(props);
    await a.task.put([rec(0, 0, { name: 'seed', qty: 0 })]);
    // 30 rounds over 3 keys: instance A puts the newer record, B the older one, at the same time
    for (let round = 1; round <= 30; round++) {
      const id = round % 3;
      await Promise.all([
        a.task.put([rec(1000 + round * 2, id, { name: `new${round}`, qty: round })]),
        b.task.put([rec(1000 + round * 2 - 1, id, { name: `old${round}`, qty: -round })]),
      ]);
    }
    expect(a.errant).toEqual([]);
    expect(b.errant).toEqual([]);
    expect(await content(table)).toEqual([
      { id: 0, name: 'new30', qty: 30 },
      { id: 1, name: 'new28', qty: 28 },
      { id: 2, name: 'new29', qty: 29 },
    ]);
  });

  it('a column that cannot take the value: that record is reported errant, the rest of the batch is written', async () => {
    const table = db.table('jdbc_bad');
    await db.exec(`CREATE TABLE ${db.q(table)} (id INT PRIMARY KEY, name VARCHAR(3), qty SMALLINT)`);
    const { task, errant } = await start({
      'table.name.format': table,
      'insert.mode': 'upsert',
      'pk.mode': 'record_value',
      'pk.fields': 'id',
    });
    await task.put([
      rec(0, 1, { name: 'ok', qty: 1 }),
      rec(1, 2, { name: 'far too long', qty: 2 }),
      rec(2, 3, { name: 'ok', qty: 100_000 }),
      rec(3, 4, { name: 'ok', qty: 4 }),
    ]);
    expect(await content(table)).toEqual([
      { id: 1, name: 'ok', qty: 1 },
      { id: 4, name: 'ok', qty: 4 },
    ]);
    expect(errant.map((e) => e.record.offset)).toEqual([1, 2]);
    expect(errant[0]!.message).toMatch(
      new RegExp(
        `^${which === 'postgresql' ? 'PostgreSQL' : 'MySQL'} refused jdbc_t-0@1 for table ${table}: `,
      ),
    );
  });

  it('sharesink/testing: upsert on the record id is idempotent through crashes, lost replies and expired locks', async () => {
    const report = await checkSinkTask(() => new JdbcSinkTask(), {
      props: (run) => ({
        ...db.props,
        'table.name.format': `kit_jdbc_${which}_${process.pid}_${run.index}`,
        'insert.mode': 'upsert',
        'pk.mode': 'record_value',
        'pk.fields': 'record_id',
        'auto.create': 'true',
      }),
      mapValue: (value: unknown, record: { id: string }) => ({ record_id: record.id, ...(value as object) }),
      observe: async (run: RunContext) => {
        try {
          const rows = await db.rows(
            `SELECT record_id, count(*) AS n FROM ${db.q(run.props['table.name.format']!)} GROUP BY record_id`,
          );
          return new Map(rows.map((r) => [String(r['record_id']), Number(r['n'])]));
        } catch {
          return new Map();
        }
      },
      cleanup: async (run: RunContext) => {
        await db.exec(`DROP TABLE IF EXISTS ${db.q(run.props['table.name.format']!)}`);
      },
      idempotent: true,
      numRuns: 15,
    });
    expect(report.runs).toBe(15);
    expect(report.redeliveries).toBeGreaterThan(0);
  });
});
