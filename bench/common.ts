/**
 * Shared pieces of the benchmark harness: the broker it runs against, the Java tools from the broker's
 * jars, topics and group configs, child processes with a time bound, and small statistics helpers.
 *
 * Everything here talks to loopback only.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaCluster } from '../src/kafka/cluster.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BENCH_DIR = path.join(ROOT, 'bench');
export const KAFKA_SCRIPTS = path.join(ROOT, 'scripts', 'kafka');
export const KAFKA_VERSION = process.env.KAFKA_VERSION ?? '4.4.0';

/** Main classes of the Kafka tools used here (same names as test/integration/harness/kafka.ts `Tools`). */
export const Tools = {
  ProducerPerformance: 'org.apache.kafka.tools.ProducerPerformance',
  ConsumerPerformance: 'org.apache.kafka.tools.ConsumerPerformance',
  ShareConsumerPerformance: 'org.apache.kafka.tools.ShareConsumerPerformance',
} as const;

/**
 * JVM flags for the measured Java tools. Unlike the test harness (C1 only, for fast start), the
 * measured tools get the full JIT: that is how they run in production and what they are compared as.
 */
export const MEASURED_JVM_OPTS = [
  '-Xmx512m',
  '-XX:+UseG1GC',
  '-Djava.awt.headless=true',
  `-Dlog4j2.configurationFile=${path.join(KAFKA_SCRIPTS, 'tools-log4j2.properties')}`,
];

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A free TCP port on loopback (listened on once, then closed). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function portOpen(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: timeoutMs }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export function splitAddress(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  return { host: address.slice(0, i), port: Number(address.slice(i + 1)) };
}

export function assertLoopback(address: string): void {
  const { host } = splitAddress(address);
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host))
    throw new Error(`the benchmark only talks to loopback brokers, not ${address}`);
}

export interface BrokerHandle {
  readonly brokers: string;
  readonly port: number;
  /** True when this run started it (and stops it at the end unless told to keep it). */
  readonly startedHere: boolean;
}

/** Uses the broker on `brokers` if one answers, else starts the local one there with scripts/kafka/start.sh. */
export async function ensureBroker(brokers: string): Promise<BrokerHandle> {
  assertLoopback(brokers);
  const { host, port } = splitAddress(brokers);
  if (await portOpen(host, port)) return { brokers, port, startedHere: false };
  say(`[bench] no broker on ${brokers}: starting the local Kafka ${KAFKA_VERSION} there`);
  const r = spawnSync('bash', [path.join(KAFKA_SCRIPTS, 'start.sh')], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, KAFKA_PORT: String(port), KAFKA_VERSION },
  });
  if (r.status !== 0) throw new Error(`the local broker did not start on port ${port}`);
  return { brokers, port, startedHere: true };
}

/**
 * Other Kafka brokers running on this machine (e.g. left by `npm run test:integration`), as their node
 * directories (`node-9092`, …). Three idle brokers kept 10–16 % of a 2-core machine busy (vmstat,
 * 2026-12-02), which the quiet check before each measurement lets through.
 */
export function otherKafkaBrokers(port: number): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.includes('kafka.Kafka')) continue;
    const node = /node-[\w-]+/.exec(cmd)?.[0] ?? `pid ${pid}`;
    if (node !== `node-${port}`) found.push(node);
  }
  return found;
}

export function stopBroker(handle: BrokerHandle): void {
  if (!handle.startedHere) return;
  spawnSync('bash', [path.join(KAFKA_SCRIPTS, 'stop.sh')], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, KAFKA_PORT: String(handle.port), KAFKA_VERSION },
  });
}

export function kafkaClasspath(): string {
  const file = path.join(ROOT, '.kafka', KAFKA_VERSION, 'broker.cp');
  if (!existsSync(file)) {
    const r = spawnSync('bash', [path.join(KAFKA_SCRIPTS, 'classpath.sh')], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, KAFKA_VERSION },
    });
    if (r.status !== 0 || !existsSync(file)) throw new Error(`no Kafka classpath file ${file}`);
  }
  return readFileSync(file, 'utf8').trim();
}

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly wallMs: number;
}

/** Runs a command to completion, killed (SIGKILL) after timeoutMs. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { timeoutMs: number; env?: NodeJS.ProcessEnv; cwd?: string; onStdout?: (chunk: string) => void },
): Promise<ProcessResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.stdout.on('data', (c: Buffer) => {
      const s = c.toString();
      stdout += s;
      options.onStdout?.(s);
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut, wallMs: performance.now() - started });
    });
  });
}

export async function runJava(
  className: string,
  args: readonly string[],
  timeoutMs: number,
  jvmOpts: readonly string[] = MEASURED_JVM_OPTS,
  classpath: string = kafkaClasspath(),
): Promise<ProcessResult> {
  const r = await runProcess('java', [...jvmOpts, '-cp', classpath, className, ...args], {
    timeoutMs,
  });
  if (r.code !== 0 || r.timedOut) {
    const why = r.timedOut ? `timed out after ${timeoutMs} ms` : `exited ${r.code}`;
    throw new Error(`${className.split('.').pop()} ${why}:\n${tail(r.stderr, 20)}\n${tail(r.stdout, 10)}`);
  }
  return r;
}

export function tail(text: string, lines: number): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

export function kafkaClient(brokers: string): Kafka {
  return new Kafka({ clientId: 'sharesink-bench', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
}

export async function createTopic(brokers: string, topic: string, partitions: number): Promise<void> {
  const admin = kafkaClient(brokers).admin();
  await admin.connect();
  try {
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }],
    });
  } finally {
    await admin.disconnect();
  }
}

export async function deleteTopics(brokers: string, topics: readonly string[]): Promise<void> {
  if (topics.length === 0) return;
  const admin = kafkaClient(brokers).admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: [...topics], timeout: 30_000 });
  } finally {
    await admin.disconnect();
  }
}

/** Sum of the partitions' end offsets: the records a topic holds (none are deleted during a run). */
export async function topicRecordCount(brokers: string, topic: string): Promise<number> {
  const admin = kafkaClient(brokers).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/** Group configs (e.g. share.auto.offset.reset=earliest) through IncrementalAlterConfigs on GROUP. */
export async function setGroupConfig(
  brokers: string,
  group: string,
  configs: Record<string, string>,
): Promise<void> {
  const cluster = new KafkaCluster({ brokers: brokers.split(','), clientId: 'sharesink-bench-admin' });
  try {
    await cluster.alterGroupConfigs(group, configs);
  } finally {
    await cluster.close();
  }
}

/** Nearest-rank percentile of an ascending-sorted array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function round(value: number, digits = 0): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** a / b rounded to 3 digits, or null when either side is missing. */
export function ratio(a: number | undefined | null, b: number | undefined | null): number | null {
  if (a === undefined || a === null || b === undefined || b === null || !(b > 0) || !Number.isFinite(a))
    return null;
  return round(a / b, 3);
}

/** CPU busy time of the whole machine over `sampleMs`, in cores (Linux /proc/stat; undefined elsewhere). */
export async function machineBusyCores(sampleMs = 500): Promise<number | undefined> {
  const read = (): { busy: number; total: number } | undefined => {
    try {
      const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
      const f = line.trim().split(/\s+/).slice(1).map(Number);
      const idle = (f[3] ?? 0) + (f[4] ?? 0);
      const total = f.slice(0, 8).reduce((s, v) => s + v, 0);
      return { busy: total - idle, total };
    } catch {
      return undefined;
    }
  };
  const a = read();
  await sleep(sampleMs);
  const b = read();
  if (!a || !b || b.total === a.total) return undefined;
  return ((b.busy - a.busy) / (b.total - a.total)) * os.cpus().length;
}

/**
 * Waits (at most `maxWaitMs`) until the machine is quiet: less than `maxBusyCores` busy over half a
 * second. Other work on a 2-core machine changes every number; this keeps the worst of it out and
 * reports what it saw.
 */
export async function waitForQuiet(
  maxWaitMs: number,
  maxBusyCores: number,
): Promise<{ busyCores: number | undefined; waitedMs: number }> {
  const started = performance.now();
  for (;;) {
    const busy = await machineBusyCores(500);
    const waitedMs = Math.round(performance.now() - started);
    if (busy === undefined || busy <= maxBusyCores || waitedMs >= maxWaitMs)
      return { busyCores: busy === undefined ? undefined : Math.round(busy * 100) / 100, waitedMs };
  }
}
