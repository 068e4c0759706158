/**
 * The pool thread's side of scenario 10, alone and on one thread: scenario 4's rows as JSON, encoded
 * into wire batches as the main thread does, then put through a TaskHost (decode, JsonConverter, the
 * JDBC sink, the driver, the database) as a pool thread runs them. Prints the process CPU per row of
 * the encode and of the puts, and the wall time: no Kafka, no thread hop, so the numbers move little
 * with the machine's load. `--cpu-prof` on the node command line profiles it.
 *
 * `--inflight=N` keeps N puts handed to the host at once, as the runner keeps several in flight (the
 * host runs a task's puts one at a time, the next waiting in its lane).
 *
 *   tsx bench/jdbc-put-cost.ts --dialect=postgresql|mariadb [--rows=200000] [--batch=500] [--inflight=1]
 *        [--set=k=v …]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import type { RawRecord } from '../src/connect/raw-record.js';
import { resolveConnectorModule } from '../src/connect/connector-module.js';
import { TaskHost, connectorLoader } from '../src/pool/task-host.js';
import { PutRequests } from '../src/pool/put-request.js';
import { encodeWireBatch } from '../src/pool/wire-batch.js';
import { pgRow } from './pg-rows.js';
import { scriptArgs } from './script-args.js';

const { all: args, arg } = scriptArgs();
const dialect = arg('dialect', 'postgresql');
const rows = Number(arg('rows', '200000'));
const batch = Number(arg('batch', '500'));
const inflight = Number(arg('inflight', '1'));
const extra = Object.fromEntries(
  (args.get('set') ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
const table = `jdbc_put_cost_${Date.now().toString(36)}`;
const props: Record<string, string> = {
  'connection.url':
    dialect === 'postgresql' ? 'jdbc:postgresql://127.0.0.1:5432/test' : 'jdbc:mariadb://127.0.0.1:3306/test',
  'connection.user': dialect === 'postgresql' ? 'postgres' : 'root',
  'table.name.format': table,
  'auto.create': 'true',
  ...extra,
};
const task = {
  id: 'cost-0',
  props,
  converters: {
    key: { className: 'org.apache.kafka.connect.converters.ByteArrayConverter', props: {} },
    value: { className: 'org.apache.kafka.connect.json.JsonConverter', props: { 'schemas.enable': 'false' } },
    header: { className: 'org.apache.kafka.connect.storage.SimpleHeaderConverter', props: {} },
  },
};

function raws(from: number, n: number): RawRecord[] {
  const out: RawRecord[] = [];
  for (let i = from; i < from + n; i++)
    out.push({
      topic: 'bench',
      partition: 0,
      offset: i,
      timestamp: Date.now(),
      timestampType: 'CreateTime',
      key: null,
      value: Buffer.from(JSON.stringify(pgRow(i))),
      headers: [],
      deliveryCount: 1,
    });
  return out;
}

const host = new TaskHost(
  connectorLoader(resolveConnectorModule('io.confluent.connect.jdbc.JdbcSinkConnector')),
);
const requests = new PutRequests();
let putId = 0;
async function put(records: readonly RawRecord[], cpu: { encode: number; put: number }): Promise<void> {
  const c0 = process.cpuUsage();
  const wire = encodeWireBatch(records);
  const c1 = process.cpuUsage(c0);
  const result = await host.put(requests.build(task, ++putId, wire));
  const c2 = process.cpuUsage(c0);
  if (result.kind !== 'ok') throw new Error(`put ${putId}: ${JSON.stringify(result)}`);
  cpu.encode += c1.user + c1.system;
  cpu.put += c2.user + c2.system - (c1.user + c1.system);
}

// the first puts create the table and warm the code up; not measured
const warm = { encode: 0, put: 0 };
for (let i = 0; i < 20; i++) await put(raws(rows + i * batch, batch), warm);
const inputs: RawRecord[][] = [];
for (let from = 0; from < rows; from += batch) inputs.push(raws(from, Math.min(batch, rows - from)));
const cpu = { encode: 0, put: 0 };
const db0 = databaseTicks();
const c0 = process.cpuUsage();
const t0 = performance.now();
if (inflight <= 1) for (const records of inputs) await put(records, cpu);
else {
  // the encode is on this thread either way; the puts' CPU is the process's minus it
  const running = new Set<Promise<void>>();
  for (const records of inputs) {
    const p = put(records, { encode: 0, put: 0 }).finally(() => running.delete(p));
    running.add(p);
    if (running.size >= inflight) await Promise.race(running);
  }
  await Promise.all(running);
  const used = process.cpuUsage(c0);
  cpu.put = used.user + used.system;
}
const wall = performance.now() - t0;
const dbUs = (databaseTicks() - db0) * 10_000;
console.log(
  `${dialect} thread ${threadId}, ${inflight} in flight: ${rows} rows in ${inputs.length} puts · ${Math.round(rows / (wall / 1000))} rows/s · ` +
    `CPU µs/row: encode ${(cpu.encode / rows).toFixed(2)}, put ${(cpu.put / rows).toFixed(2)} (decode, convert, sink, driver) · database ${(dbUs / rows).toFixed(2)} (all its processes, 10 ms ticks)`,
);
await host.stop(task.id);
await dropTable();

async function dropTable(): Promise<void> {
  if (dialect === 'postgresql') {
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
    await c.connect();
    await c.query(`DROP TABLE IF EXISTS "${table}"`);
    await c.end();
    return;
  }
  const mysql = await import('mysql2/promise');
  const c = await mysql.createConnection({ host: '127.0.0.1', user: 'root', database: 'test' });
  await c.query(`DROP TABLE IF EXISTS \`${table}\``);
  await c.end();
}

/** CPU ticks (10 ms) of the database server's processes (PostgreSQL's or MariaDB's), from /proc. */
function databaseTicks(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (comm !== 'postgres' && comm !== 'mariadbd' && comm !== 'mysqld') continue;
      if ((comm === 'postgres') !== (dialect === 'postgresql')) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks;
}
