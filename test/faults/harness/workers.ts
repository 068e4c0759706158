// Real worker processes for the fault suite: each one is `sharesink standalone` (src/cli/bin.ts under
// tsx), spawned with child_process, one process = one worker. The suite kills them (-9), stops them
// (SIGTERM, which writes --summary-file) and reads what they wrote.
//
//   const s = await scenario('kill9');                  // temp dir, unique topic/group, cleanup
//   const w = await s.startWorker('w1', connectorProps); // resolves once its connector started
//   await w.kill9();  const summary = await w2.stop();
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, testBrokers, uniqueGroup, uniqueTopic } from '../../integration/harness/kafka.js';

const CLI = path.join(REPO_ROOT, 'src', 'cli', 'bin.ts');
export const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'connectors', 'faults-sink.ts');

/** What `standalone --summary-file` writes (the parts the suite reads). */
export interface SummaryFile {
  connectors: Array<{
    name: string;
    tasks: Array<{ id: number; state: string; error?: string }>;
    counters: Record<string, number>;
    locks?: Record<string, number>;
  }>;
}

/** Counters summed over the workers that stopped gracefully (a killed worker writes none). */
export interface Totals {
  recordsAcquired: number;
  accepted: number;
  released: number;
  rejected: number;
  redelivered: number;
  putsFailed: number;
  putsAborted: number;
  renewed: number;
  releasedEarly: number;
  expired: number;
  putTimeouts: number;
  ackFailures: number;
  /** Workers whose counters are in these totals. */
  summaries: number;
}

export function totals(summaries: readonly SummaryFile[]): Totals {
  const t: Totals = {
    recordsAcquired: 0,
    accepted: 0,
    released: 0,
    rejected: 0,
    redelivered: 0,
    putsFailed: 0,
    putsAborted: 0,
    renewed: 0,
    releasedEarly: 0,
    expired: 0,
    putTimeouts: 0,
    ackFailures: 0,
    summaries: summaries.length,
  };
  for (const s of summaries) {
    for (const c of s.connectors) {
      const k = c.counters;
      t.recordsAcquired += k.recordsAcquired ?? 0;
      t.accepted += k.recordsAccepted ?? 0;
      t.released += k.recordsReleased ?? 0;
      t.rejected += k.recordsRejected ?? 0;
      t.redelivered += k.recordsRedelivered ?? 0;
      t.putsFailed += k.putsFailed ?? 0;
      t.putsAborted += k.putsAborted ?? 0;
      t.ackFailures += k.recordsAckFailed ?? 0;
      t.renewed += c.locks?.batchRenewalsGranted ?? 0;
      t.releasedEarly += c.locks?.batchesReleasedEarly ?? 0;
      t.expired += c.locks?.batchesLockExpired ?? 0;
      t.putTimeouts += c.locks?.putTimeouts ?? 0;
    }
  }
  return t;
}

export interface WorkerProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** SIGKILL, and wait until the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM (graceful: puts finish, acks land, the rest is released), then the summary it wrote. */
  stop(timeoutMs?: number): Promise<SummaryFile>;
  /** The last lines of its log, for failure messages. */
  logTail(lines?: number): string;
}

function writeProperties(file: string, props: Record<string, string | number | boolean>): void {
  writeFileSync(
    file,
    Object.entries(props)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join('\n') + '\n',
  );
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 200 ms until it returns true; throws `what()` after timeoutMs. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what()}`);
    await sleep(200);
  }
}

export interface Scenario {
  readonly id: string;
  readonly dir: string;
  readonly topic: string;
  readonly group: string;
  /** A share-group dead-letter topic name (the broker requires the `dlq.` prefix). */
  readonly dlq: string;
  readonly sinkFile: string;
  readonly startedAt: number;
  /** Connector properties every scenario shares; spread and override. */
  baseConnector(extra?: Record<string, string | number>): Record<string, string | number>;
  startWorker(
    name: string,
    connector: Record<string, string | number>,
    worker?: Record<string, string | number>,
  ): Promise<WorkerProcess>;
  /** SIGKILLs whatever is still running (afterEach / finally). */
  cleanup(): Promise<void>;
}

export function scenario(id: string): Scenario {
  const dir = mkdtempSync(path.join(tmpdir(), `sharesink-faults-${id}-`));
  const topic = uniqueTopic(`faults-${id}`);
  const group = uniqueGroup(`faults-${id}`);
  const dlq = `dlq.${group}`;
  const sinkFile = path.join(dir, 'sink.txt');
  const running = new Set<WorkerProcess>();
  return {
    id,
    dir,
    topic,
    group,
    dlq,
    sinkFile,
    startedAt: Date.now(),
    baseConnector(extra = {}) {
      return {
        name: `faults-${id}`,
        'connector.class': FIXTURE,
        topics: topic,
        'tasks.max': 1,
        'consumer.override.group.protocol': 'share',
        'consumer.override.group.id': group,
        'share.group.share.auto.offset.reset': 'earliest',
        'sink.file': sinkFile,
        ...extra,
      };
    },
    async startWorker(name, connector, worker = {}) {
      const workerFile = path.join(dir, `${name}.worker.properties`);
      const connectorFile = path.join(dir, `${name}.connector.properties`);
      writeProperties(workerFile, {
        'bootstrap.servers': testBrokers(),
        'client.id': `faults-${name}`,
        'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
        'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
        'pool.threads': 2,
        ...worker,
      });
      writeProperties(connectorFile, connector);
      const p = spawnWorker(name, dir, workerFile, connectorFile);
      running.add(p);
      void p.exited.then(() => running.delete(p));
      try {
        await waitUntil(
          () => readLog(p.logFile).includes('"msg":"connector started"'),
          60_000,
          () => `worker ${name} did not start its connector:\n${p.logTail()}`,
        );
      } catch (err) {
        await p.kill9();
        throw err;
      }
      return p;
    },
    async cleanup() {
      await Promise.all([...running].map((p) => p.kill9()));
    },
  };
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function spawnWorker(name: string, dir: string, workerFile: string, connectorFile: string): WorkerProcess {
  const logFile = path.join(dir, `${name}.log`);
  const summaryFile = path.join(dir, `${name}.summary.json`);
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        CLI,
        'standalone',
        workerFile,
        connectorFile,
        '--summary-file',
        summaryFile,
        '--log-level',
        'info',
        '--no-progress',
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', fd, fd], env: { ...process.env } },
    );
  } finally {
    closeSync(fd);
  }
  if (child.pid === undefined) throw new Error(`could not spawn worker ${name}`);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const logTail = (lines = 30): string => readLog(logFile).split('\n').slice(-lines).join('\n');
  return {
    name,
    pid: child.pid,
    logFile,
    exited,
    logTail,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop(timeoutMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(
          `worker ${name} had already exited (${child.exitCode ?? child.signalCode}):\n${logTail()}`,
        );
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      if (code !== 0) throw new Error(`worker ${name} exited ${code} after SIGTERM:\n${logTail()}`);
      if (!existsSync(summaryFile)) throw new Error(`worker ${name} wrote no summary file ${summaryFile}`);
      return JSON.parse(readFileSync(summaryFile, 'utf8')) as SummaryFile;
    },
  };
}

/** The scenario's connector in a consumer-protocol group (KIP-848): no share-only settings. */
export function consumerProtocolConnector(
  s: Scenario,
  extra: Record<string, string | number>,
): Record<string, string | number> {
  const base = s.baseConnector({ 'consumer.override.group.protocol': 'consumer', ...extra });
  delete base['share.group.share.auto.offset.reset'];
  return base;
}
