/**
 * What bench/run.ts asks of a measurement process (bench/child.ts) and what it gets back. Every
 * sharesink measurement runs in its own Node process, so CPU time and peak RSS belong to that run only.
 */

/** Drain a fixed number of records, or count what is done in a time window after a warm-up. */
export type Measure =
  | { readonly kind: 'drain'; readonly records: number }
  | { readonly kind: 'window'; readonly warmupMs: number; readonly windowMs: number };

export interface WorkerRunSpec {
  readonly kind: 'worker';
  readonly label: string;
  readonly brokers: string;
  readonly topic: string;
  /** Records in the topic: a window run that reaches it ran dry and is flagged. */
  readonly topicRecords: number;
  readonly mode: 'share' | 'classic' | 'consumer';
  readonly tasks: number;
  /** `pool.threads`; undefined leaves the worker's default (the CPU count). */
  readonly poolThreads?: number;
  /**
   * Write only what a user must (scenario 7): no `consumer.override.group.id` (Connect's `connect-<name>`),
   * no start position (share: sharesink sets `earliest` on a new group itself; classic: the default is
   * earliest), and the share start-position line is captured (`startPositionLine`).
   */
  readonly userSettingsOnly?: boolean;
  /** `connector.class` and its own settings (e.g. latency.ms, connection.url). */
  readonly connectorClass: string;
  readonly connectorProps: Readonly<Record<string, string>>;
  /** Worker-level settings added to the defaults (converters are ByteArray unless set here). */
  readonly workerProps?: Readonly<Record<string, string>>;
  /** For classic mode without a wired classic runner: simulate this sink latency in the kafkajs loop. */
  readonly fallbackLatencyMs?: number;
  /** For classic mode without a wired classic runner: records per simulated put (max.poll.records). */
  readonly fallbackMaxPollRecords?: number;
  readonly measure: Measure;
  readonly timeoutMs: number;
  /** Write a V8 CPU profile of the main thread, steady part only (first record done → end), here. */
  readonly profileDir?: string;
}

export interface PgBareSpec {
  readonly kind: 'pg-bare';
  readonly label: string;
  readonly pgUrl: string;
  /** Table the sink created; the bare loop writes a copy of its definition. */
  readonly likeTable: string;
  readonly table: string;
  readonly rows: number;
  readonly batchSize: number;
  readonly timeoutMs: number;
}

export interface MysqlBareSpec {
  readonly kind: 'mysql-bare';
  readonly label: string;
  /** mysql://user:password@host:port/database */
  readonly mysqlUrl: string;
  readonly likeTable: string;
  readonly table: string;
  readonly rows: number;
  readonly batchSize: number;
  readonly timeoutMs: number;
}

export type ChildSpec = WorkerRunSpec | PgBareSpec | MysqlBareSpec;

export interface ChildResult {
  readonly label: string;
  /** `worker`: the sharesink Worker; `kafkajs-direct`: classic mode measured on a bare kafkajs consumer. */
  readonly via: 'worker' | 'kafkajs-direct' | 'pg' | 'mysql2';
  readonly records: number;
  readonly recordsPerSec: number;
  /** Drain: from the first batch put to the last record put (start-up and group join excluded). */
  readonly steadyRecordsPerSec: number | undefined;
  /** From start() to the first record done (drain: put; window: acknowledged). */
  readonly firstRecordMs: number | undefined;
  /** Drain: from the last record put to its acknowledgement (end of stream: behind a long-poll fetch). */
  readonly ackTailMs: number | undefined;
  /** How long Worker.start() took (connectors and tasks started, members joined; not yet assigned). */
  readonly startMs?: number | undefined;
  readonly windowMs: number;
  /** Process CPU (user + system, every thread) per record inside the steady part. */
  readonly cpuUsPerRecord: number;
  readonly cpuCores: number;
  readonly peakRssMb: number;
  readonly rssAfterStartMb: number | undefined;
  readonly avgRecordsPerPut: number | undefined;
  readonly stopMs: number | undefined;
  readonly ranDry: boolean;
  readonly counters: Readonly<Record<string, number>> | undefined;
  /** Window runs: how much each counter moved inside the window (e.g. recordsPut / puts = put size there). */
  readonly windowCounters?: Readonly<Record<string, number>> | undefined;
  /** Window runs: busy cores of the whole machine over the window (/proc/stat; every process). */
  readonly machineBusyCores?: number | undefined;
  /** userSettingsOnly, share mode: the runtime's line on the group's start position (share.auto.offset.reset). */
  readonly startPositionLine?: string | undefined;
  /** Window runs: process CPU per record over the window from /proc/self/stat (utime + stime). */
  readonly procCpuUsPerRecord?: number | undefined;
  /** Window runs: the window in epoch ms (to match records' put times in a sink's own files). */
  readonly windowEpochMs?: { readonly from: number; readonly to: number } | undefined;
  /** Window runs: VmRSS at the end of the window. */
  readonly rssAtWindowEndMb?: number | undefined;
  /** Window runs: CPU µs over the window by thread name (`main` apart), user and system, from /proc/self/task. */
  readonly threadCpuUs?: Readonly<Record<string, ThreadWindow>> | undefined;
  /** Window runs: garbage collections and event-loop delay on the main thread over the window. */
  readonly mainStalls?: MainStalls | undefined;
  readonly notes: readonly string[];
}

export const RESULT_PREFIX = 'BENCH_RESULT ';

/** One group of threads over a measured window: CPU in µs, and how often its threads were woken. */
export interface ThreadWindow {
  user: number;
  sys: number;
  /** Voluntary context switches: each is a sleep that something (a socket, a message, a timer) ended. */
  wakes: number;
  threads: number;
}

export interface MainStalls {
  readonly gcCount: number;
  readonly gcMsTotal: number;
  readonly gcMsMax: number;
  /** Mark-compact collections among them, and their time. */
  readonly gcMajorCount: number;
  readonly gcMajorMs: number;
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
}
