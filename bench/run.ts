/**
 * `npm run bench` (short, < 10 min on 2 cores) and `npm run bench -- --full`: sharesink and the Java
 * reference tools against the same topics on the same broker, in one invocation. Writes
 * bench/results/<timestamp>.{json,md} and bench/results/latest.{json,md}. See bench/README.md.
 *
 * Options: --full, --only=1,2,3,4,5,6,7 (scenario numbers; 7 runs with --only or --full), --brokers=127.0.0.1:29092 (loopback only; a
 * broker is started there when none answers), --keep-broker, --profile (adds a --cpu-prof run of
 * share mode and summarizes it), --pg=postgres://…, --no-save (print only).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ChildResult, ChildSpec, WorkerRunSpec } from './child-protocol.js';
import { RESULT_PREFIX } from './child-protocol.js';
import {
  BENCH_DIR,
  createTopic,
  deleteTopics,
  ensureBroker,
  kafkaClient,
  KAFKA_VERSION,
  MEASURED_JVM_OPTS,
  percentile,
  portOpen,
  ratio,
  ROOT,
  round,
  runProcess,
  say,
  sleep,
  stopBroker,
  waitForQuiet,
  tail,
  topicRecordCount,
} from './common.js';
import {
  consumerPerformance,
  producerPerformance,
  shareConsumerPerformance,
  compileJavaPeer,
  shareLatencyBench,
  type ConsumeResult,
  type JavaLatencyResult,
  type ProduceResult,
} from './java-tools.js';
import { compileConnectPlugin, connectLatencyRun, type ConnectLatencyResult } from './connect-standalone.js';
import { pgRow } from './pg-rows.js';
import { ioRatios, runIoScenario, type IoResults } from './io-scenario.js';
import { summarizeProfiles, type ProfileSummary } from './profile.js';
import { renderMarkdown } from './report.js';

// ------------------------------------------------------------------------------------------ plan

interface Plan {
  readonly name: 'short' | 'full';
  /** Records per pre-filled topic, by record size. */
  readonly records: Readonly<Record<'100' | '1024', number>>;
  readonly partitions: readonly number[];
  readonly latency: {
    readonly sinkMs: readonly number[];
    readonly multipliers: readonly number[];
    readonly partitions: readonly number[];
    /** max.poll.records and (≈) records per producer batch: the put size of the latency scenario. */
    readonly maxPollRecords: number;
    readonly producerBatchBytes: number;
    readonly topicRecords: number;
    readonly warmupMs: number;
    readonly windowMs: number;
  };
  readonly pgRows: number;
  readonly e2e: {
    readonly seconds: number;
    readonly warmupSeconds: number;
    /** Fractions of the maximum rate to produce at; the first one is repeated plan.repeats times. */
    readonly fractions: readonly number[];
  };
  /** Total time the run may spend waiting for a quiet machine before measurements (see waitForQuiet). */
  readonly quietBudgetMs: number;
  /** Runs of each drain measurement behind a headline ratio (the best counts). */
  readonly repeats: number;
}

const SHORT: Plan = {
  name: 'short',
  records: { '100': 500_000, '1024': 150_000 },
  partitions: [1, 6],
  latency: {
    sinkMs: [5, 20],
    multipliers: [1, 2, 4, 8],
    partitions: [1],
    maxPollRecords: 50,
    producerBatchBytes: 5600,
    topicRecords: 400_000,
    warmupMs: 1500,
    windowMs: 3000,
  },
  pgRows: 50_000,
  e2e: { seconds: 8, warmupSeconds: 2, fractions: [0.5, 0.25] },
  quietBudgetMs: 45_000,
  repeats: 2,
};

const FULL: Plan = {
  name: 'full',
  records: { '100': 2_000_000, '1024': 500_000 },
  partitions: [1, 6],
  latency: {
    sinkMs: [5, 20],
    multipliers: [1, 2, 4, 8],
    partitions: [1, 6],
    maxPollRecords: 50,
    producerBatchBytes: 5600,
    topicRecords: 1_500_000,
    warmupMs: 2000,
    windowMs: 10_000,
  },
  pgRows: 200_000,
  e2e: { seconds: 30, warmupSeconds: 5, fractions: [0.5, 0.25] },
  quietBudgetMs: 600_000,
  repeats: 3,
};

/** A measurement starts once the whole machine is below this many busy cores (or the wait budget is spent). */
const QUIET_CORES = 0.5;

/**
 * ProducerPerformance settings for the pre-filled topics. A long linger makes every producer batch full
 * (16 KB) whatever the fill rate, so topics have the same layout from run to run: the share fetches'
 * batch_optimized acquisition and the put sizes follow the producer batches.
 */
const FILL_PROPS = { acks: '1', 'linger.ms': '50', 'batch.size': '16384' } as const;

function scalePlan(p: Plan, k: number): Plan {
  if (!(k > 0) || k === 1) return p;
  const c = (v: number) => Math.max(1000, Math.round(v * k));
  return {
    ...p,
    records: { '100': c(p.records['100']), '1024': c(p.records['1024']) },
    latency: {
      ...p.latency,
      topicRecords: c(p.latency.topicRecords),
      warmupMs: Math.max(500, Math.round(p.latency.warmupMs * k)),
      windowMs: Math.max(1000, Math.round(p.latency.windowMs * k)),
    },
    pgRows: c(p.pgRows),
    e2e: { ...p.e2e, seconds: Math.max(3, Math.round(p.e2e.seconds * k)), warmupSeconds: 1 },
  };
}

// ------------------------------------------------------------------------------------------ results

interface CeilingRow {
  readonly topic: string;
  readonly recordSize: number;
  readonly partitions: number;
  /** The best of the repeats. */
  result: ConsumeResult;
  /** records/s of every repeat. */
  readonly samples: number[];
}

interface SharesinkRow {
  readonly topic: string;
  readonly recordSize: number;
  readonly partitions: number;
  readonly mode: 'share' | 'classic';
  readonly tasks: number;
  /** The best of the repeats. */
  result: ChildResult;
  /** records/s of every repeat. */
  readonly samples: number[];
}

interface LatencyRow {
  readonly sinkMs: number;
  readonly partitions: number;
  /**
   * `java-share`: the Java peer (bench/java/ShareLatencyBench.java) with the same latency and batch;
   * `connect`: Kafka Connect standalone with bench/java/SleepSinkConnector (bench/connect-standalone.ts).
   */
  readonly mode: 'share' | 'classic' | 'java-share' | 'connect';
  readonly multiplier: number;
  readonly tasks: number;
  readonly via: string;
  readonly recordsPerSec: number;
  readonly avgRecordsPerPut: number | undefined;
  readonly cpuCores: number | undefined;
  readonly ranDry: boolean;
  readonly detail: ChildResult | JavaLatencyResult | ConnectLatencyResult;
}

interface E2eResult {
  readonly via: string;
  readonly mode: 'share' | 'classic' | 'java-share';
  /** Target rate as a fraction of the maximum rate (0.5 is the headline). */
  readonly fraction: number;
  readonly maxRateBasis: string;
  readonly maxRecordsPerSec: number;
  readonly targetRecordsPerSec: number;
  readonly producedRecordsPerSec: number;
  readonly samples: number;
  readonly produced: number;
  readonly seen: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly processCpuCores: number | undefined;
  readonly processPeakRssMb: number | undefined;
  /** The producer's own send latency in the same run: when it is high, the broker was slow for everyone. */
  readonly producerP50Ms: number | undefined;
  readonly producerP99Ms: number | undefined;
  /** p99 of every repeat (the run with the lowest p99 is the one reported). */
  p99Samples: number[];
  readonly summary: unknown;
}

interface PostgresResult {
  /** PostgresSink, 1 task, pool.threads at its default (one connection per thread). */
  sharesink?: ChildResult;
  /** PostgresSink, 1 task, pool.threads=1: one connection, as the bare loop. */
  sharesinkOneThread?: ChildResult;
  bare?: ChildResult;
  batchSize?: number;
  rowsInTable?: number;
  /** Rows/s of every repeat (steady for sharesink); the fields above hold the best of each side. */
  samples?: { sharesink: number[]; sharesinkOneThread: number[]; bare: number[] };
}

export interface BenchResults {
  readonly schema: 1;
  readonly startedAt: string;
  finishedAt: string;
  durationS: number;
  readonly mode: 'short' | 'full';
  /** 1 unless --scale shrank or grew the counts (results at another scale are not comparable). */
  readonly scale: number;
  readonly command: string;
  readonly versions: Record<string, unknown>;
  readonly machine: Record<string, unknown>;
  readonly configs: Record<string, unknown>;
  readonly fills: Array<
    { topic: string; recordSize: number; partitions: number; records: number } & ProduceResult
  >;
  readonly scenarios: {
    ceiling: CeilingRow[];
    noop: SharesinkRow[];
    latency: LatencyRow[];
    postgres: PostgresResult | undefined;
    runtimeCost: Array<{ topic: string; mode: string; tasks: number; via: string } & Record<string, unknown>>;
    e2e: E2eResult[];
    /** Scenario 7, I/O-bound sinks with default settings (bench/io-scenario.ts). */
    io?: IoResults | undefined;
  };
  ratios: Record<string, number | null>;
  ratiosDetail: Record<string, Array<Record<string, unknown>>>;
  targets: Record<string, { value: number | null; target: number; met: boolean | null }>;
  profile: ProfileSummary | undefined;
  readonly notes: string[];
  readonly errors: Array<{ step: string; message: string }>;
  /** Machine CPU busy (cores, over 0.5 s) just before each measurement, after waiting for quiet. */
  readonly quiet: Array<{ step: string; busyCores: number | undefined; waitedMs: number }>;
  loadAverage: { start: number[]; end: number[] };
}

// ------------------------------------------------------------------------------------------ helpers

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

function javaVersion(): string {
  const r = spawnSync('java', ['-version'], { encoding: 'utf8' });
  return `${r.stderr ?? ''}${r.stdout ?? ''}`.split('\n')[0]?.trim() || 'unknown';
}

function stamp(d: Date): string {
  return d.toISOString().replace(/[:]/g, '-').replace(/\..+$/, 'Z');
}

/** Runs bench/child.ts with `spec` and returns its result line. */
async function runChild(spec: ChildSpec, nodeFlags: readonly string[] = []): Promise<ChildResult> {
  const r = await runProcess(
    process.execPath,
    [...nodeFlags, '--import', 'tsx', path.join(BENCH_DIR, 'child.ts'), JSON.stringify(spec)],
    { timeoutMs: spec.timeoutMs + 60_000 },
  );
  const line = r.stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
  if (r.code !== 0 || !line) {
    const why = r.timedOut ? 'timed out' : `exited ${r.code}`;
    throw new Error(`${spec.label} ${why}:\n${tail(r.stderr, 15)}`);
  }
  return JSON.parse(line.slice(RESULT_PREFIX.length)) as ChildResult;
}

function geomean(values: readonly number[]): number | null {
  const ok = values.filter((v) => Number.isFinite(v) && v > 0);
  if (ok.length === 0) return null;
  return round(Math.exp(ok.reduce((s, v) => s + Math.log(v), 0) / ok.length), 3);
}

// ------------------------------------------------------------------------------------------ main

async function main(): Promise<void> {
  const { values: opts } = parseArgs({
    options: {
      full: { type: 'boolean', default: false },
      only: { type: 'string' },
      brokers: { type: 'string', default: process.env.SHARESINK_BENCH_BROKERS ?? '127.0.0.1:29092' },
      'keep-broker': { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      pg: {
        type: 'string',
        default: process.env.SHARESINK_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
      },
      'no-save': { type: 'boolean', default: false },
      /** Scenario 6: the maximum rate to take 50% of, instead of the one measured in scenario 2. */
      'e2e-max-rate': { type: 'string' },
      /** Multiplies record counts and windows (e.g. 0.1 for a smoke test of the harness itself). */
      scale: { type: 'string', default: '1' },
    },
    allowPositionals: false,
  });
  const plan = scalePlan(opts.full ? FULL : SHORT, Number(opts.scale));
  const only = new Set(
    (opts.only ?? (opts.full ? '1,2,3,4,5,6,7' : '1,2,3,4,5,6')).split(',').map((s) => Number(s.trim())),
  );
  const wants = (n: number) => only.has(n);
  const started = new Date();
  const runId = Date.now().toString(36);
  const brokers = opts.brokers;
  const pgUrl = opts.pg;
  const pgHost = new URL(pgUrl).hostname;
  if (!['127.0.0.1', 'localhost', '::1'].includes(pgHost)) throw new Error('PostgreSQL must be on loopback');

  const results: BenchResults = {
    schema: 1,
    startedAt: started.toISOString(),
    finishedAt: '',
    durationS: 0,
    mode: plan.name,
    scale: Number(opts.scale),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    versions: {
      node: process.version,
      kafka: KAFKA_VERSION,
      java: javaVersion(),
      sharesink: {
        version: (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string })
          .version,
        gitSha: git(['rev-parse', 'HEAD']),
        /** Uncommitted changes under src/ at the time of the run (the runtime measured includes them). */
        dirtySrc: git(['status', '--porcelain', '--', 'src'])
          .split('\n')
          .filter(Boolean)
          .map((l) => l.slice(3)),
      },
    },
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGb: round(os.totalmem() / 1024 ** 3, 1),
      platform: `${os.platform()} ${os.release()}`,
    },
    configs: {
      plan,
      brokers,
      fillProducerProps: FILL_PROPS,
      javaToolJvmOpts: MEASURED_JVM_OPTS,
      sharesink: {
        converters: 'ByteArrayConverter (key and value), except JsonConverter for PostgresSink values',
        'pool.threads':
          'default (os.availableParallelism()) in scenarios 2 and 5; = tasks in scenario 3; 1 in 4',
        'consumer.override.max.poll.records': '500 in scenarios 2 and 5',
        measuredFrom:
          'drains: Worker.start() (pool threads, join, assignment included) to the last record put; Java tools: subscribe to the last record polled. Windows: records acknowledged per second',
      },
    },
    fills: [],
    scenarios: { ceiling: [], noop: [], latency: [], postgres: undefined, runtimeCost: [], e2e: [] },
    ratios: {},
    ratiosDetail: {},
    targets: {},
    profile: undefined,
    notes: [],
    errors: [],
    quiet: [],
    loadAverage: { start: os.loadavg().map((v) => round(v, 2)), end: [] },
  };
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> => {
    const t = performance.now();
    say(`[bench] ${name} …`);
    try {
      const v = await fn();
      say(`[bench] ${name}: ${round((performance.now() - t) / 1000, 1)} s`);
      return v;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      say(`[bench] ${name} FAILED: ${message.split('\n')[0]}`);
      results.errors.push({ step: name, message: message.slice(0, 2000) });
      return undefined;
    }
  };

  let quietLeftMs = plan.quietBudgetMs;
  /** A step that measures: first wait (within the run's budget) for the machine to be quiet. */
  const measured = <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> =>
    step(name, async () => {
      const q = await waitForQuiet(Math.min(15_000, quietLeftMs), QUIET_CORES);
      quietLeftMs = Math.max(0, quietLeftMs - q.waitedMs);
      results.quiet.push({ step: name, ...q });
      return fn();
    });

  const broker = await ensureBroker(brokers);
  const createdTopics: string[] = [];
  let javaPeer: string | undefined;
  if (wants(3) || wants(6) || wants(7)) {
    javaPeer = await step('compile the Java share-consumer peer', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'sharesink-bench-java-'));
      await compileJavaPeer(dir);
      return dir;
    });
  }
  const topicName = (what: string) => `bench-${runId}-${what}`;
  try {
    // -------------------------------------------------------------- pre-fill (scenarios 1, 2, 5)
    const drainTopics: Array<{ topic: string; recordSize: number; partitions: number; records: number }> = [];
    if (wants(1) || wants(2) || wants(5) || opts.profile) {
      for (const recordSize of [100, 1024] as const) {
        for (const partitions of plan.partitions) {
          const topic = topicName(`${recordSize}b-p${partitions}`);
          const records = plan.records[String(recordSize) as '100' | '1024'];
          const filled = await step(`fill ${topic} (${records} × ${recordSize} B)`, async () => {
            await createTopic(brokers, topic, partitions);
            createdTopics.push(topic);
            const r = await producerPerformance({ brokers, topic, records, recordSize, props: FILL_PROPS });
            const held = await topicRecordCount(brokers, topic);
            if (held !== records) throw new Error(`${topic} holds ${held} records, not ${records}`);
            return r;
          });
          if (filled) {
            results.fills.push({ topic, recordSize, partitions, ...filled, records });
            drainTopics.push({ topic, recordSize, partitions, records });
          }
        }
      }
    }

    // -------------------------------------------------------------- scenarios 1 + 2, per topic
    const noopSpec = (
      t: (typeof drainTopics)[number],
      mode: 'share' | 'classic',
      tasks: number,
      label: string,
    ): WorkerRunSpec => ({
      kind: 'worker',
      label,
      brokers,
      topic: t.topic,
      topicRecords: t.records,
      mode,
      tasks,
      poolThreads: os.availableParallelism(),
      connectorClass: 'NoopSink',
      connectorProps: { 'consumer.override.max.poll.records': '500' },
      fallbackMaxPollRecords: 500,
      measure: { kind: 'drain', records: t.records },
      timeoutMs: 240_000,
    });
    if (wants(1) || wants(2) || wants(5)) {
      /** Keeps the best of the repeats (best-of-N: the run least disturbed by everything else). */
      const keepBest = <R extends { recordsPerSec: number }>(
        rows: Array<{ topic: string; result: R; samples: number[] }>,
        find: (row: { topic: string; result: R }) => boolean,
        make: () => { topic: string; result: R; samples: number[] },
        r: R | undefined,
      ): void => {
        if (!r) return;
        const row = rows.find(find);
        if (!row) {
          const fresh = make();
          fresh.samples.push(round(r.recordsPerSec));
          rows.push(fresh);
          return;
        }
        row.samples.push(round(r.recordsPerSec));
        if (r.recordsPerSec > row.result.recordsPerSec) row.result = r;
      };
      for (const t of drainTopics) {
        const counts = [...new Set([1, t.partitions])];
        const javaClassic = async (rep: number) => {
          if (!wants(1)) return;
          const c = await measured(`ConsumerPerformance ${t.topic} #${rep + 1}`, () =>
            consumerPerformance({
              brokers,
              topic: t.topic,
              group: `jc-${rep}-${t.topic}`,
              records: t.records,
            }),
          );
          keepBest(
            results.scenarios.ceiling,
            (e) => e.topic === t.topic && e.result.tool === 'ConsumerPerformance',
            () => ({ ...t, result: c!, samples: [] }),
            c,
          );
        };
        const javaShare = async (rep: number, threads: number) => {
          if (!wants(1)) return;
          const s = await measured(`ShareConsumerPerformance ${t.topic} threads=${threads} #${rep + 1}`, () =>
            shareConsumerPerformance({
              brokers,
              topic: t.topic,
              group: `js-${threads}-${rep}-${t.topic}`,
              records: t.records,
              threads,
            }),
          );
          keepBest(
            results.scenarios.ceiling,
            (e) =>
              e.topic === t.topic &&
              e.result.tool === 'ShareConsumerPerformance' &&
              e.result.consumers === threads,
            () => ({ ...t, result: s!, samples: [] }),
            s,
          );
        };
        const ours = async (rep: number, mode: 'share' | 'classic', tasks: number) => {
          if (!(wants(2) || wants(5))) return;
          const label = `noop-${mode}-t${tasks}-${t.recordSize}b-p${t.partitions}-${rep}`;
          const r = await measured(`sharesink ${mode} tasks=${tasks} ${t.topic} #${rep + 1}`, () =>
            runChild(noopSpec(t, mode, tasks, label)),
          );
          keepBest(
            results.scenarios.noop,
            (e) =>
              e.topic === t.topic && (e as SharesinkRow).mode === mode && (e as SharesinkRow).tasks === tasks,
            () => ({ ...t, mode, tasks, result: r!, samples: [] }),
            r,
          );
        };
        // the pairs behind the headline ratios run plan.repeats times, in alternating order
        for (let rep = 0; rep < plan.repeats; rep++) {
          const java = async () => {
            await javaClassic(rep);
            for (const c of counts) await javaShare(rep, c);
          };
          const sharesink = async () => {
            for (const c of counts) await ours(rep, 'share', c);
            await ours(rep, 'classic', 1);
          };
          if (rep % 2 === 0) {
            await java();
            await sharesink();
          } else {
            await sharesink();
            await java();
          }
        }
        for (const c of counts) if (c !== 1) await ours(0, 'classic', c);
      }
    }

    // -------------------------------------------------------------- scenario 5: runtime cost at batch 500
    if (wants(5)) {
      for (const row of results.scenarios.noop.filter((r) => r.tasks === 1 && r.recordSize === 100)) {
        const r = row.result;
        results.scenarios.runtimeCost.push({
          topic: row.topic,
          partitions: row.partitions,
          mode: row.mode,
          tasks: row.tasks,
          via: r.via,
          avgRecordsPerPut: r.avgRecordsPerPut === undefined ? null : round(r.avgRecordsPerPut, 1),
          cpuUsPerRecord: round(r.cpuUsPerRecord, 2),
          cpuCores: round(r.cpuCores, 2),
          steadyRecordsPerSec: r.steadyRecordsPerSec === undefined ? null : round(r.steadyRecordsPerSec),
          peakRssMb: round(r.peakRssMb, 1),
          rssAfterStartMb: r.rssAfterStartMb === undefined ? null : round(r.rssAfterStartMb, 1),
        });
      }
    }

    // -------------------------------------------------------------- scenario 3: latency sinks, scaling
    if (wants(3)) {
      const L = plan.latency;
      // the classic anchor: Kafka Connect standalone running our SleepSinkConnector (bench/java)
      const connectPlugin = await step('resolve Kafka Connect and compile SleepSinkConnector', async () => {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'sharesink-bench-connect-plugin-'));
        await compileConnectPlugin(dir);
        return dir;
      });
      for (const partitions of L.partitions) {
        const topic = topicName(`lat-p${partitions}`);
        const filled = await step(
          `fill ${topic} (${L.topicRecords} × 100 B, batch.size ${L.producerBatchBytes})`,
          async () => {
            await createTopic(brokers, topic, partitions);
            createdTopics.push(topic);
            return producerPerformance({
              brokers,
              topic,
              records: L.topicRecords,
              recordSize: 100,
              props: { ...FILL_PROPS, 'batch.size': String(L.producerBatchBytes) },
            });
          },
        );
        if (!filled) continue;
        results.fills.push({ topic, recordSize: 100, partitions, ...filled, records: L.topicRecords });
        const maxMult = Math.max(...L.multipliers);
        for (const sinkMs of L.sinkMs) {
          const runs: Array<{ mode: LatencyRow['mode']; multiplier: number }> = [
            ...L.multipliers.map((multiplier) => ({ mode: 'share' as const, multiplier })),
            { mode: 'classic', multiplier: 1 },
            { mode: 'classic', multiplier: maxMult },
            ...(javaPeer
              ? L.multipliers.map((multiplier) => ({ mode: 'java-share' as const, multiplier }))
              : []),
            ...(connectPlugin
              ? [1, maxMult].map((multiplier) => ({ mode: 'connect' as const, multiplier }))
              : []),
          ];
          for (const { mode, multiplier } of runs) {
            const tasks = multiplier * partitions;
            const label = `lat${sinkMs}-${mode}-x${multiplier}-p${partitions}`;
            const row = await measured(`${mode} latency ${sinkMs} ms tasks=${tasks} ${topic}`, async () => {
              if (mode === 'java-share') {
                const j = await shareLatencyBench({
                  classesDir: javaPeer!,
                  brokers,
                  topic,
                  group: `${label}-${Date.now().toString(36)}`,
                  threads: tasks,
                  latencyMs: sinkMs,
                  maxPollRecords: L.maxPollRecords,
                  warmupMs: L.warmupMs,
                  windowMs: L.windowMs,
                });
                return {
                  via: 'Java KafkaShareConsumer threads (bench/java/ShareLatencyBench.java)',
                  recordsPerSec: j.recordsPerSec,
                  avgRecordsPerPut: j.polls > 0 ? j.records / j.polls : undefined,
                  cpuCores: undefined,
                  ranDry: false,
                  detail: j,
                };
              }
              if (mode === 'connect') {
                const c = await connectLatencyRun({
                  classesDir: connectPlugin!,
                  brokers,
                  topic,
                  name: `${label}-${Date.now().toString(36)}`,
                  tasks,
                  partitions,
                  latencyMs: sinkMs,
                  maxPollRecords: L.maxPollRecords,
                  maxPartitionFetchBytes: L.producerBatchBytes,
                  topicRecords: L.topicRecords,
                  warmupMs: L.warmupMs,
                  windowMs: L.windowMs,
                });
                return {
                  via: 'Kafka Connect standalone, SleepSinkConnector (bench/java)',
                  recordsPerSec: c.recordsPerSec,
                  avgRecordsPerPut: c.puts > 0 ? c.records / c.puts : undefined,
                  cpuCores: c.cpuCores,
                  ranDry: c.ranDry,
                  detail: c,
                };
              }
              const r = await runChild({
                kind: 'worker',
                label,
                brokers,
                topic,
                topicRecords: L.topicRecords,
                mode,
                tasks,
                poolThreads: tasks,
                connectorClass: 'NoopSink',
                connectorProps: {
                  'latency.ms': String(sinkMs),
                  'max.inflight.batches': '1',
                  'consumer.override.max.poll.records': String(L.maxPollRecords),
                  'consumer.override.max.partition.fetch.bytes': String(L.producerBatchBytes),
                },
                fallbackLatencyMs: sinkMs,
                fallbackMaxPollRecords: L.maxPollRecords,
                measure: { kind: 'window', warmupMs: L.warmupMs, windowMs: L.windowMs },
                timeoutMs: 120_000,
              });
              return {
                via: r.via,
                recordsPerSec: r.recordsPerSec,
                avgRecordsPerPut: r.avgRecordsPerPut,
                cpuCores: r.cpuCores,
                ranDry: r.ranDry,
                detail: r,
              };
            });
            if (row) results.scenarios.latency.push({ sinkMs, partitions, mode, multiplier, tasks, ...row });
          }
        }
      }
      if (connectPlugin) rmSync(connectPlugin, { recursive: true, force: true });
    }

    // -------------------------------------------------------------- scenario 4: PostgreSQL
    if (wants(4)) {
      await measured('PostgreSQL sink vs bare pg loop', async () => {
        const { host, port } = { host: pgHost, port: Number(new URL(pgUrl).port || 5432) };
        if (!(await portOpen(host, port))) throw new Error(`PostgreSQL is not reachable at ${host}:${port}`);
        const topic = topicName('pg');
        await createTopic(brokers, topic, 1);
        createdTopics.push(topic);
        const producer = kafkaClient(brokers).producer();
        await producer.connect();
        for (let start = 0; start < plan.pgRows; start += 500) {
          const messages = [];
          for (let i = start; i < Math.min(plan.pgRows, start + 500); i++)
            messages.push({ value: JSON.stringify(pgRow(i)) });
          await producer.send({ topic, acks: 1, messages });
        }
        await producer.disconnect();
        const table = `bench_pg_${runId}`;
        const pgResult: NonNullable<BenchResults['scenarios']['postgres']> = {};
        results.scenarios.postgres = pgResult;
        const pgSpec = (poolThreads: number, table: string): WorkerRunSpec => ({
          kind: 'worker',
          label: `pg-share-t1-threads${poolThreads}`,
          brokers,
          topic,
          topicRecords: plan.pgRows,
          mode: 'share',
          tasks: 1,
          poolThreads,
          connectorClass: 'PostgresSink',
          connectorProps: {
            'connection.url': pgUrl,
            table,
            'insert.mode': 'insert',
            'auto.create': 'true',
            'consumer.override.max.poll.records': '500',
          },
          workerProps: {
            'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
            'value.converter.schemas.enable': 'false',
          },
          measure: { kind: 'drain', records: plan.pgRows },
          timeoutMs: 300_000,
        });
        // Best of plan.repeats in alternating order, as for the other headline ratios: a single ~1 s
        // drain per side is at the mercy of whatever else the two cores run at that moment. Each
        // repeat: the product default (one connection per pool thread), one thread = one connection
        // as the bare loop, and the bare loop (a copy of the first sink table's definition).
        const rate = (r: ChildResult) => r.steadyRecordsPerSec ?? r.recordsPerSec;
        const samples = {
          sharesink: [] as number[],
          sharesinkOneThread: [] as number[],
          bare: [] as number[],
        };
        pgResult.samples = samples;
        const keep = (side: keyof typeof samples, r: ChildResult) => {
          samples[side].push(round(rate(r)));
          const best = pgResult[side];
          if (best === undefined || rate(r) > rate(best)) pgResult[side] = r;
        };
        const tables: string[] = [];
        for (let rep = 0; rep < plan.repeats; rep++) {
          const t = rep === 0 ? table : `${table}_r${rep}`;
          tables.push(t, `${t}_1t`);
          const steps = [
            async () => keep('sharesink', await runChild(pgSpec(os.availableParallelism(), t))),
            async () => keep('sharesinkOneThread', await runChild(pgSpec(1, `${t}_1t`))),
            async () => {
              pgResult.batchSize ??= Math.max(1, Math.round(pgResult.sharesink?.avgRecordsPerPut ?? 500));
              keep(
                'bare',
                await runChild({
                  kind: 'pg-bare',
                  label: 'pg-bare',
                  pgUrl,
                  likeTable: table,
                  table: `${table}_bare`,
                  rows: plan.pgRows,
                  batchSize: pgResult.batchSize,
                  timeoutMs: 300_000,
                }),
              );
            },
          ];
          for (const step of rep % 2 === 0 ? steps : steps.reverse()) await step();
        }
        const { default: pg } = await import('pg');
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        try {
          const n = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}"`);
          pgResult.rowsInTable = Number(n.rows[0]?.n ?? 0);
          for (const t of tables) await client.query(`DROP TABLE IF EXISTS "${t}"`);
        } finally {
          await client.end();
        }
      });
    }

    // -------------------------------------------------------------- scenario 6: end-to-end latency (CLI)
    if (wants(6)) {
      const basisRow = results.scenarios.noop.find(
        (r) => r.mode === 'share' && r.tasks === 1 && r.recordSize === 100 && r.partitions === 1,
      );
      // the slower of the two clients sets the pace: at half of the faster one's drain rate the other
      // may already be saturated, and then both tails measure a backlog rather than latency
      const javaRow = results.scenarios.ceiling.find(
        (c) =>
          c.topic === basisRow?.topic &&
          c.result.tool === 'ShareConsumerPerformance' &&
          c.result.consumers === 1,
      );
      const given = opts['e2e-max-rate'] === undefined ? undefined : Number(opts['e2e-max-rate']);
      const drained = [basisRow?.result.recordsPerSec, javaRow?.result.recordsPerSec].filter(
        (v): v is number => v !== undefined && v > 0,
      );
      const maxRate = given ?? (drained.length > 0 ? Math.min(...drained) : 20_000);
      const basis =
        given !== undefined
          ? `given on the command line (--e2e-max-rate=${given})`
          : drained.length > 0
            ? `the lower drain rate, 100 B × 1 partition, 1 consumer, in this run, of sharesink share mode ` +
              `(${basisRow ? round(basisRow.result.recordsPerSec) : '–'}/s) and ShareConsumerPerformance ` +
              `(${javaRow ? round(javaRow.result.recordsPerSec) : '–'}/s): ${round(maxRate)}/s`
            : 'no drain measured in this run (scenario 2 skipped): assumed 20000/s';
      const keepLowest = (e: E2eResult | undefined) => {
        if (!e) return;
        const rows = results.scenarios.e2e;
        const i = rows.findIndex((x) => x.mode === e.mode && x.fraction === e.fraction);
        if (i < 0) {
          e.p99Samples.push(e.p99Ms);
          rows.push(e);
          return;
        }
        rows[i]!.p99Samples.push(e.p99Ms);
        if (e.p99Ms < rows[i]!.p99Ms) rows[i] = { ...e, p99Samples: rows[i]!.p99Samples };
      };
      const ours = async (rep: number, fraction: number) =>
        keepLowest(
          await measured(`end-to-end latency at ${fraction * 100}% (share, CLI standalone) #${rep + 1}`, () =>
            endToEnd({
              brokers,
              plan,
              fraction,
              mode: 'share',
              topic: topicName(`e2e-share-${fraction * 100}-${rep}`),
              createdTopics,
              maxRate,
              basis,
            }),
          ),
        );
      const java = async (rep: number, fraction: number) => {
        if (!javaPeer) return;
        keepLowest(
          await measured(
            `end-to-end latency at ${fraction * 100}% (Java KafkaShareConsumer) #${rep + 1}`,
            () =>
              javaEndToEnd({
                brokers,
                plan,
                fraction,
                classesDir: javaPeer!,
                topic: topicName(`e2e-java-${fraction * 100}-${rep}`),
                createdTopics,
                maxRate,
                basis,
              }),
          ),
        );
      };
      for (const [f, fraction] of plan.e2e.fractions.entries()) {
        const repeats = f === 0 ? plan.repeats : 1;
        for (let rep = 0; rep < repeats; rep++) {
          if (rep % 2 === 0) {
            await ours(rep, fraction);
            await java(rep, fraction);
          } else {
            await java(rep, fraction);
            await ours(rep, fraction);
          }
        }
      }
    }

    // -------------------------------------------------------------- scenario 7: I/O-bound sinks, defaults
    if (wants(7)) {
      const io = { brokers, pgUrl, full: opts.full, scale: Number(opts.scale), topicName, createdTopics };
      results.scenarios.io = await step('I/O-bound sinks with default settings', () =>
        runIoScenario({ ...io, measured, step, runChild: (spec) => runChild(spec), javaPeer, runId }),
      );
    }

    // -------------------------------------------------------------- profile
    if (opts.profile) {
      await measured('profile (share mode, main thread, steady part)', async () => {
        const t = drainTopics.find(
          (d) => d.recordSize === 100 && d.partitions === Math.max(...plan.partitions),
        );
        if (!t) throw new Error('no 100 B topic to profile on (scenario 2 topics were not filled)');
        const dir = mkdtempSync(path.join(os.tmpdir(), 'sharesink-prof-'));
        try {
          const r = await runChild({ ...noopSpec(t, 'share', 1, 'profile-share-t1'), profileDir: dir });
          results.profile = {
            ...summarizeProfiles(dir, 25),
            run: `${r.label}: ${t.records} records of 100 B, ${t.partitions} partitions`,
            recordsPerSec: round(r.steadyRecordsPerSec ?? r.recordsPerSec),
          };
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  } finally {
    await step('delete topics', () => deleteTopics(brokers, createdTopics));
    if (!opts['keep-broker']) stopBroker(broker);
  }

  computeRatios(results, plan);
  results.loadAverage.end = os.loadavg().map((v) => round(v, 2));
  results.finishedAt = new Date().toISOString();
  results.durationS = round((Date.now() - started.getTime()) / 1000, 1);
  const md = renderMarkdown(results);
  if (!opts['no-save']) {
    const dir = path.join(BENCH_DIR, 'results');
    mkdirSync(dir, { recursive: true });
    const base = stamp(started);
    const json = `${JSON.stringify(results, null, 2)}\n`;
    writeFileSync(path.join(dir, `${base}.json`), json);
    writeFileSync(path.join(dir, `${base}.md`), md);
    writeFileSync(path.join(dir, 'latest.json'), json);
    writeFileSync(path.join(dir, 'latest.md'), md);
    say(`[bench] wrote bench/results/${base}.{json,md} and latest.{json,md}`);
  }
  say('');
  say(md);
  process.exit(results.errors.length > 0 ? 1 : 0);
}

// ------------------------------------------------------------------------------------------ scenario 6

async function endToEnd(o: {
  brokers: string;
  plan: Plan;
  fraction: number;
  mode: 'share' | 'classic';
  topic: string;
  createdTopics: string[];
  maxRate: number;
  basis: string;
}): Promise<E2eResult> {
  const { brokers, plan, topic } = o;
  await createTopic(brokers, topic, 1);
  o.createdTopics.push(topic);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sharesink-e2e-'));
  const samplesDir = path.join(dir, 'samples');
  const group = `e2e-${o.mode}-${Date.now().toString(36)}`;
  writeFileSync(
    path.join(dir, 'worker.properties'),
    [
      `bootstrap.servers=${brokers}`,
      'key.converter=org.apache.kafka.connect.converters.ByteArrayConverter',
      'value.converter=org.apache.kafka.connect.converters.ByteArrayConverter',
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(dir, 'connector.properties'),
    [
      `name=${group}`,
      `connector.class=${path.join(BENCH_DIR, 'latency-sink.ts')}`,
      `topics=${topic}`,
      'tasks.max=1',
      `consumer.override.group.protocol=${o.mode}`,
      `consumer.override.group.id=${group}`,
      o.mode === 'share'
        ? 'share.group.share.auto.offset.reset=earliest'
        : 'consumer.override.auto.offset.reset=earliest',
      `latency.dir=${samplesDir}`,
      '',
    ].join('\n'),
  );
  const summaryFile = path.join(dir, 'summary.json');
  const cli = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(ROOT, 'src/cli/bin.ts'),
      'standalone',
      path.join(dir, 'worker.properties'),
      path.join(dir, 'connector.properties'),
      '--summary-file',
      summaryFile,
      '--log-level',
      'info',
      '--no-progress',
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  let exited = false;
  const exitedP = new Promise<number | null>((resolve) =>
    cli.on('exit', (code) => {
      exited = true;
      resolve(code);
    }),
  );
  cli.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    if (stderr.length > 400_000) stderr = stderr.slice(-200_000);
  });
  const kill = () => {
    if (!exited) cli.kill('SIGKILL');
  };
  try {
    const deadline = Date.now() + 60_000;
    while (!stderr.includes('connector started')) {
      if (exited) throw new Error(`sharesink standalone exited early:\n${tail(stderr, 10)}`);
      if (Date.now() > deadline) throw new Error(`sharesink standalone did not start:\n${tail(stderr, 10)}`);
      await sleep(100);
    }
    // the share assignment follows the join in a heartbeat (1 s on this broker)
    await sleep(1500);
    const target = Math.max(1000, Math.round(o.maxRate * o.fraction));
    const produced = target * plan.e2e.seconds;
    const cpuBefore = procCpuSeconds(cli.pid!);
    const t0 = Date.now();
    const prod = await producerPerformance({
      brokers,
      topic,
      records: produced,
      recordSize: 100,
      throughput: target,
      props: { acks: '1' },
      timeoutMs: plan.e2e.seconds * 1000 * 3 + 60_000,
    });
    // wait (bounded) for the sink to have seen (almost) everything, then stop the CLI gracefully
    const waitUntil = Date.now() + 20_000;
    while (Date.now() < waitUntil && countSamples(samplesDir) < produced * 0.99) await sleep(250);
    await sleep(1000);
    const cpuAfter = procCpuSeconds(cli.pid!);
    const wallS = (Date.now() - t0) / 1000;
    const peakRss = procPeakRssMb(cli.pid!);
    cli.kill('SIGTERM');
    const code = await Promise.race([exitedP, sleep(30_000).then(() => 'timeout' as const)]);
    if (code === 'timeout') throw new Error('sharesink standalone did not stop within 30 s of SIGTERM');
    const samples = readSamples(samplesDir);
    // the window starts warmupSeconds after the first record put, as the Java peer's starts warmupMs after its
    // first record polled: counting from the producer's launch instead kept the producer's and the
    // runtime's start-up (hundreds of ms of backlog) in sharesink's tail only
    let firstPut = Number.POSITIVE_INFINITY;
    for (const s of samples) firstPut = Math.min(firstPut, s.createTime + s.latency);
    const cut = firstPut + plan.e2e.warmupSeconds * 1000;
    const lat = samples.filter((s) => s.createTime >= cut).map((s) => s.latency);
    lat.sort((a, b) => a - b);
    let summary: unknown;
    try {
      summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
    } catch {
      summary = undefined;
    }
    return {
      via: 'sharesink standalone (CLI), latency sink module',
      mode: o.mode,
      fraction: o.fraction,
      maxRateBasis: o.basis,
      maxRecordsPerSec: round(o.maxRate),
      targetRecordsPerSec: target,
      producedRecordsPerSec: round(prod.recordsPerSec),
      samples: lat.length,
      produced,
      seen: samples.length,
      p50Ms: percentile(lat, 50),
      p90Ms: percentile(lat, 90),
      p99Ms: percentile(lat, 99),
      maxMs: lat[lat.length - 1] ?? NaN,
      processCpuCores:
        cpuBefore !== undefined && cpuAfter !== undefined
          ? round((cpuAfter - cpuBefore) / wallS, 2)
          : undefined,
      processPeakRssMb: peakRss,
      producerP50Ms: prod.p50Ms,
      producerP99Ms: prod.p99Ms,
      p99Samples: [],
      summary,
    };
  } finally {
    kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same measurement for the Java share consumer (1 thread, polls of up to 500, latency at poll). */
async function javaEndToEnd(o: {
  brokers: string;
  plan: Plan;
  fraction: number;
  classesDir: string;
  topic: string;
  createdTopics: string[];
  maxRate: number;
  basis: string;
}): Promise<E2eResult> {
  const { brokers, plan, topic } = o;
  await createTopic(brokers, topic, 1);
  o.createdTopics.push(topic);
  const target = Math.max(1000, Math.round(o.maxRate * o.fraction));
  const produced = target * plan.e2e.seconds;
  const consumer = shareLatencyBench({
    classesDir: o.classesDir,
    brokers,
    topic,
    group: `e2e-java-${Date.now().toString(36)}`,
    threads: 1,
    latencyMs: 0,
    maxPollRecords: 500,
    warmupMs: plan.e2e.warmupSeconds * 1000,
    windowMs: Math.max(1000, (plan.e2e.seconds - plan.e2e.warmupSeconds - 1) * 1000),
  });
  // JVM start, join and the first assignment before the first record is produced
  await Promise.race([sleep(5000), consumer.then(() => undefined)]);
  const prod = await producerPerformance({
    brokers,
    topic,
    records: produced,
    recordSize: 100,
    throughput: target,
    props: { acks: '1' },
    timeoutMs: plan.e2e.seconds * 1000 * 3 + 60_000,
  });
  const j = await consumer;
  return {
    via: 'Java KafkaShareConsumer, 1 thread (bench/java/ShareLatencyBench.java), latency at poll()',
    mode: 'java-share',
    fraction: o.fraction,
    maxRateBasis: o.basis,
    maxRecordsPerSec: round(o.maxRate),
    targetRecordsPerSec: target,
    producedRecordsPerSec: round(prod.recordsPerSec),
    samples: j.samples,
    produced,
    seen: j.samples,
    p50Ms: j.p50Ms,
    p90Ms: j.p90Ms,
    p99Ms: j.p99Ms,
    maxMs: j.maxMs,
    processCpuCores: undefined,
    processPeakRssMb: undefined,
    producerP50Ms: prod.p50Ms,
    producerP99Ms: prod.p99Ms,
    p99Samples: [],
    summary: undefined,
  };
}

function readSamples(dir: string): Array<{ createTime: number; latency: number }> {
  const out: Array<{ createTime: number; latency: number }> = [];
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch {
    return out;
  }
  for (const f of files) {
    for (const pair of readFileSync(path.join(dir, f), 'utf8').split(',')) {
      const i = pair.indexOf(':');
      if (i <= 0) continue;
      out.push({ createTime: Number(pair.slice(0, i)), latency: Number(pair.slice(i + 1)) });
    }
  }
  return out;
}

function countSamples(dir: string): number {
  let n = 0;
  try {
    for (const f of readdirSync(dir)) {
      const text = readFileSync(path.join(dir, f), 'utf8');
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 44) n++;
    }
  } catch {
    return 0;
  }
  return n;
}

/** utime + stime of a process in seconds (Linux /proc), or undefined elsewhere. */
function procCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks / 100;
  } catch {
    return undefined;
  }
}

function procPeakRssMb(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? round(Number(m[1]) / 1024, 1) : undefined;
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------------------------------ ratios

function computeRatios(results: BenchResults, plan: Plan): void {
  const s = results.scenarios;
  const shareVsJava: Array<Record<string, unknown>> = [];
  const classicVsJava: Array<Record<string, unknown>> = [];
  for (const row of s.noop) {
    if (row.mode === 'share') {
      const java = s.ceiling.find(
        (c) =>
          c.topic === row.topic &&
          c.result.tool === 'ShareConsumerPerformance' &&
          c.result.consumers === row.tasks,
      );
      shareVsJava.push({
        topic: row.topic,
        recordSize: row.recordSize,
        partitions: row.partitions,
        consumers: row.tasks,
        sharesink: round(row.result.recordsPerSec),
        java: java ? round(java.result.recordsPerSec) : null,
        ratio: ratio(row.result.recordsPerSec, java?.result.recordsPerSec),
        sharesinkSteady: row.result.steadyRecordsPerSec ? round(row.result.steadyRecordsPerSec) : null,
        javaSteady: java?.result.steadyRecordsPerSec ? round(java.result.steadyRecordsPerSec) : null,
        steadyRatio: ratio(row.result.steadyRecordsPerSec, java?.result.steadyRecordsPerSec),
        sharesinkFirstRecordMs: row.result.firstRecordMs ? round(row.result.firstRecordMs) : null,
        javaFirstRecordMs: java?.result.firstRecordMs ? round(java.result.firstRecordMs) : null,
      });
    } else if (row.tasks === 1) {
      const java = s.ceiling.find((c) => c.topic === row.topic && c.result.tool === 'ConsumerPerformance');
      classicVsJava.push({
        topic: row.topic,
        recordSize: row.recordSize,
        partitions: row.partitions,
        consumers: 1,
        via: row.result.via,
        sharesink: round(row.result.recordsPerSec),
        java: java ? round(java.result.recordsPerSec) : null,
        ratio: ratio(row.result.recordsPerSec, java?.result.recordsPerSec),
      });
    }
  }
  const scaling: Array<Record<string, unknown>> = [];
  const latencyVsJava: Array<Record<string, unknown>> = [];
  /** sharesink classic (and share) ÷ Kafka Connect standalone, same latency, partitions and tasks. */
  const classicVsConnect: Array<Record<string, unknown>> = [];
  const shareVsConnect: Array<Record<string, unknown>> = [];
  const maxMult = Math.max(...plan.latency.multipliers);
  for (const sinkMs of plan.latency.sinkMs) {
    for (const partitions of plan.latency.partitions) {
      const at = (mode: LatencyRow['mode'], m: number) =>
        s.latency.find(
          (r) => r.sinkMs === sinkMs && r.partitions === partitions && r.mode === mode && r.multiplier === m,
        );
      for (const mode of ['share', 'classic', 'java-share', 'connect'] as const) {
        const one = at(mode, 1);
        const top = at(mode, maxMult);
        if (!one || !top) continue;
        scaling.push({
          sinkMs,
          partitions,
          mode,
          via: top.via,
          at1x: round(one.recordsPerSec),
          [`at${maxMult}x`]: round(top.recordsPerSec),
          efficiency: ratio(top.recordsPerSec, maxMult * one.recordsPerSec),
        });
      }
      for (const m of plan.latency.multipliers) {
        const share = at('share', m);
        const java = at('java-share', m);
        if (share && java)
          latencyVsJava.push({
            sinkMs,
            partitions,
            multiplier: m,
            sharesink: round(share.recordsPerSec),
            java: round(java.recordsPerSec),
            ratio: ratio(share.recordsPerSec, java.recordsPerSec),
          });
      }
      for (const m of [1, maxMult]) {
        const connect = at('connect', m);
        if (!connect) continue;
        for (const [mode, rows] of [
          ['classic', classicVsConnect],
          ['share', shareVsConnect],
        ] as const) {
          const other = at(mode, m);
          const fromFirstPut =
            'recordsPerSecFromFirstPut' in connect.detail
              ? connect.detail.recordsPerSecFromFirstPut
              : undefined;
          if (other)
            rows.push({
              sinkMs,
              partitions,
              multiplier: m,
              tasks: connect.tasks,
              sharesink: round(other.recordsPerSec),
              connect: round(connect.recordsPerSec),
              ratio: ratio(other.recordsPerSec, connect.recordsPerSec),
              /** Connect over the other rows' exact window (from its first put, rebalances included). */
              connectFromFirstPut: fromFirstPut === undefined ? null : round(fromFirstPut),
              ratioFromFirstPut: ratio(other.recordsPerSec, fromFirstPut),
            });
        }
      }
    }
  }
  const pg = s.postgres;
  const gm = (rows: Array<Record<string, unknown>>) =>
    geomean(rows.map((r) => r.ratio).filter((v): v is number => typeof v === 'number'));
  const efficiencies = (mode: string) =>
    scaling
      .filter((r) => r.mode === mode)
      .map((r) => r.efficiency)
      .filter((v): v is number => typeof v === 'number');
  const minOf = (v: number[]) => (v.length > 0 ? Math.min(...v) : null);
  const e2eShare = s.e2e.find((e) => e.mode === 'share' && e.fraction === plan.e2e.fractions[0]);
  const e2eJava = s.e2e.find((e) => e.mode === 'java-share' && e.fraction === plan.e2e.fractions[0]);
  results.ratios = {
    shareVsJavaShareConsumer: gm(shareVsJava),
    /** The same with the start-up and group join left out on both sides (see the report's window note). */
    shareVsJavaShareConsumerSteady: geomean(
      shareVsJava.map((r) => r.steadyRatio).filter((v): v is number => typeof v === 'number'),
    ),
    classicVsJavaConsumer: gm(classicVsJava),
    /** The lowest efficiency over the sink latencies (and partition counts) measured. */
    shareScalingEfficiency8x: minOf(efficiencies('share')),
    /** Steady rows/s of PostgresSink (start-up excluded) over the bare loop's rows/s. */
    postgresVsBarePg: ratio(pg?.sharesink?.steadyRecordsPerSec, pg?.bare?.recordsPerSec),
    postgresOneThreadVsBarePg: ratio(pg?.sharesinkOneThread?.steadyRecordsPerSec, pg?.bare?.recordsPerSec),
    javaShareScalingEfficiency8x: minOf(efficiencies('java-share')),
    shareVsJavaShareUnderLatency: gm(latencyVsJava),
    /** Geomean over latencies and task counts (1× and 8×) of sharesink classic ÷ Kafka Connect standalone. */
    classicVsConnectUnderLatency: gm(classicVsConnect),
    /** The same against Connect's rate over the other rows' exact window (from the first put, not settled). */
    classicVsConnectFromFirstPut: geomean(
      classicVsConnect.map((r) => r.ratioFromFirstPut).filter((v): v is number => typeof v === 'number'),
    ),
    /** The same for share mode: at 8× it is share groups' scaling against Connect's one-task-per-partition. */
    shareVsConnectUnderLatency: gm(shareVsConnect),
    connectScalingEfficiency8x: minOf(efficiencies('connect')),
    e2eP50ShareVsJava: ratio(e2eShare?.p50Ms, e2eJava?.p50Ms),
    e2eP99ShareVsJava: ratio(e2eShare?.p99Ms, e2eJava?.p99Ms),
  };
  for (const fraction of plan.e2e.fractions.slice(1)) {
    const share = s.e2e.find((e) => e.mode === 'share' && e.fraction === fraction);
    const java = s.e2e.find((e) => e.mode === 'java-share' && e.fraction === fraction);
    results.ratios[`e2eP50ShareVsJava_${fraction * 100}pct`] = ratio(share?.p50Ms, java?.p50Ms);
    results.ratios[`e2eP99ShareVsJava_${fraction * 100}pct`] = ratio(share?.p99Ms, java?.p99Ms);
  }
  for (const r of scaling) {
    const name = { share: 'share', classic: 'classic', 'java-share': 'javaShare', connect: 'connect' }[
      r.mode as LatencyRow['mode']
    ];
    results.ratios[`${name}ScalingEfficiency8x_${r.sinkMs}ms_p${r.partitions}`] = r.efficiency as
      number | null;
  }
  results.ratiosDetail = {
    shareVsJavaShareConsumer: shareVsJava,
    classicVsJavaConsumer: classicVsJava,
    scaling,
    shareVsJavaShareUnderLatency: latencyVsJava,
    classicVsConnectUnderLatency: classicVsConnect,
    shareVsConnectUnderLatency: shareVsConnect,
  };
  const io = ioRatios(s.io);
  Object.assign(results.ratios, io.ratios);
  if (io.detail.length > 0) results.ratiosDetail.io = io.detail;
  const target = (value: number | null, goal: number) => ({
    value,
    target: goal,
    met: value === null ? null : value >= goal,
  });
  results.targets = {
    'share mode ≥ Java share consumer throughput': target(results.ratios.shareVsJavaShareConsumer ?? null, 1),
    'the same, steady (start-up and join excluded on both sides)': target(
      results.ratios.shareVsJavaShareConsumerSteady ?? null,
      1,
    ),
    '≥ 0.9× linear scaling to 8× partitions under a latency sink': target(
      results.ratios.shareScalingEfficiency8x ?? null,
      0.9,
    ),
    ...io.targets,
  };
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
