/**
 * The Kafka Connect anchor of scenario 3: Kafka Connect standalone (`ConnectStandalone`, from the
 * Maven jars of connect-runtime) running bench/java/SleepSinkConnector, a sink that sleeps the same
 * latency per put() as sharesink's NoopSink with `latency.ms`. Connect reads through a classic consumer
 * group, one consumer per task, one put() at a time per task.
 *
 * The classpath comes from bench/connect/pom.xml (resolved once into .kafka/<version>/connect.cp, apart
 * from the broker's scripts/kafka/pom.xml); the connector is compiled with javac against it per run.
 * Each task appends `<epoch µs> <records>` per put (and its partition assignments) to a progress file.
 * The window is the other rows' (`warmupMs`, then records done per second over `windowMs`), with one
 * difference: the warm-up starts once the consumer group has settled, not at the first put. Connect
 * starts its tasks one after another and each join is an eager rebalance, which the other rows' clients
 * (sharesink's tasks start together; share groups do not rebalance) do not go through at every start.
 * The rate over the other rows' exact window is kept too (`recordsPerSecFromFirstPut`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BENCH_DIR,
  KAFKA_VERSION,
  MEASURED_JVM_OPTS,
  ROOT,
  round,
  runProcess,
  sleep,
  tail,
} from './common.js';

const CONNECT_POM = path.join(BENCH_DIR, 'connect', 'pom.xml');
const CONNECT_LOG4J = path.join(BENCH_DIR, 'connect', 'log4j2.properties');
const CONNECTOR_CLASS = 'sharesink.bench.SleepSinkConnector';
const JAVA_SOURCES = ['SleepSinkConnector.java', 'SleepSinkTask.java'].map((f) =>
  path.join(BENCH_DIR, 'java', f),
);

/** JVM flags of the Connect worker: those of the measured Java tools, with Connect's own log config. */
const CONNECT_JVM_OPTS = [
  ...MEASURED_JVM_OPTS.filter((o) => !o.startsWith('-Dlog4j2.configurationFile=')),
  `-Dlog4j2.configurationFile=${CONNECT_LOG4J}`,
];

/**
 * The classpath of connect-runtime (and a log4j binding), resolved with Maven into
 * .kafka/<version>/connect.cp on first use (again when a listed jar is gone).
 */
export async function connectClasspath(): Promise<string> {
  const dir = path.join(ROOT, '.kafka', KAFKA_VERSION);
  const file = path.join(dir, 'connect.cp');
  if (existsSync(file)) {
    const cp = readFileSync(file, 'utf8').trim();
    if (cp && cp.split(path.delimiter).every((jar) => existsSync(jar))) return cp;
  }
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.tmp`;
  const logFile = path.join(dir, 'connect-maven.log');
  const r = await runProcess(
    'mvn',
    [
      '-B',
      '-q',
      '-f',
      CONNECT_POM,
      `-Dkafka.version=${KAFKA_VERSION}`,
      'dependency:build-classpath',
      '-Dmdep.includeScope=runtime',
      `-Dmdep.outputFile=${tmp}`,
    ],
    { timeoutMs: 600_000 },
  );
  writeFileSync(logFile, `${r.stdout}\n${r.stderr}`);
  if (r.code !== 0 || !existsSync(tmp))
    throw new Error(
      `Maven could not resolve org.apache.kafka:connect-runtime:${KAFKA_VERSION} (log: ${logFile}):\n${tail(`${r.stdout}\n${r.stderr}`, 20)}`,
    );
  const cp = readFileSync(tmp, 'utf8').trim();
  const bindings = cp
    .split(path.delimiter)
    .filter((j) =>
      /\/(log4j-slf4j2?-impl|slf4j-(simple|nop|jdk14|log4j12|reload4j)|logback-classic)-[^/]*\.jar$/.test(j),
    );
  if (bindings.length !== 1)
    throw new Error(
      `expected exactly one SLF4J binding on the Connect classpath, found ${bindings.length}: see ${tmp}`,
    );
  renameSync(tmp, file);
  return cp;
}

/**
 * Compiles SleepSinkConnector and its task into `outDir` against the Connect classpath, with the
 * ServiceLoader manifest the worker's `plugin.discovery=service_load` finds it by.
 */
export async function compileConnectPlugin(outDir: string): Promise<void> {
  const cp = await connectClasspath();
  const r = await runProcess('javac', ['-cp', cp, '-d', outDir, ...JAVA_SOURCES], { timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`javac (Connect plugin) failed:\n${tail(r.stderr, 20)}`);
  const services = path.join(outDir, 'META-INF', 'services');
  mkdirSync(services, { recursive: true });
  writeFileSync(path.join(services, 'org.apache.kafka.connect.sink.SinkConnector'), `${CONNECTOR_CLASS}\n`);
}

export interface ConnectLatencyResult {
  readonly tasks: number;
  /** Records done (put() returned) in the window (which starts `warmupMs` after the group settled). */
  readonly records: number;
  readonly recordsPerSec: number;
  readonly windowMs: number;
  /**
   * The same over the other rows' window: `warmupMs` after the first put, whether or not the group had
   * settled by then (Connect starts its tasks one after another: each join is a rebalance).
   */
  readonly recordsPerSecFromFirstPut: number;
  /**
   * First put → the window's start: the settling (every task started, every task that can hold a
   * partition has put, then no start and no assignment change for `warmupMs`).
   */
  readonly settleMs: number;
  /** False when the group had not settled within the settle timeout (the window started anyway). */
  readonly settled: boolean;
  /** Partition assignments (task open() calls) before and within the window: each is a rebalance's end. */
  readonly assignmentsBeforeWindow: number;
  readonly assignmentsInWindow: number;
  /** Non-empty put() calls that ended in the window. */
  readonly puts: number;
  /** Tasks that did at least one put over the whole run (a task without a partition does none). */
  readonly activeTasks: number;
  /** Records done over the whole run (for `ranDry`). */
  readonly totalRecords: number;
  readonly ranDry: boolean;
  /** Connect JVM launch to the first put done (JVM start, plugins, worker, group join included). */
  readonly firstRecordMs: number;
  /** The Connect JVM's CPU (every thread) over the window, in cores (Linux /proc; undefined elsewhere). */
  readonly cpuCores: number | undefined;
  /** SIGTERM to exit; `killed` when it did not exit in time and got SIGKILL. */
  readonly stopMs: number;
  readonly killed: boolean;
  readonly group: string;
}

/** utime + stime of a process in seconds (Linux /proc), or undefined. */
function procCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

interface Progress {
  /** Every put: [epoch µs, records]. */
  readonly puts: Array<[number, number]>;
  /** The first put of each task that has put (epoch µs), ascending. */
  readonly firstPuts: number[];
  /** Every open() and close() (partition assignment and revocation), epoch µs. */
  readonly opens: number[];
  readonly closes: number[];
  /** Every task start(), epoch µs. */
  readonly starts: number[];
}

/** What the tasks noted so far, from all the progress files (a partial last line is skipped). */
function readProgress(dir: string): Progress {
  const p: Progress = { puts: [], firstPuts: [], opens: [], closes: [], starts: [] };
  if (!existsSync(dir)) return p;
  for (const f of readdirSync(dir)) {
    let first: number | undefined;
    for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      const m = /^(open |close |start )?(\d+) (\d+)$/.exec(line);
      if (!m) continue;
      const t = Number(m[2]);
      if (m[1] === 'open ') p.opens.push(t);
      else if (m[1] === 'close ') p.closes.push(t);
      else if (m[1] === 'start ') p.starts.push(t);
      else {
        p.puts.push([t, Number(m[3])]);
        first ??= t;
      }
    }
    if (first !== undefined) p.firstPuts.push(first);
  }
  p.firstPuts.sort((a, b) => a - b);
  return p;
}

function recordsBetween(puts: ReadonlyArray<[number, number]>, fromUs: number, toUs: number) {
  const inWindow = puts.filter(([t]) => t > fromUs && t <= toUs);
  return { puts: inWindow.length, records: inWindow.reduce((s, [, n]) => s + n, 0) };
}

/** SIGTERM (Connect's shutdown hook stops the tasks and commits offsets), then SIGKILL after `graceMs`. */
async function stopProcess(
  child: ChildProcess,
  exited: () => boolean,
  graceMs: number,
): Promise<{ ms: number; killed: boolean }> {
  const t = performance.now();
  if (exited()) return { ms: 0, killed: false };
  child.kill('SIGTERM');
  while (!exited() && performance.now() - t < graceMs) await sleep(100);
  if (exited()) return { ms: performance.now() - t, killed: false };
  child.kill('SIGKILL');
  while (!exited() && performance.now() - t < graceMs + 10_000) await sleep(100);
  return { ms: performance.now() - t, killed: true };
}

/**
 * One Connect standalone worker with SleepSinkConnector on `topic`: `tasks` tasks, each sleeping
 * `latencyMs` per put of up to `maxPollRecords` records. A fresh connector name (and so a fresh
 * consumer group, `connect-<name>`) per run, reading from the earliest offset.
 */
export async function connectLatencyRun(o: {
  classesDir: string;
  brokers: string;
  topic: string;
  /** Connector name; the consumer group is `connect-<name>`. */
  name: string;
  tasks: number;
  /** The topic's partitions: min(tasks, partitions) tasks can hold one. */
  partitions: number;
  latencyMs: number;
  maxPollRecords: number;
  maxPartitionFetchBytes: number;
  topicRecords: number;
  warmupMs: number;
  windowMs: number;
  /** Launch to the first put done (default 120 s). */
  startTimeoutMs?: number;
  /** First put to a settled group (default 60 s); the window starts then anyway. */
  settleTimeoutMs?: number;
}): Promise<ConnectLatencyResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sharesink-bench-connect-'));
  const progressDir = path.join(dir, 'progress');
  const logFile = path.join(dir, 'connect.log');
  const workerProps = path.join(dir, 'worker.properties');
  const connectorProps = path.join(dir, 'connector.properties');
  const props = (p: Record<string, string>) =>
    `${Object.entries(p)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n')}\n`;
  writeFileSync(
    workerProps,
    props({
      'bootstrap.servers': o.brokers,
      'key.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
      'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
      'offset.storage.file.filename': path.join(dir, 'connect.offsets'),
      // no reflective scan of the classpath: the built-in plugins and ours have ServiceLoader manifests
      'plugin.discovery': 'service_load',
      listeners: 'http://127.0.0.1:0',
      // as sharesink's classic rows: puts of max.poll.records, one producer batch per partition fetch
      'consumer.max.poll.records': String(o.maxPollRecords),
      'consumer.max.partition.fetch.bytes': String(o.maxPartitionFetchBytes),
      'consumer.auto.offset.reset': 'earliest',
    }),
  );
  writeFileSync(
    connectorProps,
    props({
      name: o.name,
      'connector.class': CONNECTOR_CLASS,
      'tasks.max': String(o.tasks),
      topics: o.topic,
      'sleep.ms': String(o.latencyMs),
      'progress.dir': progressDir,
    }),
  );
  const cp = `${o.classesDir}${path.delimiter}${await connectClasspath()}`;
  const logFd = openSync(logFile, 'a');
  const launchedAt = Date.now();
  const child = spawn(
    'java',
    [
      ...CONNECT_JVM_OPTS,
      '-cp',
      cp,
      'org.apache.kafka.connect.cli.ConnectStandalone',
      workerProps,
      connectorProps,
    ],
    { cwd: dir, stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  let exitCode: number | null | undefined;
  let spawnError: Error | undefined;
  child.on('exit', (code, signal) => {
    exitCode = code ?? (signal ? -1 : null);
  });
  child.on('error', (err) => {
    spawnError = err;
    exitCode = -1;
  });
  const exited = () => exitCode !== undefined;
  const logTail = () => (existsSync(logFile) ? tail(readFileSync(logFile, 'utf8'), 25) : '(no log)');
  const fail = (why: string) => new Error(`Kafka Connect standalone ${why} (log: ${logFile}):\n${logTail()}`);
  let stopped: { ms: number; killed: boolean } | undefined;
  let ok = false;
  try {
    // 1. launch → the first put done
    const startDeadline = performance.now() + (o.startTimeoutMs ?? 120_000);
    let firstUs: number | undefined;
    while (firstUs === undefined) {
      if (spawnError) throw fail(`could not be launched: ${spawnError.message}`);
      if (exited()) throw fail(`exited (${String(exitCode)}) before a record was put`);
      if (performance.now() > startDeadline)
        throw fail(
          `put no record within ${Math.round((o.startTimeoutMs ?? 120_000) / 1000)} s of its launch`,
        );
      await sleep(100);
      firstUs = readProgress(progressDir).firstPuts[0];
    }
    // 2. the group settles: Connect starts its tasks one after another and each consumer's join is a
    //    rebalance (eager, RangeAssignor: every task's partitions are revoked and reassigned). The window
    //    starts once every task has started, every task that can hold a partition has put, and no task
    //    started and no assignment changed for warmupMs (the tasks stamp with the same epoch clock as
    //    Date.now(); files are flushed every 200 ms).
    const expectedActive = Math.min(o.tasks, o.partitions);
    const settleDeadline = firstUs / 1000 + (o.settleTimeoutMs ?? 60_000);
    let settled = false;
    for (;;) {
      if (exited()) throw fail(`exited (${String(exitCode)}) while its group settled`);
      const p = readProgress(progressDir);
      const lastChange = Math.max(
        firstUs,
        ...p.opens,
        ...p.closes,
        p.starts.length >= o.tasks ? Math.max(...p.starts) : Infinity,
        p.firstPuts[expectedActive - 1] ?? Infinity,
      );
      if (Number.isFinite(lastChange) && Date.now() - 250 >= lastChange / 1000 + o.warmupMs) {
        settled = true;
        break;
      }
      if (Date.now() >= settleDeadline) break;
      await sleep(100);
    }
    // 3. the window, on the wall clock; the CPU samples bracket it
    const fromMs = Date.now();
    const toMs = fromMs + o.windowMs;
    const cpu0 = procCpuSeconds(child.pid);
    const cpuT0 = Date.now();
    await sleep(Math.max(0, toMs - Date.now()));
    const cpu1 = procCpuSeconds(child.pid);
    const cpuT1 = Date.now();
    if (exited()) throw fail(`exited (${String(exitCode)}) during the measurement`);
    // progress files are flushed every 200 ms (and at stop)
    stopped = await stopProcess(child, exited, 20_000);
    const p = readProgress(progressDir);
    const fromUs = fromMs * 1000;
    const toUs = toMs * 1000;
    const { records, puts } = recordsBetween(p.puts, fromUs, toUs);
    const firstPutFromUs = firstUs + o.warmupMs * 1000;
    const strict = recordsBetween(p.puts, firstPutFromUs, firstPutFromUs + o.windowMs * 1000);
    const totalRecords = p.puts.reduce((s, [, n]) => s + n, 0);
    if (records === 0 && totalRecords < o.topicRecords)
      throw fail('put no record in the measurement window (a task failed?)');
    ok = true;
    return {
      tasks: o.tasks,
      records,
      recordsPerSec: records / (o.windowMs / 1000),
      windowMs: o.windowMs,
      recordsPerSecFromFirstPut: strict.records / (o.windowMs / 1000),
      settleMs: round(fromMs - firstUs / 1000),
      settled,
      assignmentsBeforeWindow: p.opens.filter((t) => t <= fromUs).length,
      assignmentsInWindow: p.opens.filter((t) => t > fromUs && t <= toUs).length,
      puts,
      activeTasks: p.firstPuts.length,
      totalRecords,
      ranDry: totalRecords >= o.topicRecords,
      firstRecordMs: round(firstUs / 1000 - launchedAt),
      cpuCores:
        cpu0 !== undefined && cpu1 !== undefined && cpuT1 > cpuT0
          ? round((cpu1 - cpu0) / ((cpuT1 - cpuT0) / 1000), 2)
          : undefined,
      stopMs: round(stopped.ms),
      killed: stopped.killed,
      group: `connect-${o.name}`,
    };
  } finally {
    if (!stopped) await stopProcess(child, exited, 20_000);
    // kept when something failed: the error names the log file in it
    if (ok) rmSync(dir, { recursive: true, force: true });
  }
}
