/**
 * The results of a bench run: their shape (the JSON in bench/results/), the object a run starts
 * with (versions, machine, configs), the ratios and targets computed from the rows, and the files
 * written at the end. bench/report.ts renders it as Markdown; bench/compare.ts reads two of them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sourcesUnderTsx } from './built-child.js';
import type { ChildResult } from './child-protocol.js';
import { BENCH_DIR, KAFKA_VERSION, MEASURED_JVM_OPTS, ratio, ROOT, round, say } from './common.js';
import type { ConnectLatencyResult } from './connect-standalone.js';
import type { ConsumeResult, JavaLatencyResult, ProduceResult } from './java-tools.js';
import { FILL_PROPS, type Plan } from './plan.js';
import type { ProfileSummary } from './profile.js';
import { avroRatios, type AvroResults } from './scenarios/avro-results.js';
import { ioRatios, type IoResults } from './scenarios/io.js';
import { steadyRatios, steadyTargets, type SteadyResults } from './scenarios/steady-results.js';
import { rebalanceRatios, rebalanceSvg, type RebalanceResults } from './scenarios/rebalance-results.js';

export interface CeilingRow {
  readonly topic: string;
  readonly recordSize: number;
  readonly partitions: number;
  /** The best of the repeats. */
  result: ConsumeResult;
  /** records/s of every repeat. */
  readonly samples: number[];
}

export interface SharesinkRow {
  readonly topic: string;
  readonly recordSize: number;
  readonly partitions: number;
  readonly mode: 'share' | 'classic' | 'consumer';
  readonly tasks: number;
  /** The best of the repeats. */
  result: ChildResult;
  /** records/s of every repeat. */
  readonly samples: number[];
}

export interface LatencyRow {
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

export interface E2eResult {
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

export interface PostgresResult {
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

/** Scenario 10, one database: the JDBC sink at its defaults against a bare driver loop. */
export interface JdbcDialectResult {
  sharesink?: ChildResult;
  bare?: ChildResult;
  batchSize?: number;
  samples: { sharesink: number[]; bare: number[] };
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
  /** Why this run is not the benchmark record (bench/record.ts); empty for a full default run. */
  notRecord?: string[];
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
    /** Scenario 10, the JDBC sink per database (bench/scenarios/jdbc.ts). */
    jdbc?: Partial<Record<'postgresql' | 'mariadb', JdbcDialectResult>>;
    runtimeCost: Array<{ topic: string; mode: string; tasks: number; via: string } & Record<string, unknown>>;
    e2e: E2eResult[];
    /** Scenario 7, I/O-bound sinks with default settings (bench/scenarios/io.ts). */
    io?: IoResults | undefined;
    /** Scenario 8, steady rate against the Java share consumer (bench/scenarios/steady.ts). */
    steady?: SteadyResults | undefined;
    /** Scenario 9, Avro decode vs JSON with schemas (bench/scenarios/avro.ts). */
    avro?: AvroResults | undefined;
    /** Scenario 11, rebalances under a steady rate (bench/scenarios/rebalance.ts). */
    rebalance?: RebalanceResults | undefined;
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

// ------------------------------------------------------------------------------------------ start

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

/** The results object of a run that starts now: versions, machine, configs, empty scenarios. */
export function newResults(o: { plan: Plan; started: Date; scale: number; brokers: string }): BenchResults {
  const { plan, started, brokers } = o;
  return {
    schema: 1,
    startedAt: started.toISOString(),
    finishedAt: '',
    durationS: 0,
    mode: plan.name,
    scale: o.scale,
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
        /** How the children ran sharesink (bench/built-child.ts); records before 2026-12-05 ran the sources under tsx. */
        runsAs: sourcesUnderTsx()
          ? 'the TypeScript sources under tsx (SHARESINK_BENCH_CHILD=tsx)'
          : 'dist/ built with tsc, on plain node; TypeScript connector modules under tsx',
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
}

// ------------------------------------------------------------------------------------------ ratios

function geomean(values: readonly number[]): number | null {
  const ok = values.filter((v) => Number.isFinite(v) && v > 0);
  if (ok.length === 0) return null;
  return round(Math.exp(ok.reduce((s, v) => s + Math.log(v), 0) / ok.length), 3);
}

export function computeRatios(results: BenchResults, plan: Plan): void {
  const s = results.scenarios;
  const shareVsJava: Array<Record<string, unknown>> = [];
  const classicVsJava: Array<Record<string, unknown>> = [];
  /** group.protocol=consumer (KIP-848, sharesink's own member) ÷ ConsumerPerformance, 1 task. */
  const consumerVsJava: Array<Record<string, unknown>> = [];
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
      (row.mode === 'consumer' ? consumerVsJava : classicVsJava).push({
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
    consumerProtocolVsJavaConsumer: gm(consumerVsJava),
    /** The lowest efficiency over the sink latencies (and partition counts) measured. */
    shareScalingEfficiency8x: minOf(efficiencies('share')),
    /** Steady rows/s of PostgresSink (start-up excluded) over the bare loop's rows/s. */
    postgresVsBarePg: ratio(pg?.sharesink?.steadyRecordsPerSec, pg?.bare?.recordsPerSec),
    postgresOneThreadVsBarePg: ratio(pg?.sharesinkOneThread?.steadyRecordsPerSec, pg?.bare?.recordsPerSec),
    /** Steady rows/s of the JDBC sink at its defaults over a bare pg loop's (scenario 10). */
    jdbcPostgresVsBarePg: ratio(
      s.jdbc?.postgresql?.sharesink?.steadyRecordsPerSec,
      s.jdbc?.postgresql?.bare?.recordsPerSec,
    ),
    /** Steady rows/s of the JDBC sink at its defaults over a bare mysql2 loop's, into MariaDB (scenario 10). */
    mariadbVsBareDriver: ratio(
      s.jdbc?.mariadb?.sharesink?.steadyRecordsPerSec,
      s.jdbc?.mariadb?.bare?.recordsPerSec,
    ),
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
    consumerProtocolVsJavaConsumer: consumerVsJava,
    scaling,
    shareVsJavaShareUnderLatency: latencyVsJava,
    classicVsConnectUnderLatency: classicVsConnect,
    shareVsConnectUnderLatency: shareVsConnect,
  };
  const io = ioRatios(s.io);
  Object.assign(results.ratios, io.ratios);
  if (io.detail.length > 0) results.ratiosDetail.io = io.detail;
  Object.assign(results.ratios, steadyRatios(s.steady));
  Object.assign(results.ratios, avroRatios(s.avro));
  Object.assign(results.ratios, rebalanceRatios(s.rebalance));
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
    'group.protocol=consumer ≥ 0.8× Java ConsumerPerformance': target(
      results.ratios.consumerProtocolVsJavaConsumer ?? null,
      0.8,
    ),
    '≥ 0.9× linear scaling to 8× partitions under a latency sink': target(
      results.ratios.shareScalingEfficiency8x ?? null,
      0.9,
    ),
    ...io.targets,
    ...(s.steady ? steadyTargets(results.ratios) : {}),
    ...(s.avro
      ? {
          'Avro decode ≤ 1.5× the CPU per record of JSON with schemas': {
            value: results.ratios.avroDecodeVsJson ?? null,
            target: 1.5,
            met: results.ratios.avroDecodeVsJson == null ? null : results.ratios.avroDecodeVsJson <= 1.5,
          },
        }
      : {}),
  };
}

// ------------------------------------------------------------------------------------------ files

function stamp(d: Date): string {
  return d.toISOString().replace(/[:]/g, '-').replace(/\..+$/, 'Z');
}

/**
 * Writes bench/results/<timestamp>.{json,md}, and latest.{json,md} only when the run is the record
 * (`results.notRecord` empty: a full default run, bench/record.ts).
 */
export function saveResults(results: BenchResults, md: string, started: Date): void {
  const dir = path.join(BENCH_DIR, 'results');
  mkdirSync(dir, { recursive: true });
  const base = stamp(started);
  const json = `${JSON.stringify(results, null, 2)}\n`;
  writeFileSync(path.join(dir, `${base}.json`), json);
  writeFileSync(path.join(dir, `${base}.md`), md);
  // scenario 11's plots, one per phase, next to the run's files (and as latest-… for the record)
  const plots = (['standalone', 'distributed'] as const).flatMap((phase) => {
    const svg = rebalanceSvg(results.scenarios.rebalance, phase);
    return svg === undefined
      ? []
      : [[phase === 'standalone' ? 'rebalance' : 'rebalance-distributed', svg] as const];
  });
  for (const [what, svg] of plots) writeFileSync(path.join(dir, `${base}-${what}.svg`), svg);
  const notRecord = results.notRecord ?? [];
  if (notRecord.length > 0) {
    say(
      `[bench] wrote bench/results/${base}.{json,md} only: a partial run, latest.{json,md} left as they were`,
    );
    say(`[bench] not the record because: ${notRecord.join('; ')}`);
    return;
  }
  writeFileSync(path.join(dir, 'latest.json'), json);
  writeFileSync(path.join(dir, 'latest.md'), md);
  for (const [what, svg] of plots) writeFileSync(path.join(dir, `latest-${what}.svg`), svg);
  say(`[bench] wrote bench/results/${base}.{json,md} and latest.{json,md} (a full default run)`);
}
