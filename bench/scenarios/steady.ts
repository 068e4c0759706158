/**
 * Scenario 8, "steady rate" (issue 17): what a connector costs while it keeps up with a moderate,
 * steady stream, against the Java share consumer at the same rate.
 *
 * - A producer (`ProducerPerformance --throughput`, 200 B records, `acks=1`, the producer's default
 *   linger) at 50 % and 25 % of a maximum rate, into a fresh topic of 1 and of 4 partitions per row.
 *   The maximum rate is fixed (`STEADY_MAX_RATE`, or `--steady-max-rate`), not measured in the run: a
 *   200 B drain of both clients at 1 and 4 partitions would double the scenario's time.
 * - Each consumer alone on the bench broker, as a user gets it (defaults; the share group starts at
 *   the latest offset, its default, so no backlog from before the join is measured):
 *   - **sharesink**: share mode, tasks = partitions, `bench/steady-sink.ts` (NoopSink plus a
 *     CreateTime → put histogram), default pool threads and `max.poll.records`, in a child process of
 *     its own (bench/child.ts, window mode);
 *   - **sharesink tuned** (`put.placement=event-loop`, ADR 0013), the same otherwise: labelled as
 *     tuned in the report, its ratios suffixed `EventLoop`; the goals are judged on the defaults;
 *   - **ShareConsumerPerformance** `--threads <partitions>` (the headline CPU reference);
 *   - **the Java peer** (`bench/java/ShareLatencyBench.java`, `<partitions>` KafkaShareConsumer
 *     threads, no sink latency, 500-record polls): CPU too, and the latency reference (CreateTime →
 *     `poll()` return), as scenario 6.
 * - Window: `windowMs` after `warmupMs` from the first record. CPU of the whole process over the
 *   window from `/proc/<pid>/stat` (utime + stime) for all three; RSS (VmRSS) at the window's end.
 *   The records in the window: sharesink's and the peer's own counts; ShareConsumerPerformance's
 *   cumulative per-consumer counts from its interval lines (every 200 ms) at the two CPU readings.
 * - Order alternates per row. Ratios `cpuPerRecordVsJavaAt<pct>pct` (sharesink ÷ ShareConsumerPerformance,
 *   geomean over the partition counts; below 1 = cheaper), `…VsPeer…` against the peer, and
 *   `e2eP99VsJavaAt<pct>pct` (sharesink ÷ peer). A row whose done/s is more than 15 % off the target
 *   did not keep up (a backlog, or a process starved by the machine) and gives no ratio.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildResult, WorkerRunSpec } from '../child-protocol.js';
import {
  BENCH_DIR,
  createTopic,
  kafkaClasspath,
  MEASURED_JVM_OPTS,
  round,
  sleep,
  tail,
  Tools,
} from '../common.js';
import { runChild, type BenchContext } from '../context.js';
import { machineTicks } from '../proc-stats.js';
import { LAST_MS } from '../steady-sink.js';
import {
  STEADY_MAX_RATE,
  STEADY_PLAN,
  type SteadyPlan,
  type SteadyResults,
  type SteadyRow,
  type SteadySide,
  sideLabel,
} from './steady-results.js';

/** Runs scenario 8 when asked (--only=8, or --full). */
export async function runSteady(ctx: BenchContext, maxRateOption: string | undefined): Promise<void> {
  const { wants, measured, brokers, topicName, createdTopics, javaPeer, results } = ctx;
  if (!wants(8)) return;
  const plan = STEADY_PLAN;
  const given = maxRateOption === undefined ? undefined : Number(maxRateOption);
  const maxRate = given !== undefined && given > 0 ? given : STEADY_MAX_RATE;
  const out: SteadyResults = {
    plan,
    maxRecordsPerSec: maxRate,
    maxRateBasis:
      given !== undefined
        ? `given on the command line (--steady-max-rate=${given})`
        : `fixed: ${STEADY_MAX_RATE}/s (about the slower 1-consumer drain rate of the latest scenario 2 runs)`,
    rows: [],
  };
  results.scenarios.steady = out;
  let flip = false;
  for (const partitions of plan.partitions) {
    for (const fraction of plan.fractions) {
      const rate = Math.round(maxRate * fraction);
      const pct = Math.round(fraction * 100);
      const sides: SteadySide[] = [
        'sharesink',
        'sharesink-event-loop',
        'ShareConsumerPerformance',
        'java-peer',
      ];
      if (flip) sides.reverse();
      flip = !flip;
      for (const side of sides) {
        if (side === 'java-peer' && !javaPeer) continue;
        const topic = topicName(`steady-${TOPIC_TAG[side]}-p${partitions}-${pct}`);
        const row = await measured(
          `steady ${pct}% (${rate}/s) × ${partitions} partitions: ${sideLabel(side)}`,
          async () => {
            await createTopic(brokers, topic, partitions);
            createdTopics.push(topic);
            const producer = startProducer(brokers, topic, rate, plan);
            try {
              const o = { brokers, topic, partitions, fraction, rate, plan };
              return side === 'sharesink' || side === 'sharesink-event-loop'
                ? await runSharesink(o, side)
                : side === 'java-peer'
                  ? await runPeer({ ...o, classesDir: javaPeer! })
                  : await runScp(o);
            } finally {
              stop(producer);
            }
          },
        );
        if (row) out.rows.push(row);
      }
    }
  }
}

/**
 * Unmeasured traffic before the first measurement of a run: a broker just started (or long idle)
 * answers its first seconds of fetches slower while its JIT warms up, and whatever is measured first
 * carries that. Seen on a quiet machine: the first steady row's p99 was 39 ms where the same row run
 * later gives 9–14 ms, and a 100 B drain run first went at 145k records/s against 226k right after.
 * One steady row's worth (`ShareConsumerPerformance` at 50 % of the steady basis into 4 partitions).
 */
export async function warmBroker(ctx: BenchContext): Promise<void> {
  const { step, brokers, topicName, createdTopics } = ctx;
  const plan = STEADY_PLAN;
  const partitions = Math.max(...plan.partitions);
  const fraction = Math.max(...plan.fractions);
  const rate = Math.round(STEADY_MAX_RATE * fraction);
  await step(
    `warm the broker (${rate}/s × ${partitions} partitions, ShareConsumerPerformance, not measured)`,
    async () => {
      const topic = topicName(`warm-p${partitions}`);
      await createTopic(brokers, topic, partitions);
      createdTopics.push(topic);
      const producer = startProducer(brokers, topic, rate, plan);
      try {
        await runScp({ brokers, topic, partitions, fraction, rate, plan });
      } finally {
        stop(producer);
      }
    },
  );
}

interface RowInput {
  brokers: string;
  topic: string;
  partitions: number;
  fraction: number;
  rate: number;
  plan: SteadyPlan;
}

export function startProducer(brokers: string, topic: string, rate: number, plan: SteadyPlan): ChildProcess {
  // long enough for any consumer's start (≤ 60 s), warm-up and window; stopped when the row is done
  const records = Math.round(rate * ((plan.warmupMs + plan.windowMs) / 1000 + 90));
  const p = spawn(
    'java',
    [
      '-Xmx256m',
      '-cp',
      kafkaClasspath(),
      Tools.ProducerPerformance,
      '--bootstrap-server',
      brokers,
      '--topic',
      topic,
      '--num-records',
      String(records),
      '--record-size',
      String(plan.recordSize),
      '--throughput',
      String(rate),
      '--command-property',
      'acks=1',
    ],
    { stdio: ['ignore', 'ignore', 'ignore'] },
  );
  return p;
}

export function stop(p: ChildProcess): void {
  if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
}

const TOPIC_TAG: Record<SteadySide, string> = {
  sharesink: 'ss',
  'sharesink-event-loop': 'sse',
  ShareConsumerPerformance: 'scp',
  'java-peer': 'jp',
};

async function runSharesink(o: RowInput, side: 'sharesink' | 'sharesink-event-loop'): Promise<SteadyRow> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sharesink-steady-'));
  const load = os.loadavg()[0]!;
  try {
    const spec: WorkerRunSpec = {
      kind: 'worker',
      label: `steady-${o.partitions}p-${Math.round(o.fraction * 100)}`,
      brokers: o.brokers,
      topic: o.topic,
      topicRecords: Number.MAX_SAFE_INTEGER,
      mode: 'share',
      tasks: o.partitions,
      connectorClass: path.join(BENCH_DIR, 'steady-sink.ts'),
      connectorProps: {
        'latency.dir': dir,
        'share.group.share.auto.offset.reset': 'latest',
        ...(side === 'sharesink-event-loop' ? { 'put.placement': 'event-loop' } : {}),
      },
      measure: { kind: 'window', warmupMs: o.plan.warmupMs, windowMs: o.plan.windowMs },
      timeoutMs: 90_000,
    };
    const r: ChildResult = await runChild(spec);
    const lat = r.windowEpochMs ? readHistograms(dir, r.windowEpochMs) : undefined;
    const cpu = r.procCpuUsPerRecord ?? null;
    return {
      side,
      partitions: o.partitions,
      consumers: o.partitions,
      fraction: o.fraction,
      targetRecordsPerSec: o.rate,
      recordsPerSec: round(r.recordsPerSec),
      windowMs: round(r.windowMs),
      cpuUsPerRecord: cpu === null ? null : round(cpu, 2),
      cpuCores: cpu === null ? null : round((cpu * r.records) / 1000 / r.windowMs, 3),
      rssMb: r.rssAtWindowEndMb === undefined ? null : round(r.rssAtWindowEndMb, 1),
      p50Ms: lat?.p50 ?? null,
      p99Ms: lat?.p99 ?? null,
      latencySamples: lat?.samples ?? null,
      machineBusyCores: r.machineBusyCores === undefined ? null : round(r.machineBusyCores, 2),
      loadAverage1m: round(load, 2),
      firstRecordMs: r.firstRecordMs === undefined ? null : round(r.firstRecordMs),
      detail: {
        cpuUsPerRecordProcessCpuUsage: round(r.cpuUsPerRecord, 2),
        peakRssMb: round(r.peakRssMb, 1),
        windowCounters: r.windowCounters,
        notes: r.notes,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The sink's per-second histograms for the whole seconds inside the window: p50, p99 and count. */
export function readHistograms(
  dir: string,
  w: { from: number; to: number },
): { p50: number; p99: number; samples: number } | undefined {
  const merged = new Float64Array(LAST_MS + 1);
  const first = Math.ceil(w.from / 1000);
  const last = Math.floor(w.to / 1000) - 1;
  for (const f of readdirSync(dir)) {
    const data = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Record<
      string,
      Array<[number, number]>
    >;
    for (const [second, pairs] of Object.entries(data)) {
      const s = Number(second);
      if (s < first || s > last) continue;
      for (const [ms, n] of pairs) merged[ms] = merged[ms]! + n;
    }
  }
  let total = 0;
  for (const n of merged) total += n;
  if (total === 0) return undefined;
  const at = (p: number) => {
    const rank = Math.max(1, Math.ceil((p / 100) * total));
    let seen = 0;
    for (let i = 0; i < merged.length; i++) {
      seen += merged[i]!;
      if (seen >= rank) return i;
    }
    return LAST_MS;
  };
  return { p50: at(50), p99: at(99), samples: total };
}

/** utime + stime of a process in µs (Linux /proc). */
function procCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) / 100) * 1e6;
}

function procRssMb(pid: number): number | null {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? round(Number(m[1]) / 1024, 1) : null;
}

function busyCores(
  a: { busy: number; total: number } | undefined,
  b: { busy: number; total: number } | undefined,
): number | null {
  if (a === undefined || b === undefined || b.total <= a.total) return null;
  return round(((b.busy - a.busy) / (b.total - a.total)) * os.cpus().length, 2);
}

/** A Java process whose stdout lines are handed to `onLine` as they come; killed by `kill()`. */
function javaProcess(args: readonly string[], classpath: string, onLine: (line: string) => void) {
  const p = spawn('java', [...MEASURED_JVM_OPTS, '-cp', classpath, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buf = '';
  let err = '';
  p.stdout!.on('data', (c: Buffer) => {
    buf += c.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      onLine(buf.slice(0, i).trim());
      buf = buf.slice(i + 1);
    }
  });
  p.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
    if (err.length > 100_000) err = err.slice(-50_000);
  });
  const exited = new Promise<number | null>((resolve) => p.on('exit', (code) => resolve(code)));
  return { p, exited, stderr: () => tail(err, 10), kill: () => stop(p) };
}

async function until(
  cond: () => boolean,
  deadline: number,
  what: string,
  isDead: () => boolean,
  why: () => string,
) {
  while (!cond()) {
    if (isDead()) throw new Error(`${what}: the process exited early:\n${why()}`);
    if (Date.now() > deadline) throw new Error(`${what}: timed out:\n${why()}`);
    await sleep(20);
  }
}

/** ShareConsumerPerformance --threads P: CPU between two readings, records from its interval lines. */
async function runScp(o: RowInput): Promise<SteadyRow> {
  const load = os.loadavg()[0]!;
  const counts = new Map<string, number>();
  const total = () => [...counts.values()].reduce((a, b) => a + b, 0);
  const suffix = / for share consumer (\d+)$/;
  const j = javaProcess(
    [
      Tools.ShareConsumerPerformance,
      '--bootstrap-server',
      o.brokers,
      '--topic',
      o.topic,
      '--group',
      `steady-scp-${Date.now().toString(36)}`,
      '--num-records',
      '1000000000',
      '--threads',
      String(o.partitions),
      '--timeout',
      '120000',
      '--show-detailed-stats',
      '--reporting-interval',
      '200',
    ],
    kafkaClasspath(),
    (line) => {
      const m = suffix.exec(line);
      if (!m) return;
      const v = line
        .slice(0, m.index)
        .split(',')
        .map((s) => s.trim());
      if (v.length === 7) counts.set(m[1]!, Number(v[5]));
    },
  );
  const launched = performance.now();
  let dead = false;
  void j.exited.then(() => (dead = true));
  try {
    await until(
      () => total() > 0,
      Date.now() + 60_000,
      'ShareConsumerPerformance first record',
      () => dead,
      j.stderr,
    );
    const firstAt = performance.now();
    await sleep(o.plan.warmupMs);
    const c0 = procCpuUs(j.p.pid!);
    const n0 = total();
    const m0 = machineTicks();
    const t0 = performance.now();
    await sleep(o.plan.windowMs);
    const c1 = procCpuUs(j.p.pid!);
    const n1 = total();
    const m1 = machineTicks();
    const windowMs = performance.now() - t0;
    const rss = procRssMb(j.p.pid!);
    const records = n1 - n0;
    return {
      side: 'ShareConsumerPerformance',
      partitions: o.partitions,
      consumers: o.partitions,
      fraction: o.fraction,
      targetRecordsPerSec: o.rate,
      recordsPerSec: round(records / (windowMs / 1000)),
      windowMs: round(windowMs),
      cpuUsPerRecord: records > 0 ? round((c1 - c0) / records, 2) : null,
      cpuCores: round((c1 - c0) / 1000 / windowMs, 3),
      rssMb: rss,
      p50Ms: null,
      p99Ms: null,
      latencySamples: null,
      machineBusyCores: busyCores(m0, m1),
      loadAverage1m: round(load, 2),
      firstRecordMs: round(firstAt - launched),
      detail: { records },
    };
  } finally {
    j.kill();
  }
}

/** The Java peer (bench/java/ShareLatencyBench.java): CPU between its WINDOW_START and WINDOW_END lines. */
async function runPeer(o: RowInput & { classesDir: string }): Promise<SteadyRow> {
  const load = os.loadavg()[0]!;
  let c0: number | undefined;
  let c1: number | undefined;
  let m0: ReturnType<typeof machineTicks> | undefined;
  let m1: ReturnType<typeof machineTicks> | undefined;
  let rss: number | null = null;
  let result: string | undefined;
  const j = javaProcess(
    [
      'ShareLatencyBench',
      o.brokers,
      o.topic,
      `steady-jp-${Date.now().toString(36)}`,
      String(o.partitions),
      '0',
      '500',
      String(o.plan.warmupMs),
      String(o.plan.windowMs),
    ],
    `${o.classesDir}${path.delimiter}${kafkaClasspath()}`,
    (line) => {
      if (line === 'WINDOW_START') {
        c0 = procCpuUs(j.p.pid!);
        m0 = machineTicks();
      } else if (line === 'WINDOW_END') {
        c1 = procCpuUs(j.p.pid!);
        m1 = machineTicks();
        rss = procRssMb(j.p.pid!);
      } else if (line.startsWith('RESULT ')) result = line;
    },
  );
  let dead = false;
  void j.exited.then(() => (dead = true));
  try {
    await until(
      () => result !== undefined,
      Date.now() + 90_000,
      'Java peer result',
      () => dead && result === undefined,
      j.stderr,
    );
    const f = Object.fromEntries(
      result!
        .slice(7)
        .split(' ')
        .map((kv) => kv.split('=') as [string, string]),
    );
    const records = Number(f.records);
    const windowMs = Number(f.seconds) * 1000;
    const cpu = c0 !== undefined && c1 !== undefined ? c1 - c0 : undefined;
    return {
      side: 'java-peer',
      partitions: o.partitions,
      consumers: o.partitions,
      fraction: o.fraction,
      targetRecordsPerSec: o.rate,
      recordsPerSec: round(Number(f.recordsPerSec)),
      windowMs: round(windowMs),
      cpuUsPerRecord: cpu !== undefined && records > 0 ? round(cpu / records, 2) : null,
      cpuCores: cpu !== undefined ? round(cpu / 1000 / windowMs, 3) : null,
      rssMb: rss,
      p50Ms: Number(f.p50),
      p99Ms: Number(f.p99),
      latencySamples: Number(f.samples),
      machineBusyCores: busyCores(m0, m1),
      loadAverage1m: round(load, 2),
      firstRecordMs: Number.isFinite(Number(f.firstRecordMs)) ? Number(f.firstRecordMs) : null,
      detail: { polls: Number(f.polls), meanPollMs: Number(f.meanPollMs) },
    };
  } finally {
    // the peer closes its consumers itself after the RESULT line; do not wait for it
    j.kill();
  }
}
