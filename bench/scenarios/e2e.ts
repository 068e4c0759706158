/**
 * Scenario 6: end-to-end latency (CreateTime → put) of `sharesink standalone` (the CLI) with
 * bench/latency-sink.ts, against the Java share peer (CreateTime → poll() return), while
 * ProducerPerformance produces at 50% (and 25%) of the slower 1-consumer drain rate of scenario 2.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR, createTopic, percentile, ROOT, round, sleep, tail } from '../common.js';
import type { BenchContext } from '../context.js';
import { producerPerformance, shareLatencyBench } from '../java-tools.js';
import type { Plan } from '../plan.js';
import type { E2eResult } from '../results.js';

/** `e2eMaxRate`: --e2e-max-rate, the maximum rate to take the fractions of instead of scenario 2's. */
export async function runEndToEnd(ctx: BenchContext, e2eMaxRate: string | undefined): Promise<void> {
  const { plan, results, brokers, measured, topicName, createdTopics, wants, javaPeer } = ctx;
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
    const given = e2eMaxRate === undefined ? undefined : Number(e2eMaxRate);
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
        await measured(`end-to-end latency at ${fraction * 100}% (Java KafkaShareConsumer) #${rep + 1}`, () =>
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
}

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
