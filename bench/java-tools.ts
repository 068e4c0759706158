/**
 * The Java reference tools, run from the same jars as the broker: ProducerPerformance fills topics,
 * ConsumerPerformance and ShareConsumerPerformance are the ceilings sharesink is compared with.
 */
import path from 'node:path';
import {
  BENCH_DIR,
  kafkaClasspath,
  MEASURED_JVM_OPTS,
  runJava,
  runProcess,
  setGroupConfig,
  tail,
  Tools,
} from './common.js';

export interface ProduceResult {
  readonly records: number;
  readonly recordsPerSec: number;
  readonly mbPerSec: number;
  readonly avgLatencyMs: number;
  /** The producer's own send latency (send() to acknowledgement) percentiles. */
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly wallMs: number;
}

/**
 * ProducerPerformance; `throughput` -1 means as fast as possible. With `payloadFile` the values are
 * that file's lines (picked at random by the tool) instead of `recordSize` random bytes.
 */
export async function producerPerformance(o: {
  brokers: string;
  topic: string;
  records: number;
  recordSize: number;
  payloadFile?: string;
  throughput?: number;
  props?: Record<string, string>;
  timeoutMs?: number;
}): Promise<ProduceResult> {
  const props = Object.entries(o.props ?? {}).map(([k, v]) => `${k}=${v}`);
  const args = [
    '--bootstrap-server',
    o.brokers,
    '--topic',
    o.topic,
    '--num-records',
    String(o.records),
    ...(o.payloadFile === undefined
      ? ['--record-size', String(o.recordSize)]
      : ['--payload-file', o.payloadFile]),
    '--throughput',
    String(o.throughput ?? -1),
  ];
  if (props.length > 0) args.push('--command-property', ...props);
  const r = await runJava(Tools.ProducerPerformance, args, o.timeoutMs ?? 300_000);
  // "500000 records sent, 80814.6 records/sec (7.71 MB/sec), 1460.07 ms avg latency, …" (the last one)
  const lines = r.stdout.trim().split('\n');
  const last = lines[lines.length - 1] ?? '';
  const m = /(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency/.exec(
    last,
  );
  if (!m) throw new Error(`cannot read ProducerPerformance output:\n${r.stdout}`);
  const pct = /(\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th/.exec(last);
  return {
    records: Number(m[1]),
    recordsPerSec: Number(m[2]),
    mbPerSec: Number(m[3]),
    avgLatencyMs: Number(m[4]),
    p50Ms: pct ? Number(pct[1]) : undefined,
    p99Ms: pct ? Number(pct[3]) : undefined,
    wallMs: r.wallMs,
  };
}

export interface ConsumeResult {
  readonly tool: 'ConsumerPerformance' | 'ShareConsumerPerformance';
  readonly consumers: number;
  readonly records: number;
  readonly mb: number;
  /** Records over the tool's own window (subscribe → last record), the join included. */
  readonly recordsPerSec: number;
  readonly mbPerSec: number;
  /** ConsumerPerformance only: the same without the group join (fetch.nMsg.sec). */
  readonly fetchRecordsPerSec: number | undefined;
  /**
   * ShareConsumerPerformance only, from its detailed stats: from the end of the first reporting
   * interval in which a record arrived to the last record, and the records after that instant. The
   * same definition as sharesink's steady rate (first put → last put), at the tool's 250 ms granularity.
   */
  readonly steadyRecordsPerSec?: number | undefined;
  /** ShareConsumerPerformance only: start → end of the first interval with a record (an upper bound). */
  readonly firstRecordMs?: number | undefined;
  readonly windowMs: number;
  readonly wallMs: number;
}

/** Suffix of ShareConsumerPerformance's per-interval lines (--show-detailed-stats). */
const INTERVAL_SUFFIX = / for share consumer (\d+)$/;

/**
 * The tools print a header line and CSV lines of values; returns the summary line by header name (with
 * detailed stats, ShareConsumerPerformance's interval lines end in "for share consumer N" and are skipped).
 */
export function csvStats(stdout: string): Record<string, string> {
  const lines = stdout.split('\n').map((l) => l.trim());
  const h = lines.findIndex((l) => l.startsWith('start.time'));
  if (h < 0) throw new Error(`no stats header in:\n${stdout}`);
  const header = lines[h]!.split(',').map((s) => s.trim());
  for (const line of lines.slice(h + 1)) {
    if (INTERVAL_SUFFIX.test(line)) continue;
    const values = line.split(',').map((s) => s.trim());
    if (values.length === header.length) return Object.fromEntries(header.map((k, i) => [k, values[i]!]));
  }
  throw new Error(`no stats line in:\n${stdout}`);
}

/** "2026-11-29 22:43:05:514" (the tools' format, one time zone throughout) as milliseconds. */
function toolTime(text: string): number {
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d):(\d{3})$/.exec(text.trim());
  if (!m) throw new Error(`unexpected time ${JSON.stringify(text)} in the tool's stats`);
  return Date.parse(`${m[1]}T${m[2]}.${m[3]}Z`);
}

export interface ShareSteady {
  readonly firstRecordMs: number;
  readonly steadyRecordsPerSec: number;
}

/**
 * The steady rate from ShareConsumerPerformance's interval lines (`start, end, MB, MB/s, nMsg/s,
 * nMsg so far, ms for share consumer N`): from the end of the earliest interval in which any consumer
 * had a record to the summary's end, counting the records every consumer got after that instant.
 */
export function shareSteadyFromStats(stdout: string, total: Record<string, string>): ShareSteady | undefined {
  const intervals: Array<{ consumer: string; end: number; records: number }> = [];
  for (const line of stdout.split('\n').map((l) => l.trim())) {
    const m = INTERVAL_SUFFIX.exec(line);
    if (!m) continue;
    const v = line
      .slice(0, m.index)
      .split(',')
      .map((s) => s.trim());
    if (v.length !== 7) continue;
    intervals.push({ consumer: m[1]!, end: toolTime(v[1]!), records: Number(v[5]) });
  }
  const withRecords = intervals.filter((i) => i.records > 0);
  if (withRecords.length === 0) return undefined;
  const from = Math.min(...withRecords.map((i) => i.end));
  const start = toolTime(total['start.time']!);
  const end = toolTime(total['end.time']!);
  // per consumer, its count at `from` is the cumulative count of its last interval ending by then
  const before = new Map<string, number>();
  for (const i of intervals)
    if (i.end <= from) before.set(i.consumer, Math.max(before.get(i.consumer) ?? 0, i.records));
  const counted = [...before.values()].reduce((a, b) => a + b, 0);
  const records = Number(total['data.consumed.in.nMsg']) - counted;
  if (end <= from || records <= 0) return undefined;
  return { firstRecordMs: from - start, steadyRecordsPerSec: records / ((end - from) / 1000) };
}

/** ConsumerPerformance (one classic consumer; the 4.x tool has no thread option). */
export async function consumerPerformance(o: {
  brokers: string;
  topic: string;
  group: string;
  records: number;
  timeoutMs?: number;
}): Promise<ConsumeResult> {
  const r = await runJava(
    Tools.ConsumerPerformance,
    [
      '--bootstrap-server',
      o.brokers,
      '--topic',
      o.topic,
      '--group',
      o.group,
      '--num-records',
      String(o.records),
      '--timeout',
      '60000',
    ],
    o.timeoutMs ?? 300_000,
  );
  const s = csvStats(r.stdout);
  const records = Number(s['data.consumed.in.nMsg']);
  if (records < o.records) throw new Error(`ConsumerPerformance read ${records} of ${o.records} records`);
  const perSec = Number(s['nMsg.sec']);
  return {
    tool: 'ConsumerPerformance',
    consumers: 1,
    records,
    mb: Number(s['data.consumed.in.MB']),
    recordsPerSec: perSec,
    mbPerSec: Number(s['MB.sec']),
    fetchRecordsPerSec: Number(s['fetch.nMsg.sec']),
    windowMs: (records / perSec) * 1000,
    wallMs: r.wallMs,
  };
}

/** ShareConsumerPerformance with `threads` consumers; the group reads from the earliest offset. */
export async function shareConsumerPerformance(o: {
  brokers: string;
  topic: string;
  group: string;
  records: number;
  threads: number;
  timeoutMs?: number;
}): Promise<ConsumeResult> {
  await setGroupConfig(o.brokers, o.group, { 'share.auto.offset.reset': 'earliest' });
  // --timeout also bounds the whole run (the tool interrupts its threads after timeout + 100 ms)
  const r = await runJava(
    Tools.ShareConsumerPerformance,
    [
      '--bootstrap-server',
      o.brokers,
      '--topic',
      o.topic,
      '--group',
      o.group,
      '--num-records',
      String(o.records),
      '--threads',
      String(o.threads),
      '--timeout',
      '240000',
      // interval lines every 250 ms give the time to the first record and the steady rate after it
      '--show-detailed-stats',
      '--reporting-interval',
      '250',
    ],
    o.timeoutMs ?? 300_000,
  );
  const s = csvStats(r.stdout);
  const records = Number(s['data.consumed.in.nMsg']);
  if (records < o.records)
    throw new Error(`ShareConsumerPerformance read ${records} of ${o.records} records`);
  const steady = shareSteadyFromStats(r.stdout, s);
  return {
    tool: 'ShareConsumerPerformance',
    consumers: o.threads,
    records,
    mb: Number(s['data.consumed.in.MB']),
    recordsPerSec: Number(s['nMsg.sec']),
    mbPerSec: Number(s['MB.sec']),
    fetchRecordsPerSec: undefined,
    windowMs: Number(s['fetch.time.ms']),
    wallMs: r.wallMs,
    steadyRecordsPerSec: steady?.steadyRecordsPerSec,
    firstRecordMs: steady?.firstRecordMs,
  };
}

/** Compiles bench/java/ShareLatencyBench.java into `outDir` (javac from the JDK that runs the broker). */
export async function compileJavaPeer(outDir: string): Promise<void> {
  const r = await runProcess(
    'javac',
    ['-cp', kafkaClasspath(), '-d', outDir, path.join(BENCH_DIR, 'java', 'ShareLatencyBench.java')],
    { timeoutMs: 120_000 },
  );
  if (r.code !== 0) throw new Error(`javac failed:\n${tail(r.stderr, 20)}`);
}

export interface JavaLatencyResult {
  readonly threads: number;
  readonly records: number;
  readonly recordsPerSec: number;
  readonly windowMs: number;
  readonly polls: number;
  readonly meanPollMs: number;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/**
 * The Java share-consumer peer of the latency scenarios: `threads` KafkaShareConsumers, each sleeping
 * `latencyMs` per poll result, then acknowledging (ACCEPT, sent with the next poll).
 */
export async function shareLatencyBench(o: {
  classesDir: string;
  brokers: string;
  topic: string;
  group: string;
  threads: number;
  latencyMs: number;
  maxPollRecords: number;
  warmupMs: number;
  windowMs: number;
}): Promise<JavaLatencyResult> {
  await setGroupConfig(o.brokers, o.group, { 'share.auto.offset.reset': 'earliest' });
  const r = await runJava(
    'ShareLatencyBench',
    [
      o.brokers,
      o.topic,
      o.group,
      String(o.threads),
      String(o.latencyMs),
      String(o.maxPollRecords),
      String(o.warmupMs),
      String(o.windowMs),
    ],
    o.warmupMs + o.windowMs + 120_000,
    MEASURED_JVM_OPTS,
    `${o.classesDir}${path.delimiter}${kafkaClasspath()}`,
  );
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`no RESULT line from ShareLatencyBench:\n${tail(r.stdout, 10)}`);
  const f = Object.fromEntries(
    line
      .slice(7)
      .split(' ')
      .map((kv) => kv.split('=') as [string, string]),
  );
  const num = (k: string) => Number(f[k]);
  return {
    threads: o.threads,
    records: num('records'),
    recordsPerSec: num('recordsPerSec'),
    windowMs: num('seconds') * 1000,
    polls: num('polls'),
    meanPollMs: num('meanPollMs'),
    samples: num('samples'),
    p50Ms: num('p50'),
    p90Ms: num('p90'),
    p99Ms: num('p99'),
    maxMs: num('max'),
  };
}
