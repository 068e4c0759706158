/**
 * One sharesink measurement in a process of its own: `node --import tsx bench/child.ts '<json spec>'`.
 * Prints one line `BENCH_RESULT {…}` (see child-protocol.ts) and exits.
 *
 * Worker runs use the real runtime (compiled configs → Worker → task runners → PutPool → connector).
 * Classic mode falls back to a bare kafkajs consumer while the classic runner is not wired, and says so.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { pino } from 'pino';
import { Worker } from '../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../src/config/index.js';
import { isSharesinkError } from '../src/errors.js';
import { CHANNEL_SHARE_REQUEST, type ShareRequestMessage } from '../src/kafka/share/share-trace.js';
import type {
  ChildResult,
  ChildSpec,
  MainStalls,
  PgBareSpec,
  ThreadWindow,
  WorkerRunSpec,
} from './child-protocol.js';
import { RESULT_PREFIX } from './child-protocol.js';
import { kafkaClient, sleep } from './common.js';
import {
  cpuUs,
  machineTicks,
  procCpuUs,
  procRssMb,
  threadCpu,
  threadTicks,
  watchMainStalls,
} from './proc-stats.js';

const BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter';
const MB = 1024 * 1024;

interface Progress {
  /** Records done (put and acknowledged / committed). */
  done(): number;
  /**
   * Records whose put finished (every acquired batch put): the runtime's analog of the Java tools'
   * "records polled". A drain ends here; the final acknowledgements follow (see ackTailMs).
   */
  put(): number;
  counters(): Record<string, number> | undefined;
}

interface Sample {
  readonly at: number;
  readonly done: number;
  readonly cpuUs: number;
}

function sample(p: Progress, by: 'done' | 'put' = 'done'): Sample {
  return { at: performance.now(), done: by === 'done' ? p.done() : p.put(), cpuUs: cpuUs() };
}

/** Waits until `until` holds, polling every 10 ms; false on timeout. Tracks the RSS peak meanwhile. */
async function waitFor(until: () => boolean, deadline: number, rss: { peak: number }): Promise<boolean> {
  let n = 0;
  while (!until()) {
    if (performance.now() > deadline) return false;
    await sleep(10);
    if (++n % 10 === 0) rss.peak = Math.max(rss.peak, process.memoryUsage.rss());
  }
  return true;
}

/**
 * Waits until `deadline` on one timer per second: a steady window is measured on the child's own CPU,
 * and {@link waitFor}'s 10 ms checks would add ~100 wake-ups a second that the Java side does not pay.
 */
async function idleUntil(deadline: number, rss: { peak: number }): Promise<void> {
  for (let left = deadline - performance.now(); left > 0; left = deadline - performance.now()) {
    await sleep(Math.min(1000, left));
    rss.peak = Math.max(rss.peak, process.memoryUsage.rss());
  }
}

interface Measured {
  records: number;
  recordsPerSec: number;
  steadyRecordsPerSec: number | undefined;
  firstRecordMs: number | undefined;
  ackTailMs: number | undefined;
  windowMs: number;
  cpuUsPerRecord: number;
  cpuCores: number;
  ranDry: boolean;
  rssAfterStartMb: number | undefined;
  peakRssMb: number;
  windowCounters: Record<string, number> | undefined;
  machineBusyCores: number | undefined;
  procCpuUsPerRecord?: number | undefined;
  windowEpochMs?: { from: number; to: number } | undefined;
  rssAtWindowEndMb?: number | undefined;
  threadCpuUs?: Record<string, ThreadWindow> | undefined;
  mainStalls?: MainStalls | undefined;
}

/**
 * Runs the measurement on a started consumer side; `t0` is when start() was called.
 *
 * Drain: from start() (and, for the steady rate, from the first batch put) to the last record put. The
 * Java tools stop their clock at the last record polled; the time until the last acknowledgement is
 * reported apart (ackTailMs): at the end of a stream the final acks wait behind a ShareFetch that
 * long-polls for records that will not come (up to fetch.max.wait.ms).
 *
 * Window: records acknowledged per second over `windowMs` after `warmupMs`.
 */
async function measure(
  spec: WorkerRunSpec,
  p: Progress,
  t0: number,
  rssAfterStart: number,
): Promise<Measured> {
  const deadline = t0 + spec.timeoutMs;
  const rss = { peak: process.memoryUsage.rss() };
  const m = spec.measure;
  const by = m.kind === 'drain' ? 'put' : 'done';
  const count = () => (by === 'put' ? p.put() : p.done());
  if (!(await waitFor(() => count() > 0, deadline, rss))) throw new Error(`${spec.label}: no record done`);
  const first = sample(p, by);
  const profiler = spec.profileDir === undefined ? undefined : await startProfiler();
  let from: Sample;
  let to: Sample;
  let ackTailMs: number | undefined;
  let countersFrom: Record<string, number> | undefined;
  let countersTo: Record<string, number> | undefined;
  let ticksFrom: ReturnType<typeof machineTicks>;
  let ticksTo: ReturnType<typeof machineTicks>;
  let procFrom: number | undefined;
  let procTo: number | undefined;
  let rssAtWindowEndMb: number | undefined;
  let threadsFrom: ReturnType<typeof threadTicks> | undefined;
  let threadsTo: ReturnType<typeof threadTicks> | undefined;
  let stalls: ReturnType<typeof watchMainStalls>;
  let mainStalls: MainStalls | undefined;
  if (m.kind === 'drain') {
    from = first;
    // the steady part's CPU per thread and the machine's busy cores (is the machine the limit?)
    threadsFrom = threadTicks();
    ticksFrom = machineTicks();
    if (!(await waitFor(() => p.put() >= m.records, deadline, rss)))
      throw new Error(`${spec.label}: ${p.put()} of ${m.records} records put before the timeout`);
    to = sample(p, 'put');
    threadsTo = threadTicks();
    ticksTo = machineTicks();
    if (await waitFor(() => p.done() >= m.records, performance.now() + 10_000, rss))
      ackTailMs = performance.now() - to.at;
  } else {
    await idleUntil(first.at + m.warmupMs, rss);
    stalls = watchMainStalls();
    procFrom = procCpuUs();
    threadsFrom = threadTicks();
    from = sample(p);
    countersFrom = p.counters();
    ticksFrom = machineTicks();
    await idleUntil(from.at + m.windowMs, rss);
    to = sample(p);
    procTo = procCpuUs();
    threadsTo = threadTicks();
    countersTo = p.counters();
    ticksTo = machineTicks();
    rssAtWindowEndMb = procRssMb();
    mainStalls = stalls.stop();
  }
  if (profiler) await stopProfiler(profiler, spec.profileDir!);
  rss.peak = Math.max(rss.peak, process.memoryUsage.rss());
  const records = to.done - from.done;
  const windowMs = to.at - from.at;
  const cpu = to.cpuUs - from.cpuUs;
  return {
    records: m.kind === 'drain' ? m.records : records,
    recordsPerSec: m.kind === 'drain' ? m.records / ((to.at - t0) / 1000) : records / (windowMs / 1000),
    steadyRecordsPerSec: m.kind === 'drain' ? records / (windowMs / 1000) : undefined,
    firstRecordMs: first.at - t0,
    ackTailMs,
    windowMs,
    cpuUsPerRecord: records > 0 ? cpu / records : NaN,
    cpuCores: cpu / 1000 / windowMs,
    ranDry: m.kind === 'window' && to.done >= spec.topicRecords,
    rssAfterStartMb: rssAfterStart / MB,
    peakRssMb: Math.max(rss.peak, process.resourceUsage().maxRSS * 1024) / MB,
    windowCounters:
      countersFrom && countersTo
        ? Object.fromEntries(Object.entries(countersTo).map(([k, v]) => [k, v - (countersFrom[k] ?? 0)]))
        : undefined,
    machineBusyCores:
      ticksFrom && ticksTo && ticksTo.total > ticksFrom.total
        ? ((ticksTo.busy - ticksFrom.busy) / (ticksTo.total - ticksFrom.total)) * os.cpus().length
        : undefined,
    procCpuUsPerRecord:
      procFrom !== undefined && procTo !== undefined && records > 0
        ? (procTo - procFrom) / records
        : undefined,
    windowEpochMs: { from: performance.timeOrigin + from.at, to: performance.timeOrigin + to.at },
    rssAtWindowEndMb,
    threadCpuUs: threadsFrom && threadsTo ? threadCpu(threadsFrom, threadsTo, m.kind === 'drain') : undefined,
    mainStalls,
  };
}

async function startProfiler(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return session;
}

/** Named like --cpu-prof's files (thread id 0 = main thread) so bench/profile.ts reads it the same way. */
async function stopProfiler(session: Session, dir: string): Promise<void> {
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  writeFileSync(path.join(dir, `CPU.steady.main.${process.pid}.0.001.cpuprofile`), JSON.stringify(profile));
}

async function runWorker(spec: WorkerRunSpec): Promise<ChildResult> {
  const worker = compileWorkerConfig({
    'bootstrap.servers': spec.brokers,
    'key.converter': BYTES,
    'value.converter': BYTES,
    ...(spec.poolThreads === undefined ? {} : { 'pool.threads': String(spec.poolThreads) }),
    ...spec.workerProps,
  });
  const group = `${spec.label}-${Date.now().toString(36)}`.replace(/[^A-Za-z0-9._-]/g, '-');
  const connector = compileConnectorConfig(
    {
      name: group,
      'connector.class': spec.connectorClass,
      topics: spec.topic,
      'tasks.max': String(spec.tasks),
      'consumer.override.group.protocol': spec.mode,
      ...(spec.userSettingsOnly === true
        ? {}
        : {
            'consumer.override.group.id': group,
            ...(spec.mode === 'share'
              ? { 'share.group.share.auto.offset.reset': 'earliest' }
              : { 'consumer.override.auto.offset.reset': 'earliest' }),
          }),
      ...spec.connectorProps,
    },
    worker,
  );
  // userSettingsOnly: INFO, to see the start-position line (there are no per-batch INFO lines); the
  // rest of the log goes to stderr from WARN up, as before
  let startPositionLine: string | undefined;
  const logger =
    spec.userSettingsOnly === true
      ? pino(
          { level: 'info' },
          {
            write(line: string) {
              const entry = JSON.parse(line) as { level?: number; msg?: string };
              if (typeof entry.msg === 'string' && entry.msg.includes('share.auto.offset.reset'))
                startPositionLine ??= entry.msg;
              if ((entry.level ?? 0) >= 40) process.stderr.write(line);
            },
          },
        )
      : pino({ level: 'warn' }, pino.destination(2));
  const w = new Worker({ worker, connectors: [connector], logger });
  const t0 = performance.now();
  try {
    await w.start();
  } catch (err) {
    await w.stop().catch(() => undefined);
    if (spec.mode === 'classic' && isSharesinkError(err) && String(err.code) === 'SHARESINK_NOT_IMPLEMENTED')
      return runKafkajsClassic(spec, 'the classic task runner is not wired yet (SHARESINK_NOT_IMPLEMENTED)');
    throw err;
  }
  const startMs = performance.now() - t0;
  const rssAfterStart = process.memoryUsage.rss();
  const current = () => w.summary().connectors[0]!.counters;
  // share requests as the broker sees them: each acknowledgement writes the group's share state
  const requests = { ackRequests: 0, fetchesWithAcks: 0 };
  diagnosticsChannel.subscribe(CHANNEL_SHARE_REQUEST, (m) => {
    const r = m as ShareRequestMessage;
    if (r.api === 'ShareAcknowledge') requests.ackRequests++;
    else if (r.ackedOffsets > 0) requests.fetchesWithAcks++;
  });
  const progress: Progress = {
    done: () => current().recordsAccepted,
    // records whose put() ended (counted when it ends; retries count again, a drain has none). The
    // earlier "puts ≥ batches" test no longer holds since one put may carry several fetched batches
    put: () => {
      const c = current();
      return Math.min(c.recordsPut, c.recordsAcquired);
    },
    counters: () => {
      // the share consumers' ShareFetch answers beside the task counters (fetches per batch at a steady rate)
      const runtimes = (
        w as unknown as { runtimes?: Array<{ taskMetrics(): Array<{ consumer?: { fetches: number } }> }> }
      ).runtimes;
      const fetches = runtimes?.[0]?.taskMetrics().reduce((n, t) => n + (t.consumer?.fetches ?? 0), 0);
      return {
        ...current(),
        ...requests,
        ...(fetches === undefined ? {} : { consumerFetches: fetches }),
      } as unknown as Record<string, number>;
    },
  };
  let m: Measured;
  try {
    m = await measure(spec, progress, t0, rssAfterStart);
  } finally {
    if (w.taskFailures.length > 0) process.stderr.write(`task failures: ${JSON.stringify(w.taskFailures)}\n`);
  }
  const counters = progress.counters()!;
  const stopStarted = performance.now();
  await w.stop();
  const stopMs = performance.now() - stopStarted;
  const notes: string[] = [];
  if (w.taskFailures.length > 0)
    notes.push(`task failures: ${w.taskFailures.map((f) => f.error).join('; ')}`);
  if ((counters.recordsRedelivered ?? 0) > 0)
    notes.push(`${counters.recordsRedelivered} records redelivered`);
  return {
    label: spec.label,
    via: 'worker',
    ...m,
    startMs,
    avgRecordsPerPut: counters.puts ? (counters.recordsPut ?? 0) / counters.puts : undefined,
    stopMs,
    counters,
    startPositionLine,
    notes,
  };
}

/**
 * Classic mode measured on kafkajs directly: `tasks` consumers in one group, one simulated put per
 * chunk of at most max.poll.records records (sleeping the sink latency), offsets committed after each
 * batch. No worker threads, no conversion: this is the bare kafkajs ceiling, not the sharesink runtime.
 */
async function runKafkajsClassic(spec: WorkerRunSpec, why: string): Promise<ChildResult> {
  const kafka = kafkaClient(spec.brokers);
  const group = `${spec.label}-kjs-${Date.now().toString(36)}`.replace(/[^A-Za-z0-9._-]/g, '-');
  const latency = spec.fallbackLatencyMs ?? 0;
  const chunk = spec.fallbackMaxPollRecords ?? 500;
  const maxBytes = Number(spec.connectorProps['consumer.override.max.partition.fetch.bytes'] ?? 1_048_576);
  let done = 0;
  let puts = 0;
  let acquired = 0;
  const t0 = performance.now();
  const consumers = Array.from({ length: spec.tasks }, () =>
    kafka.consumer({ groupId: group, maxBytesPerPartition: maxBytes, sessionTimeout: 10_000 }),
  );
  for (const c of consumers) {
    await c.connect();
    await c.subscribe({ topics: [spec.topic], fromBeginning: true });
    await c.run({
      autoCommit: true,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary }) => {
        const messages = batch.messages;
        acquired += messages.length;
        for (let i = 0; i < messages.length; i += chunk) {
          const part = messages.slice(i, i + chunk);
          if (latency > 0) await sleep(latency);
          puts++;
          resolveOffset(part[part.length - 1]!.offset);
          done += part.length;
        }
        await heartbeat();
        await commitOffsetsIfNecessary();
      },
    });
  }
  const rssAfterStart = process.memoryUsage.rss();
  const m = await measure(
    spec,
    { done: () => done, put: () => done, counters: () => undefined },
    t0,
    rssAfterStart,
  );
  const stopStarted = performance.now();
  await Promise.all(consumers.map((c) => c.disconnect()));
  return {
    label: spec.label,
    via: 'kafkajs-direct',
    ...m,
    avgRecordsPerPut: puts > 0 ? acquired / puts : undefined,
    stopMs: performance.now() - stopStarted,
    counters: { puts, recordsAcquired: acquired, done },
    notes: [`classic measured on kafkajs directly: ${why}`],
  };
}

/** The bare pg loop: the same rows, the same batch size, one connection, one statement per batch. */
async function runPgBare(spec: PgBareSpec): Promise<ChildResult> {
  const { default: pg } = await import('pg');
  const { pgRow, PG_COLUMNS } = await import('./pg-rows.js');
  const client = new pg.Client({ connectionString: spec.pgUrl });
  await client.connect();
  const q = (s: string) => `"${s.replaceAll('"', '""')}"`;
  await client.query(`DROP TABLE IF EXISTS ${q(spec.table)}`);
  await client.query(`CREATE TABLE ${q(spec.table)} (LIKE ${q(spec.likeTable)} INCLUDING ALL)`);
  const cols = PG_COLUMNS.map(q).join(', ');
  const rss = { peak: process.memoryUsage.rss() };
  const cpu0 = cpuUs();
  const t0 = performance.now();
  for (let start = 0; start < spec.rows; start += spec.batchSize) {
    const n = Math.min(spec.batchSize, spec.rows - start);
    const values: unknown[] = [];
    const tuples: string[] = [];
    for (let i = 0; i < n; i++) {
      const row = pgRow(start + i);
      const slots: string[] = [];
      for (const c of PG_COLUMNS) {
        values.push(row[c]);
        slots.push(`$${values.length}`);
      }
      tuples.push(`(${slots.join(',')})`);
    }
    await client.query(`INSERT INTO ${q(spec.table)} (${cols}) VALUES ${tuples.join(',')}`, values);
    if (performance.now() - t0 > spec.timeoutMs) throw new Error('bare pg loop timed out');
  }
  const wall = performance.now() - t0;
  const cpu = cpuUs() - cpu0;
  rss.peak = Math.max(rss.peak, process.memoryUsage.rss());
  const count = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${q(spec.table)}`);
  await client.query(`DROP TABLE IF EXISTS ${q(spec.table)}`);
  await client.end();
  return {
    label: spec.label,
    via: 'pg',
    records: Number(count.rows[0]?.n ?? 0),
    recordsPerSec: spec.rows / (wall / 1000),
    steadyRecordsPerSec: undefined,
    firstRecordMs: undefined,
    ackTailMs: undefined,
    windowMs: wall,
    cpuUsPerRecord: cpu / spec.rows,
    cpuCores: cpu / 1000 / wall,
    peakRssMb: rss.peak / MB,
    rssAfterStartMb: undefined,
    avgRecordsPerPut: spec.batchSize,
    stopMs: undefined,
    ranDry: false,
    counters: undefined,
    notes: [],
  };
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as ChildSpec;
  const result =
    spec.kind === 'pg-bare'
      ? await runPgBare(spec)
      : spec.kind === 'mysql-bare'
        ? await (await import('./mysql-bare.js')).runMysqlBare(spec)
        : await runWorker(spec);
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `bench child failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
