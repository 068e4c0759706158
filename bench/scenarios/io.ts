/**
 * Scenario 7, "I/O-bound sink, default settings" (issue 11, item 5): sharesink as a user runs it.
 *
 * - HttpSink posting to a local node:http server (this process, keep-alive) that answers 5 ms or
 *   20 ms after a request's body arrived, and PostgresSink (insert mode, auto.create, JsonConverter
 *   without schemas, a table of its own per run) against the local PostgreSQL;
 * - a 2-partition topic of JSON rows filled twice by ProducerPerformance (`acks=1`, `linger.ms=50`):
 *   large producer batches (`batch.size=16384`, ~130 rows) and small ones (a `batch.size` holding ~30
 *   rows); the batch count is read back from the broker's log segments (DumpLogSegments);
 * - share mode with 1/2/4/8 tasks, classic mode with 1/2/4/8 (short mode: share 1/2/4/8 and classic
 *   1/8 for HttpSink at 20 ms; share 1/8 and classic 8 for HttpSink at 5 ms and PostgresSink), **nothing but what a user must write**: `connector.class`, `topics`,
 *   `tasks.max`, the converters, the sink's URL or connection, `consumer.override.group.protocol`. No
 *   pool, inflight, poll, group id or start-position setting: sharesink must set `earliest` on the new
 *   share group by itself (the row records the line it logged);
 * - the Java share peer (bench/java/ShareLatencyBench.java, 1 and 8 threads, 500-record polls as the
 *   Java consumer's default `max.poll.records`) at 5 ms, for item 4's "at least the Java peer's
 *   efficiency" (CPU-bound on 2 cores).
 *
 * Each row: records acknowledged per second over a window after a warm-up, the child process's CPU,
 * the whole machine's busy cores over the same window (saturated at ≥ 90% of the cores), and the
 * average records per put inside the window (recordsPut / puts of the task counters).
 */
import http from 'node:http';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildResult, ChildSpec, WorkerRunSpec } from '../child-protocol.js';
import { createTopic, KAFKA_VERSION, ratio, ROOT, round, runJava, splitAddress } from '../common.js';
import { producerPerformance, shareLatencyBench, type JavaLatencyResult } from '../java-tools.js';
import { pgRow } from '../pg-rows.js';

const JSON_CONVERTER = 'org.apache.kafka.connect.json.JsonConverter';
const PARTITIONS = 2;
/** Busy cores of the whole machine at which a row counts as CPU-saturated (1.8 of 2). */
const SATURATED_FRACTION = 0.9;

export type IoFill = 'large' | 'small';
export type IoSink = 'http5' | 'http20' | 'postgres';

export interface IoPlan {
  readonly records: number;
  readonly warmupMs: number;
  readonly windowMs: number;
  /** Large fill: a producer batch holds values up to this many bytes. */
  readonly largeBatchBytes: number;
  /** Small fill: records per producer batch. */
  readonly smallBatchRecords: number;
  readonly sinks: readonly IoSink[];
  /** Task counts per sink and mode. */
  readonly tasks: Readonly<Record<IoSink, { share: readonly number[]; classic: readonly number[] }>>;
  /** Java share peer thread counts (5 ms); empty: none. */
  readonly javaThreads: readonly number[];
}

export function ioPlan(full: boolean, scale: number): IoPlan {
  const all = { share: [1, 2, 4, 8], classic: [1, 2, 4, 8] };
  const k = scale > 0 ? scale : 1;
  const base: IoPlan = full
    ? {
        records: 1_500_000,
        warmupMs: 2000,
        windowMs: 8000,
        largeBatchBytes: 16_384,
        smallBatchRecords: 30,
        sinks: ['http20', 'http5', 'postgres'],
        tasks: { http20: all, http5: all, postgres: all },
        javaThreads: [1, 8],
      }
    : {
        records: 300_000,
        warmupMs: 1000,
        windowMs: 3000,
        largeBatchBytes: 16_384,
        smallBatchRecords: 30,
        sinks: ['http20', 'http5', 'postgres'],
        tasks: {
          http20: { share: [1, 2, 4, 8], classic: [1, 8] },
          http5: { share: [1, 8], classic: [8] },
          postgres: { share: [1, 8], classic: [8] },
        },
        javaThreads: [1, 8],
      };
  if (k === 1) return base;
  return {
    ...base,
    records: Math.max(2000, Math.round(base.records * k)),
    warmupMs: Math.max(500, Math.round(base.warmupMs * k)),
    windowMs: Math.max(1000, Math.round(base.windowMs * k)),
  };
}

export interface IoFillResult {
  readonly fill: IoFill;
  readonly topic: string;
  readonly records: number;
  /** The producer's batch.size (linger.ms=50, so batches are full). */
  readonly producerBatchSize: number;
  readonly fillMs: number;
  /** From the broker's log segments (DumpLogSegments), when its data directory is on this machine. */
  readonly producerBatches: number | undefined;
  readonly avgRecordsPerProducerBatch: number | undefined;
  readonly batchCheck: string;
}

export interface IoRow {
  readonly sink: IoSink;
  readonly fill: IoFill;
  readonly mode: 'share' | 'classic' | 'java-share';
  readonly tasks: number;
  readonly via: string;
  readonly recordsPerSec: number;
  /** Records per put inside the window (recordsPut / puts moved there); Java peer: records per poll. */
  readonly avgRecordsPerPut: number | undefined;
  /** The same over the whole run, start-up included. */
  readonly avgRecordsPerPutWholeRun: number | undefined;
  /** Average put() duration inside the window (putMsTotal / puts moved there), conversion included. */
  readonly avgPutMs: number | undefined;
  /** The sharesink child process (every thread), over the window. */
  readonly processCpuCores: number | undefined;
  /** The whole machine (broker, HTTP server, PostgreSQL, other work) over the window. */
  readonly machineBusyCores: number | undefined;
  readonly cpuSaturated: boolean | undefined;
  readonly ranDry: boolean;
  /** HTTP rows: requests the server answered during the child's run, and the most at once. */
  readonly httpRequests?: number;
  readonly httpMaxConcurrent?: number;
  readonly startPositionLine?: string | undefined;
  readonly detail: ChildResult | JavaLatencyResult;
}

export interface IoResults {
  readonly plan: IoPlan;
  /** Exactly what each row's connector and worker files held (besides bootstrap.servers and name). */
  readonly userSettings: Record<string, Record<string, string>>;
  readonly fills: IoFillResult[];
  readonly rows: IoRow[];
  readonly notes: string[];
}

export interface IoContext {
  readonly brokers: string;
  readonly pgUrl: string;
  readonly full: boolean;
  readonly scale: number;
  readonly topicName: (what: string) => string;
  readonly createdTopics: string[];
  /** The harness's measured step: waits for a quiet machine, records it, catches a failure. */
  readonly measured: <T>(name: string, fn: () => Promise<T>) => Promise<T | undefined>;
  readonly step: <T>(name: string, fn: () => Promise<T>) => Promise<T | undefined>;
  readonly runChild: (spec: ChildSpec) => Promise<ChildResult>;
  /** Compiled bench/java/ShareLatencyBench, when the harness compiled it. */
  readonly javaPeer: string | undefined;
  readonly runId: string;
}

// ------------------------------------------------------------------------------------------ HTTP server

interface SlowServer {
  readonly url: (latencyMs: number) => string;
  readonly stats: { requests: number; bytes: number; inFlight: number; maxInFlight: number };
  close(): Promise<void>;
}

/** Answers every request `latencyMs` (from the path, /d<ms>) after its body arrived; keep-alive. */
async function startSlowServer(): Promise<SlowServer> {
  const stats = { requests: 0, bytes: 0, inFlight: 0, maxInFlight: 0 };
  const server = http.createServer((req, res) => {
    const latency = Number(/^\/d(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      setTimeout(() => {
        stats.requests++;
        stats.bytes += bytes;
        stats.inFlight--;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' });
        res.end('{}');
      }, latency);
    });
  });
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: (ms) => `http://127.0.0.1:${port}/d${ms}`,
    stats,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ------------------------------------------------------------------------------------------ fills

/** Values of the fills: distinct JSON rows (bench/pg-rows.ts), one per line, picked at random by the tool. */
const PAYLOAD_ROWS = 10_000;
/** Bytes a record adds to its value inside a v2 record batch (length, attributes, deltas, key, headers). */
const RECORD_OVERHEAD = 10;
/** The v2 record batch header. */
const BATCH_HEADER = 61;

/**
 * ProducerPerformance with JSON rows, `acks=1`, `linger.ms=50`: large batches at `batch.size=16384`,
 * small ones at a `batch.size` that holds `smallBatchRecords` rows of the average size, so every batch
 * is full and the layout is the same from run to run.
 */
async function fillTopic(
  ctx: IoContext,
  plan: IoPlan,
  fill: IoFill,
  payloadFile: { path: string; avgBytes: number },
): Promise<Omit<IoFillResult, 'producerBatches' | 'avgRecordsPerProducerBatch' | 'batchCheck'>> {
  const topic = ctx.topicName(`io-${fill}-p${PARTITIONS}`);
  await createTopic(ctx.brokers, topic, PARTITIONS);
  ctx.createdTopics.push(topic);
  const batchSize =
    fill === 'large'
      ? plan.largeBatchBytes
      : Math.round(BATCH_HEADER + plan.smallBatchRecords * (payloadFile.avgBytes + RECORD_OVERHEAD));
  const t0 = performance.now();
  await producerPerformance({
    brokers: ctx.brokers,
    topic,
    records: plan.records,
    recordSize: 0,
    payloadFile: payloadFile.path,
    props: { acks: '1', 'linger.ms': '50', 'batch.size': String(batchSize) },
  });
  return {
    fill,
    topic,
    records: plan.records,
    producerBatchSize: batchSize,
    fillMs: round(performance.now() - t0),
  };
}

function writePayloadFile(): { path: string; avgBytes: number; dir: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sharesink-bench-io-'));
  const rows = Array.from({ length: PAYLOAD_ROWS }, (_, i) => JSON.stringify(pgRow(i)));
  const file = path.join(dir, 'rows.jsonl');
  writeFileSync(file, rows.join('\n'));
  return { path: file, dir, avgBytes: rows.reduce((t, r) => t + r.length, 0) / rows.length };
}

/** Producer batches in the topic's log segments (the broker's data directory of this checkout, if any). */
async function countProducerBatches(
  brokers: string,
  topic: string,
): Promise<{ batches: number; records: number } | string> {
  const { port } = splitAddress(brokers);
  const dataDir = path.join(ROOT, '.kafka', KAFKA_VERSION, `node-${port}`, 'data');
  const files: string[] = [];
  try {
    for (let p = 0; p < PARTITIONS; p++) {
      const dir = path.join(dataDir, `${topic}-${p}`);
      for (const f of readdirSync(dir)) if (f.endsWith('.log')) files.push(path.join(dir, f));
    }
  } catch {
    return `not checked: no log directory of ${topic} under ${dataDir} (a broker not started by this checkout)`;
  }
  const r = await runJava('org.apache.kafka.tools.DumpLogSegments', ['--files', files.join(',')], 120_000, [
    '-Xmx256m',
  ]);
  let batches = 0;
  let records = 0;
  for (const m of r.stdout.matchAll(/^baseOffset: \d+ lastOffset: \d+ count: (\d+)/gm)) {
    batches++;
    records += Number(m[1]);
  }
  return { batches, records };
}

// ------------------------------------------------------------------------------------------ rows

function userSettings(
  sink: IoSink,
  server: SlowServer | undefined,
  pgUrl: string,
  table: string,
): { connector: Record<string, string>; worker: Record<string, string> } {
  const worker = {
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': JSON_CONVERTER,
    'value.converter.schemas.enable': 'false',
  };
  const connector: Record<string, string> =
    sink === 'postgres'
      ? { 'connection.url': pgUrl, table, 'insert.mode': 'insert', 'auto.create': 'true' }
      : { 'http.url': server!.url(sink === 'http5' ? 5 : 20) };
  return { connector, worker };
}

const sinkClass = (sink: IoSink) => (sink === 'postgres' ? 'PostgresSink' : 'HttpSink');
const sinkName = (sink: IoSink) =>
  sink === 'postgres' ? 'PostgresSink' : `HttpSink ${sink === 'http5' ? 5 : 20} ms`;

export async function runIoScenario(ctx: IoContext): Promise<IoResults> {
  const plan = ioPlan(ctx.full, ctx.scale);
  const out: IoResults = { plan, userSettings: {}, fills: [], rows: [], notes: [] };
  const server = await startSlowServer();
  const pgTables: string[] = [];
  const payload = writePayloadFile();
  try {
    for (const fill of ['large', 'small'] as const) {
      const filled = await ctx.step(
        `fill io topic, ${fill} producer batches (${plan.records} JSON rows)`,
        () => fillTopic(ctx, plan, fill, payload),
      );
      if (!filled) continue;
      const counted = await ctx
        .step(`count producer batches of ${filled.topic}`, () =>
          countProducerBatches(ctx.brokers, filled.topic),
        )
        .catch(() => undefined);
      const fr: IoFillResult =
        counted !== undefined && typeof counted !== 'string'
          ? {
              ...filled,
              producerBatches: counted.batches,
              avgRecordsPerProducerBatch:
                counted.batches > 0 ? round(counted.records / counted.batches, 1) : undefined,
              batchCheck:
                counted.records === plan.records
                  ? `DumpLogSegments: ${counted.batches} batches, ${counted.records} records`
                  : `DumpLogSegments saw ${counted.records} of ${plan.records} records (${counted.batches} batches)`,
            }
          : {
              ...filled,
              producerBatches: undefined,
              avgRecordsPerProducerBatch: undefined,
              batchCheck: typeof counted === 'string' ? counted : 'not checked (DumpLogSegments failed)',
            };
      out.fills.push(fr);

      for (const sink of plan.sinks) {
        const counts = plan.tasks[sink];
        const runs = [
          ...counts.share.map((tasks) => ({ mode: 'share' as const, tasks })),
          ...counts.classic.map((tasks) => ({ mode: 'classic' as const, tasks })),
        ];
        for (const { mode, tasks } of runs) {
          const label = `io-${sink}-${fill}-${mode}-t${tasks}`;
          const table = `bench_io_${ctx.runId}_${fill}_${sink}_${mode}_${tasks}`;
          const settings = userSettings(sink, server, ctx.pgUrl, table);
          out.userSettings[sinkClass(sink)] = {
            'connector.class': sinkClass(sink),
            topics: '<topic>',
            'tasks.max': '<tasks>',
            'consumer.override.group.protocol': '<share|classic>',
            ...Object.fromEntries(
              Object.entries(settings.connector).map(([k, v]) => [
                k,
                k === 'table' ? '<own table per run>' : v,
              ]),
            ),
            ...settings.worker,
          };
          if (sink === 'postgres') pgTables.push(table);
          const before = { ...server.stats };
          server.stats.maxInFlight = 0;
          const row = await ctx.measured(
            `io ${sinkName(sink)} ${fill} batches ${mode} tasks=${tasks}`,
            async () => {
              const spec: WorkerRunSpec = {
                kind: 'worker',
                label,
                brokers: ctx.brokers,
                topic: filled.topic,
                topicRecords: plan.records,
                mode,
                tasks,
                userSettingsOnly: true,
                connectorClass: sinkClass(sink),
                connectorProps: settings.connector,
                workerProps: settings.worker,
                measure: { kind: 'window', warmupMs: plan.warmupMs, windowMs: plan.windowMs },
                timeoutMs: 120_000,
              };
              return ctx.runChild(spec).catch((err: unknown) => {
                // the harness's step line keeps only the first line; the child's stderr tail is here
                process.stderr.write(`${label}: ${String(err instanceof Error ? err.message : err)}\n`);
                throw err;
              });
            },
          );
          if (!row) continue;
          const w = row.windowCounters;
          const busy = row.machineBusyCores;
          out.rows.push({
            sink,
            fill,
            mode,
            tasks,
            via: row.via,
            recordsPerSec: round(row.recordsPerSec),
            avgRecordsPerPut: w && w.puts! > 0 ? round(w.recordsPut! / w.puts!, 1) : undefined,
            avgRecordsPerPutWholeRun:
              row.avgRecordsPerPut === undefined ? undefined : round(row.avgRecordsPerPut, 1),
            avgPutMs: w && w.puts! > 0 ? round(w.putMsTotal! / w.puts!, 1) : undefined,
            processCpuCores: round(row.cpuCores, 2),
            machineBusyCores: busy === undefined ? undefined : round(busy, 2),
            cpuSaturated: busy === undefined ? undefined : busy >= SATURATED_FRACTION * os.cpus().length,
            ranDry: row.ranDry,
            ...(sink === 'postgres'
              ? {}
              : {
                  httpRequests: server.stats.requests - before.requests,
                  httpMaxConcurrent: server.stats.maxInFlight,
                }),
            startPositionLine: row.startPositionLine,
            detail: row,
          });
          if (mode === 'share' && row.startPositionLine === undefined)
            out.notes.push(`${label}: no start-position line was logged`);
        }
      }

      // the Java share peer at 5 ms: item 4's reference for the CPU-bound latency
      if (ctx.javaPeer) {
        for (const threads of plan.javaThreads) {
          const j = await ctx.measured(`io Java share peer 5 ms ${fill} batches threads=${threads}`, () =>
            shareLatencyBench({
              classesDir: ctx.javaPeer!,
              brokers: ctx.brokers,
              topic: filled.topic,
              group: `io-java-${fill}-${threads}-${Date.now().toString(36)}`,
              threads,
              latencyMs: 5,
              maxPollRecords: 500,
              warmupMs: plan.warmupMs,
              windowMs: plan.windowMs,
            }),
          );
          if (!j) continue;
          out.rows.push({
            sink: 'http5',
            fill,
            mode: 'java-share',
            tasks: threads,
            via: 'Java KafkaShareConsumer threads sleeping 5 ms per poll (bench/java/ShareLatencyBench.java), max.poll.records 500',
            recordsPerSec: round(j.recordsPerSec),
            avgRecordsPerPut: j.polls > 0 ? round(j.records / j.polls, 1) : undefined,
            avgRecordsPerPutWholeRun: undefined,
            avgPutMs: undefined,
            processCpuCores: undefined,
            machineBusyCores: undefined,
            cpuSaturated: undefined,
            ranDry: false,
            detail: j,
          });
        }
      }
    }
  } finally {
    await server.close();
    rmSync(payload.dir, { recursive: true, force: true });
    if (pgTables.length > 0) await dropTables(ctx.pgUrl, pgTables).catch(() => undefined);
  }
  return out;
}

async function dropTables(pgUrl: string, tables: readonly string[]): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    for (const t of tables) await client.query(`DROP TABLE IF EXISTS "${t}"`);
  } finally {
    await client.end();
  }
}

// ------------------------------------------------------------------------------------------ ratios

function geomean(values: ReadonlyArray<number | null>): number | null {
  const ok = values.filter((v): v is number => v !== null && Number.isFinite(v) && v > 0);
  if (ok.length === 0) return null;
  return round(Math.exp(ok.reduce((s, v) => s + Math.log(v), 0) / ok.length), 3);
}

export interface IoRatios {
  ratios: Record<string, number | null>;
  detail: Array<Record<string, unknown>>;
  targets: Record<string, { value: number | null; target: number; met: boolean | null }>;
}

/**
 * `ioScalingEfficiency8xDefaults` (HttpSink, share 8 ÷ (8 × share 1), per latency and fill; the plain
 * name is their geomean), `shareVsClassicIo8xDefaults` (share 8 ÷ classic 8; HttpSink geomean, per
 * sink and fill), `postgresShare8xVs1xDefaults` (PostgresSink share 8 ÷ share 1; geomean over fills),
 * `shareVsClassicPutSize8xDefaults` (average records per put in the window, share ÷ classic, 8 tasks).
 */
export function ioRatios(io: IoResults | undefined): IoRatios {
  const out: IoRatios = { ratios: {}, detail: [], targets: {} };
  if (!io || io.rows.length === 0) return out;
  const at = (sink: IoSink, fill: IoFill, mode: IoRow['mode'], tasks: number) =>
    io.rows.find((r) => r.sink === sink && r.fill === fill && r.mode === mode && r.tasks === tasks);
  const eff: Array<number | null> = [];
  const vsClassicHttp: Array<number | null> = [];
  const pg8v1: Array<number | null> = [];
  const putSize: Array<number | null> = [];
  const at20: Array<{ value: number | null; saturated: boolean | undefined }> = [];
  const javaEff: Array<number | null> = [];
  const shareEff5: Array<number | null> = [];
  for (const fill of ['large', 'small'] as const) {
    for (const sink of ['http5', 'http20', 'postgres'] as const) {
      const one = at(sink, fill, 'share', 1);
      const eight = at(sink, fill, 'share', 8);
      const classic8 = at(sink, fill, 'classic', 8);
      const tag = sink === 'postgres' ? `postgres_${fill}` : `${sink === 'http5' ? 5 : 20}ms_${fill}`;
      const e = eight && one ? ratio(eight.recordsPerSec, 8 * one.recordsPerSec) : null;
      const vs = eight && classic8 ? ratio(eight.recordsPerSec, classic8.recordsPerSec) : null;
      const ps = eight && classic8 ? ratio(eight.avgRecordsPerPut, classic8.avgRecordsPerPut) : null;
      if (!one && !eight && !classic8) continue;
      if (sink === 'postgres') {
        const s = eight && one ? ratio(eight.recordsPerSec, one.recordsPerSec) : null;
        out.ratios[`postgresShare8xVs1xDefaults_${fill}`] = s;
        pg8v1.push(s);
      } else {
        out.ratios[`ioScalingEfficiency8xDefaults_${tag}`] = e;
        eff.push(e);
        vsClassicHttp.push(vs);
        if (sink === 'http20') at20.push({ value: e, saturated: eight?.cpuSaturated });
        if (sink === 'http5') {
          shareEff5.push(e);
          const j1 = at('http5', fill, 'java-share', 1);
          const j8 = at('http5', fill, 'java-share', 8);
          const je = j1 && j8 ? ratio(j8.recordsPerSec, 8 * j1.recordsPerSec) : null;
          out.ratios[`javaShareIoScalingEfficiency8x_5ms_${fill}`] = je;
          javaEff.push(je);
        }
      }
      out.ratios[`shareVsClassicIo8xDefaults_${tag}`] = vs;
      out.ratios[`shareVsClassicPutSize8xDefaults_${tag}`] = ps;
      putSize.push(ps);
      out.detail.push({
        sink,
        fill,
        share1: one?.recordsPerSec ?? null,
        share8: eight?.recordsPerSec ?? null,
        classic8: classic8?.recordsPerSec ?? null,
        efficiency8x: e,
        share8VsShare1: eight && one ? ratio(eight.recordsPerSec, one.recordsPerSec) : null,
        share8VsClassic8: vs,
        putSizeShare8: eight?.avgRecordsPerPut ?? null,
        putSizeClassic8: classic8?.avgRecordsPerPut ?? null,
        putSizeShareVsClassic: ps,
        share8CpuSaturated: eight?.cpuSaturated ?? null,
        share8MachineBusyCores: eight?.machineBusyCores ?? null,
      });
    }
  }
  out.ratios.ioScalingEfficiency8xDefaults = geomean(eff);
  out.ratios.shareVsClassicIo8xDefaults = geomean(vsClassicHttp);
  out.ratios.postgresShare8xVs1xDefaults = geomean(pg8v1);
  out.ratios.shareVsClassicPutSize8xDefaults = geomean(putSize);
  const minOf = (v: Array<number | null>) => {
    const ok = v.filter((x): x is number => x !== null);
    return ok.length > 0 ? Math.min(...ok) : null;
  };
  const e20 = minOf(at20.map((a) => a.value));
  const saturated20 = at20.some((a) => a.saturated === true);
  const t = (value: number | null, goal: number, judged = true) => ({
    value,
    target: goal,
    met: value === null || !judged ? null : value >= goal,
  });
  out.targets = {
    [`I/O defaults: share 8 tasks ≥ 0.85× linear at 20 ms (lowest over fills)${saturated20 ? '; not judged: CPU saturated in an 8-task row' : ''}`]:
      t(e20, 0.85, !saturated20),
    'I/O defaults: share 8 tasks ≥ 3× classic 8 tasks (HttpSink, geomean)': t(
      out.ratios.shareVsClassicIo8xDefaults ?? null,
      3,
    ),
    'I/O defaults: share put size within 2× of classic under backlog (8 tasks, lowest)': t(
      minOf(putSize),
      0.5,
    ),
    'I/O defaults: 5 ms share efficiency ≥ the Java share peer’s (lowest over fills, share ÷ Java)': t(
      minOf(shareEff5.map((s, i) => ratio(s, javaEff[i]))),
      1,
    ),
  };
  return out;
}

// ------------------------------------------------------------------------------------------ report

const num = (v: number | null | undefined, digits = 0): string =>
  v === null || v === undefined || !Number.isFinite(v)
    ? '–'
    : v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function renderIo(io: IoResults): string[] {
  const out: string[] = [];
  out.push('');
  out.push('## 7. I/O-bound sink, default settings (2 partitions)');
  out.push('');
  out.push(
    'Connector files hold only `connector.class`, `topics`, `tasks.max`, the converters (JsonConverter without schemas), ' +
      'the sink’s URL or connection and `consumer.override.group.protocol`: pool, inflight and poll settings at their defaults. ' +
      `Window: ${io.plan.windowMs} ms after ${io.plan.warmupMs} ms from the first record acknowledged. ` +
      'Records per put: inside the window (recordsPut / puts). CPU: the sharesink process / the whole machine over the window; ' +
      `saturated at ≥ ${SATURATED_FRACTION * os.cpus().length} busy cores.`,
  );
  out.push('');
  out.push('| fill | producer batches (avg records) |');
  out.push('|---|---|');
  for (const f of io.fills)
    out.push(
      `| ${f.fill} | ${num(f.producerBatches)} (${num(f.avgRecordsPerProducerBatch, 1)}) — ${f.batchCheck} |`,
    );
  out.push('');
  out.push(
    '| sink | fill | mode | tasks | records/s | records/put | ms/put | process CPU | machine CPU | saturated | HTTP requests (max at once) |',
  );
  out.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of io.rows)
    out.push(
      `| ${sinkName(r.sink)} | ${r.fill} | ${r.mode} | ${r.tasks} | ${num(r.recordsPerSec)}${r.ranDry ? ' (ran dry)' : ''} | ` +
        `${num(r.avgRecordsPerPut, 1)} | ${num(r.avgPutMs, 1)} | ${num(r.processCpuCores, 2)} | ${num(r.machineBusyCores, 2)} | ` +
        `${r.cpuSaturated === undefined ? '–' : r.cpuSaturated ? 'yes' : 'no'} | ` +
        `${r.httpRequests === undefined ? '–' : `${num(r.httpRequests)} (${num(r.httpMaxConcurrent)})`} |`,
    );
  const starts = [...new Set(io.rows.map((r) => r.startPositionLine).filter((l): l is string => !!l))];
  if (starts.length > 0) {
    out.push('');
    out.push(
      `Share start position (first run's line): ${starts[0]!.replace(/connect-io-[^ ]+/, 'connect-…')}`,
    );
  }
  for (const n of io.notes) out.push(`- ${n}`);
  return out;
}
