/**
 * Scenario 10 by hand: one fill, then the JDBC sink (default settings, or with the `pool.threads` /
 * connector settings given) and the bare driver loop, alternating, N rounds; each run's rows/s and
 * CPU µs/row, then the medians and the ratio. With --profile=DIR every sharesink run writes
 * `--cpu-prof` files (main and pool threads) under DIR/<run> (summarize with `tsx bench/profile.ts`).
 *
 *   tsx bench/jdbc-ab.ts --dialect=postgresql|mariadb [--rounds=3] [--rows=1000000]
 *        [--brokers=127.0.0.1:9092] [--threads=1] [--set=key=value …] [--profile=/tmp/prof]
 *        [--worker-profile=/tmp/wprof]   (the pool thread's profile and put timings: bench/profiled-jdbc.ts)
 *        [--put-timings]                 (the put timings alone)
 *        [--node-flag=--trace-gc …]      (flags for the sink's node process, repeatable)
 *        [--child-stdout=FILE]           (the sink process's stdout, appended: a --trace-gc trace, say)
 *        [--mode=share|consumer|classic] (the sink's group protocol; share is scenario 10's)
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildResult, ChildSpec, WorkerRunSpec } from './child-protocol.js';
import { BENCH_DIR, createTopic, deleteTopics, round } from './common.js';
import { RESULT_PREFIX } from './child-protocol.js';
import { runChild } from './context.js';
import { producePgRows } from './pg-rows.js';
import { scriptArgs } from './script-args.js';

const { all: args, arg } = scriptArgs();
const dialect = arg('dialect', 'postgresql');
const rounds = Number(arg('rounds', '3'));
const rows = Number(arg('rows', '1000000'));
const brokers = arg('brokers', '127.0.0.1:9092');
const threads = args.get('threads')?.[0];
const profile = args.get('profile')?.[0];
/** The pool thread's own profile and put timings (bench/profiled-jdbc.ts), under DIR/<run>. */
const workerProfile = args.get('worker-profile')?.[0];
/** The pool thread's put timings (bench/profiled-jdbc.ts) without its profile. */
const putTimings = args.has('put-timings');
const extra = Object.fromEntries(
  (args.get('set') ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
/** Node/V8 flags for the sink's process (`--node-flag=--max-semi-space-size=32`, repeatable). */
const nodeFlags = args.get('node-flag') ?? [];
/** The sink's group protocol: share (scenario 10), or classic / consumer to compare. */
const mode = arg('mode', 'share') as 'share' | 'classic' | 'consumer';
/** Where the sink process's stdout goes (e.g. a `--node-flag=--trace-gc` trace), appended per run. */
const childStdout = args.get('child-stdout')?.[0];
const pgUrl = 'postgres://postgres@127.0.0.1:5432/test';
const mysqlUrl = 'mysql://root@127.0.0.1:3306/test';
const id = `jdbcab_${Date.now().toString(36)}`;

async function main(): Promise<void> {
  const topic = `${id}-${dialect}`;
  await createTopic(brokers, topic, 1);
  await producePgRows(brokers, topic, rows);
  const url =
    dialect === 'postgresql' ? 'jdbc:postgresql://127.0.0.1:5432/test' : 'jdbc:mariadb://127.0.0.1:3306/test';
  const user = dialect === 'postgresql' ? 'postgres' : 'root';
  const sink = (table: string, run: number): WorkerRunSpec => ({
    kind: 'worker',
    label: `${id}-${run}`,
    brokers,
    topic,
    topicRecords: rows,
    mode,
    tasks: 1,
    ...(threads === undefined ? {} : { poolThreads: Number(threads) }),
    connectorClass:
      workerProfile === undefined && !putTimings
        ? 'io.confluent.connect.jdbc.JdbcSinkConnector'
        : path.join(BENCH_DIR, 'profiled-jdbc.ts'),
    connectorProps: {
      'connection.url': url,
      'connection.user': user,
      'table.name.format': table,
      'auto.create': 'true',
      ...extra,
    },
    workerProps: {
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
    },
    measure: { kind: 'drain', records: rows },
    timeoutMs: 300_000,
  });
  const first = `${id}_t0`;
  const samples: { sink: ChildResult[]; bare: ChildResult[] } = { sink: [], bare: [] };
  const rate = (r: ChildResult) => r.steadyRecordsPerSec ?? r.recordsPerSec;
  for (let i = 0; i < rounds; i++) {
    const flags: string[] = [...nodeFlags];
    if (profile !== undefined) {
      const dir = path.join(profile, `run${i}`);
      mkdirSync(dir, { recursive: true });
      flags.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
    }
    if (workerProfile !== undefined) {
      const dir = path.join(workerProfile, `run${i}`);
      mkdirSync(dir, { recursive: true });
      process.env.SHARESINK_BENCH_WORKER_PROFILE = dir;
    }
    const spec = sink(i === 0 ? first : `${id}_t${i}`, i);
    // with --worker-profile, the main thread's steady part too (first put to last), beside the pool thread's
    const s = await withServerCpu('sink', () =>
      sampled(
        workerProfile === undefined ? spec : { ...spec, profileDir: path.join(workerProfile, `run${i}`) },
        flags,
      ),
    );
    samples.sink.push(s);
    const c = s.counters ?? {};
    const windowRows = ((s.steadyRecordsPerSec ?? 0) * s.windowMs) / 1000;
    const perRow = Object.entries(s.threadCpuUs ?? {})
      .map(([name, t]) => [name, (t.user + t.sys) / windowRows] as const)
      .filter(([, us]) => us >= 0.1)
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => `${name} ${round(us, 1)}`);
    const perPut = (ms: number) => round((ms * 500) / windowRows, 2);
    const w = s.windowEpochMs;
    const [sa, sb] = w === undefined ? [] : [serverTicksAt(w.from), serverTicksAt(w.to)];
    if (sa !== undefined && sb !== undefined)
      console.log(
        `  steady part: broker ${round(((sb.broker - sa.broker) * 10_000) / windowRows, 1)} µs/row, ` +
          `database ${round(((sb.database - sa.database) * 10_000) / windowRows, 1)} µs/row (100 ms samples); ` +
          `ms per 500 rows waiting for a CPU (run queue): main ${perPut(sb.mainRunq - sa.mainRunq)} ` +
          `(running ${perPut(sb.mainRun - sa.mainRun)}), pool thread ${perPut(sb.poolRunq - sa.poolRunq)} ` +
          `(running ${perPut(sb.poolRun - sa.poolRun)}), database ${perPut(sb.databaseRunqMs - sa.databaseRunqMs)}`,
      );
    console.log(
      `  steady part: CPU µs/row by thread ${perRow.join(', ')} · machine busy ${round(s.machineBusyCores ?? NaN, 2)} of ${os.cpus().length} cores · ` +
        `batches ${c.batches}, puts ${c.puts}, fetches ${c.consumerFetches} (${c.fetchesWithAcks} with acks), ShareAcknowledge ${c.ackRequests}`,
    );
    const bareSpec: ChildSpec =
      dialect === 'postgresql'
        ? {
            kind: 'pg-bare',
            pgUrl,
            label: 'bare',
            likeTable: first,
            table: `${id}_bare`,
            rows,
            batchSize: Math.round(s.avgRecordsPerPut ?? 500),
            timeoutMs: 300_000,
          }
        : {
            kind: 'mysql-bare',
            mysqlUrl,
            label: 'bare',
            likeTable: first,
            table: `${id}_bare`,
            rows,
            batchSize: Math.round(s.avgRecordsPerPut ?? 500),
            timeoutMs: 300_000,
          };
    const b = await withServerCpu('bare', () => runChild(bareSpec));
    samples.bare.push(b);
    console.log(
      `round ${i}: sink ${round(rate(s))}/s (${round(s.cpuUsPerRecord, 1)} µs/row, put ${round(s.avgRecordsPerPut ?? 0)}) · bare ${round(rate(b))}/s (${round(b.cpuUsPerRecord, 1)} µs/row) · ratio ${round(rate(s) / rate(b), 2)} · load ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ms = median(samples.sink.map(rate));
  const mb = median(samples.bare.map(rate));
  console.log(`median: sink ${round(ms)}/s · bare ${round(mb)}/s · ratio ${round(ms / mb, 3)}`);
  await deleteTopics(brokers, [topic]);
  await dropTables(Array.from({ length: rounds }, (_, i) => `${id}_t${i}`));
}

async function dropTables(tables: string[]): Promise<void> {
  if (dialect === 'postgresql') {
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    for (const t of tables) await c.query(`DROP TABLE IF EXISTS "${t}"`);
    await c.end();
    return;
  }
  const mysql = await import('mysql2/promise');
  const c = await mysql.createConnection({ host: '127.0.0.1', user: 'root', database: 'test' });
  for (const t of tables) await c.query(`DROP TABLE IF EXISTS \`${t}\``);
  await c.end();
}

/**
 * CPU ticks (10 ms) of the other processes the run leans on, from /proc: the broker on `brokers`' port
 * (its command line names its log directory, node-<port>) and the database server's processes.
 */
const isBroker = new Map<string, boolean>();
function serverTicks(): { broker: number; database: number; databaseRunqMs: number } {
  const port = brokers.slice(brokers.lastIndexOf(':') + 1);
  const out = { broker: 0, database: 0, databaseRunqMs: 0 };
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]);
      if (comm === 'postgres' || comm === 'mariadbd' || comm === 'mysqld') {
        if ((comm === 'postgres') === (dialect === 'postgresql')) {
          out.database += ticks;
          for (const tid of readdirSync(`/proc/${pid}/task`))
            out.databaseRunqMs += schedstat(`/proc/${pid}/task/${tid}/schedstat`)[1];
        }
      } else if (comm === 'java') {
        let broker = isBroker.get(pid);
        if (broker === undefined) {
          broker = readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`node-${port}/`);
          isBroker.set(pid, broker);
        }
        if (broker) out.broker += ticks;
      }
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** A thread's time on a CPU and waiting in the run queue (runnable, not running) so far, in ms. */
function schedstat(file: string): [number, number] {
  try {
    const [run, wait] = readFileSync(file, 'utf8').split(' ');
    return [Number(run) / 1e6, Number(wait) / 1e6];
  } catch {
    return [0, 0];
  }
}

interface ServerSample {
  readonly at: number;
  readonly broker: number;
  readonly database: number;
  readonly databaseRunqMs: number;
  /** The sink's main thread and its busiest other thread (the pool thread): run and run-queue ms. */
  readonly mainRun: number;
  readonly mainRunq: number;
  readonly poolRun: number;
  readonly poolRunq: number;
}

/** Samples every 100 ms during a sink run, to read the steady part's share (interpolated at its ends). */
const serverSamples: ServerSample[] = [];
function serverTicksAt(at: number): ServerSample | undefined {
  const i = serverSamples.findIndex((x) => x.at >= at);
  if (i <= 0) return undefined;
  const a = serverSamples[i - 1]!;
  const b = serverSamples[i]!;
  const k = (at - a.at) / (b.at - a.at);
  const out: Record<string, number> = {};
  for (const key of Object.keys(a) as (keyof ServerSample)[]) out[key] = a[key] + k * (b[key] - a[key]);
  return out as unknown as ServerSample;
}

/** Runs `run` and says how much CPU the broker and the database used meanwhile, in µs per row. */
async function withServerCpu<T>(label: string, run: () => Promise<T>): Promise<T> {
  const before = serverTicks();
  const result = await run();
  const after = serverTicks();
  console.log(
    `  ${label}, whole run: broker ${round(((after.broker - before.broker) * 10_000) / rows, 1)} µs/row, ` +
      `database ${round(((after.database - before.database) * 10_000) / rows, 1)} µs/row`,
  );
  return result;
}

/** runChild, plus the CPU of each of the child's threads (by name) from /proc, sampled until it exits. */
async function sampled(spec: ChildSpec, flags: string[]): Promise<ChildResult> {
  const child = spawn(
    process.execPath,
    [...flags, '--import', 'tsx', path.join(BENCH_DIR, 'child.ts'), JSON.stringify(spec)],
    {
      cwd: path.dirname(BENCH_DIR),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const last = new Map<string, { name: string; ticks: number }>();
  serverSamples.length = 0;
  const poll = setInterval(() => {
    const main = schedstat(`/proc/${child.pid}/task/${child.pid}/schedstat`);
    const busiest = [...last.entries()]
      .filter(([tid, t]) => tid !== String(child.pid) && t.name.startsWith('node:'))
      .sort((a, b) => b[1].ticks - a[1].ticks)[0]?.[0];
    const pool = busiest === undefined ? [0, 0] : schedstat(`/proc/${child.pid}/task/${busiest}/schedstat`);
    serverSamples.push({
      at: Date.now(),
      ...serverTicks(),
      mainRun: main[0],
      mainRunq: main[1],
      poolRun: pool[0]!,
      poolRunq: pool[1]!,
    });
    try {
      for (const tid of readdirSync(`/proc/${child.pid}/task`)) {
        const stat = readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8');
        const name =
          tid === String(child.pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        last.set(tid, { name, ticks: Number(f[11]) + Number(f[12]) });
      }
    } catch {
      // exited
    }
  }, 100);
  await new Promise((r) => child.on('exit', r));
  if (childStdout !== undefined) appendFileSync(childStdout, out);
  clearInterval(poll);
  const top = [...last.values()].sort((a, b) => b.ticks - a.ticks).slice(0, 8);
  console.log(`  threads (ms CPU, whole run): ${top.map((t) => `${t.name} ${t.ticks * 10}`).join(', ')}`);
  const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
  if (!line) throw new Error(`child failed: ${out.slice(-2000)}`);
  return JSON.parse(line.slice(RESULT_PREFIX.length)) as ChildResult;
}

await main();
