/**
 * Scenario 11: what a rebalance costs. A 6-partition topic fed by ProducerPerformance at a steady rate
 * (half the slowest side's drain rate), a sink with a fixed put latency (bench/rebalance-sink.ts;
 * bench/java/SleepSinkConnector for Kafka Connect), and partitions moved while records flow:
 *
 * - standalone phase, four sides (sharesink classic, consumer, share; Kafka Connect standalone): the
 *   operator scales `tasks.max` 3 → 6 → 3 with PUT /connectors/{name}/config;
 * - distributed phase, three sharesink sides: two `sharesink distributed` workers run 6 tasks, a third
 *   worker is added, then the first is killed with SIGKILL.
 *
 * Every put is logged with its records; bench/rebalance-analysis.ts samples the logs every 100 ms.
 * Definitions and timings: bench/README.md, "Rebalance (scenario 11)".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR, createTopic, kafkaClient, round, say, setGroupConfig, sleep } from '../common.js';
import { compileConnectPlugin } from '../connect-standalone.js';
import type { BenchContext } from '../context.js';
import {
  analyzeRebalance,
  parseWriteLog,
  unwrittenCount,
  type WrittenRecord,
} from '../rebalance-analysis.js';
import {
  connectStandalone,
  putConfig,
  readWriteLogs,
  rest,
  sharesinkDistributedWorker,
  sharesinkStandalone,
  steadyProducer,
  waitForTasks,
  type Proc,
} from '../rebalance-procs.js';
import type {
  RebalancePhase,
  RebalanceResults,
  RebalanceRow,
  RebalanceSideName,
} from './rebalance-results.js';

/** The scenario's settings (the same in short and full mode: one run of each side is ~70–90 s). */
export const REBALANCE = {
  partitions: 6,
  sinkLatencyMs: 50,
  maxPollRecords: 100,
  /** Tasks before and after the scale-out (standalone), and the distributed connector's tasks. */
  tasks: [3, 6] as const,
  intervalMs: 100,
  recordSize: 100,
  /**
   * The first change waits until the side has settled: `minSettleMs` of producing, then every 100 ms
   * sample of the last `settleWindowMs` with a longest wait ≤ `settledWaitMs` (at most `maxSettleMs`).
   */
  minSettleMs: 8_000,
  settleWindowMs: 3_000,
  settledWaitMs: 1_000,
  maxSettleMs: 30_000,
  /** Standalone: ms after the first change of each change (3 → 6, 6 → 3), and the producer's stop. */
  standalone: { changesMs: [0, 20_000], produceAfterMs: 40_000 },
  /** Distributed: worker C added, worker A killed (SIGKILL), the producer's stop. */
  distributed: { changesMs: [0, 20_000], produceAfterMs: 45_000 },
  /** After the producer: the longest wait for the last records to be written. */
  drainTimeoutMs: 20_000,
  /** Consumer and share groups' session timeout, worker group's (Connect's default). */
  sessionTimeoutMs: 10_000,
};

/**
 * The slowest side's drain rate at 3 tasks, derived: every side runs one put at a time per task
 * (Connect does; sharesink with max.inflight.batches=1), each put of at most max.poll.records records
 * takes the sink latency, so 3 tasks drain at most 3 × 100 / 0.05 s = 6,000 records/s; the producer
 * runs at half of it. The peak written rate each side reaches while it catches up is in its row.
 */
export function rebalanceRate(): { rate: number; basis: string } {
  const drain = (REBALANCE.tasks[0] * REBALANCE.maxPollRecords * 1000) / REBALANCE.sinkLatencyMs;
  return {
    rate: drain / 2,
    basis: `${drain / 2}/s = half of ${REBALANCE.tasks[0]} tasks × ${REBALANCE.maxPollRecords} records per put ÷ ${REBALANCE.sinkLatencyMs} ms per put (one put at a time per task on every side), ${REBALANCE.partitions} partitions, ${REBALANCE.recordSize} B records`,
  };
}

function connectorConfig(o: {
  side: RebalanceSideName;
  name: string;
  topic: string;
  tasks: number;
  recordsDir: string;
}): Record<string, string> {
  const common = {
    name: o.name,
    topics: o.topic,
    'tasks.max': String(o.tasks),
    'sleep.ms': String(REBALANCE.sinkLatencyMs),
  };
  if (o.side === 'connect')
    return {
      ...common,
      'connector.class': 'sharesink.bench.SleepSinkConnector',
      'progress.dir': o.recordsDir,
      'records.log': 'true',
    };
  const protocol = o.side === 'share' ? 'share' : o.side === 'consumer' ? 'consumer' : 'classic';
  return {
    ...common,
    'connector.class': path.join(BENCH_DIR, 'rebalance-sink.ts'),
    'records.dir': o.recordsDir,
    'consumer.override.group.protocol': protocol,
    'consumer.override.max.poll.records': String(REBALANCE.maxPollRecords),
    'max.inflight.batches': '1',
    ...(protocol === 'share'
      ? { 'share.group.share.auto.offset.reset': 'earliest' }
      : {
          'consumer.override.auto.offset.reset': 'earliest',
          'consumer.override.session.timeout.ms': String(REBALANCE.sessionTimeoutMs),
        }),
  };
}

const PROTOCOL_NOTE = /group\.protocol=consumer: read as classic[^"\n]*/;

interface Timeline {
  readonly t0: number;
  /** When the first change was made: the side had settled (or the settle time was spent). */
  readonly settled: boolean;
  readonly changes: Array<{ label: string; atMs: number }>;
}

type Produced = Timeline & { produced: number; endMs: number; endOffsets: Map<number, number> };

/** Records every write log under `dir` holds, parsed. */
function writtenSoFar(dir: string): WrittenRecord[] {
  const records: WrittenRecord[] = [];
  for (const text of readWriteLogs(dir)) parseWriteLog(text, records);
  return records;
}

/**
 * Whether the side has settled `t0`-relative: at least `minSettleMs` produced, and the longest wait
 * at or below `settledWaitMs` in every sample of the last `settleWindowMs`.
 */
function hasSettled(dir: string, t0: number): boolean {
  const now = Date.now();
  if (now - t0 < REBALANCE.minSettleMs) return false;
  const a = analyzeRebalance({ records: writtenSoFar(dir), startMs: t0, endMs: now, changes: [] });
  const recent = a.samples.filter((x) => x.tMs > now - t0 - REBALANCE.settleWindowMs);
  return recent.length > 0 && recent.every((x) => x.maxWaitMs <= REBALANCE.settledWaitMs);
}

/**
 * Produces at the scenario's rate; once the side has settled (at most `maxSettleMs`), `act` makes the
 * changes at the given offsets from that moment (`at(ms)`); the producer stops `produceAfterMs` after
 * the first change; then waits (at most `drainTimeoutMs`) for every record to be written.
 */
async function produceThrough(o: {
  ctx: BenchContext;
  topic: string;
  produceAfterMs: number;
  recordsDir: string;
  act: (at: (ms: number) => Promise<void>, changes: Timeline['changes']) => Promise<void>;
}): Promise<Produced> {
  const { rate } = rebalanceRate();
  const t0 = Date.now();
  const producer = await steadyProducer({
    brokers: o.ctx.brokers,
    topic: o.topic,
    partitions: REBALANCE.partitions,
    rate,
    recordSize: REBALANCE.recordSize,
  });
  const changes: Timeline['changes'] = [];
  let settled = false;
  let produced: number;
  try {
    while (Date.now() - t0 < REBALANCE.maxSettleMs && !(settled = hasSettled(o.recordsDir, t0)))
      await sleep(500);
    const first = Date.now();
    await o.act((ms) => sleep(Math.max(0, first + ms - Date.now())), changes);
    await sleep(Math.max(0, first + o.produceAfterMs - Date.now()));
  } finally {
    produced = await producer.stop();
  }
  const deadline = Date.now() + REBALANCE.drainTimeoutMs;
  const endOffsets = await topicEndOffsets(o.ctx.brokers, o.topic);
  const total = [...endOffsets.values()].reduce((a, b) => a + b, 0);
  for (;;) {
    const seen = new Set<string>();
    for (const r of writtenSoFar(o.recordsDir)) seen.add(`${r.partition}:${r.offset}`);
    if (seen.size >= total || Date.now() > deadline) break;
    await sleep(500);
  }
  return { t0, settled, changes, produced, endMs: Date.now(), endOffsets };
}

async function topicEndOffsets(brokers: string, topic: string): Promise<Map<number, number>> {
  const admin = kafkaClient(brokers).admin();
  await admin.connect();
  try {
    return new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
  } finally {
    await admin.disconnect();
  }
}

function rowFrom(o: {
  side: RebalanceSideName;
  phase: RebalancePhase;
  via: string;
  protocolNote: string | undefined;
  recordsDir: string;
  timeline: Produced;
  started: number;
}): RebalanceRow {
  const { timeline } = o;
  const records = writtenSoFar(o.recordsDir);
  const lastWrite = records.reduce((m, r) => Math.max(m, r.writeMs), timeline.t0);
  const endMs = Math.min(timeline.endMs, lastWrite + 1000);
  const a = analyzeRebalance({
    records,
    startMs: timeline.t0,
    endMs,
    intervalMs: REBALANCE.intervalMs,
    changes: timeline.changes,
    measureFromMs: (timeline.changes[0]?.atMs ?? timeline.t0) - REBALANCE.settleWindowMs,
    settledWaitMs: REBALANCE.settledWaitMs,
  });
  const perSecond = Math.round(1000 / a.intervalMs);
  let peak = 0;
  for (let k = 0; k + perSecond <= a.samples.length; k++) {
    let w = 0;
    for (let j = k; j < k + perSecond; j++) w += a.samples[j]!.written;
    peak = Math.max(peak, w);
  }
  return {
    side: o.side,
    phase: o.phase,
    via: o.via,
    settled: timeline.settled,
    settleMs: (timeline.changes[0]?.atMs ?? timeline.t0) - timeline.t0,
    protocolNote: o.protocolNote,
    targetRecordsPerSec: rebalanceRate().rate,
    produced: [...timeline.endOffsets.values()].reduce((x, y) => x + y, 0),
    writes: a.writes,
    distinct: a.distinct,
    duplicates: a.duplicates,
    recordsWrittenTwice: a.recordsWrittenTwice,
    missing: unwrittenCount(records, timeline.endOffsets),
    longestWaitMs: a.longestWaitMs,
    steadyWaitP50Ms: a.steadyWaitP50Ms,
    changes: a.changes,
    intervalMs: a.intervalMs,
    written: a.samples.map((x) => x.written),
    producedPerInterval: a.samples.map((x) => x.produced),
    maxWaitMs: a.samples.map((x) => round(x.maxWaitMs)),
    peakRecordsPerSec: peak,
    loadAverage: os.loadavg().map((v) => round(v, 2)),
    wallS: round((Date.now() - o.started) / 1000, 1),
  };
}

/** One standalone side: start with 3 tasks, PUT tasks.max=6, then 3, while the producer runs. */
export async function standaloneSide(ctx: BenchContext, side: RebalanceSideName, connectClasses?: string) {
  const started = Date.now();
  const topic = ctx.topicName(`rebalance-${side}`);
  await createTopic(ctx.brokers, topic, REBALANCE.partitions);
  ctx.createdTopics.push(topic);
  const dir = mkdtempSync(path.join(os.tmpdir(), `sharesink-rebalance-${side}-`));
  const recordsDir = path.join(dir, 'records');
  const name = `rebalance-${side}-${ctx.runId}`;
  const config = (tasks: number) => connectorConfig({ side, name, topic, tasks, recordsDir });
  let proc: Proc | undefined;
  let ok = false;
  try {
    proc =
      side === 'connect'
        ? await connectStandalone({
            dir,
            classesDir: connectClasses!,
            brokers: ctx.brokers,
            worker: {
              'consumer.max.poll.records': String(REBALANCE.maxPollRecords),
              'consumer.auto.offset.reset': 'earliest',
              'consumer.session.timeout.ms': String(REBALANCE.sessionTimeoutMs),
            },
            connector: config(REBALANCE.tasks[0]),
          })
        : await sharesinkStandalone({ dir, brokers: ctx.brokers, connector: config(REBALANCE.tasks[0]) });
    const p = proc;
    await waitForTasks(p, name, REBALANCE.tasks[0]);
    await sleep(2000); // the group's join and first assignment
    const [toMax, back] = REBALANCE.standalone.changesMs as [number, number];
    const timeline = await produceThrough({
      ctx,
      topic,
      produceAfterMs: REBALANCE.standalone.produceAfterMs,
      recordsDir,
      act: async (at, changes) => {
        await at(toMax);
        changes.push({ label: `tasks ${REBALANCE.tasks[0]}→${REBALANCE.tasks[1]}`, atMs: Date.now() });
        await putConfig(p, name, config(REBALANCE.tasks[1]));
        await at(back);
        changes.push({ label: `tasks ${REBALANCE.tasks[1]}→${REBALANCE.tasks[0]}`, atMs: Date.now() });
        await putConfig(p, name, config(REBALANCE.tasks[0]));
      },
    });
    await p.stop();
    const note = PROTOCOL_NOTE.exec(p.log())?.[0];
    const via =
      side === 'connect'
        ? 'Kafka Connect standalone 4.4 (ConnectStandalone), SleepSinkConnector, classic group'
        : `sharesink standalone (CLI), bench/rebalance-sink.ts, consumer.override.group.protocol=${side}`;
    const row = rowFrom({
      side,
      phase: 'standalone',
      via,
      protocolNote: note,
      recordsDir,
      timeline,
      started,
    });
    ok = true;
    return row;
  } finally {
    await proc?.stop();
    if (ok) rmSync(dir, { recursive: true, force: true });
    else say(`[bench] rebalance ${side}: files kept in ${dir}`);
  }
}

/** One distributed side: workers A and B run 6 tasks; C is added; A is killed with SIGKILL. */
export async function distributedSide(ctx: BenchContext, side: Exclude<RebalanceSideName, 'connect'>) {
  const started = Date.now();
  const topic = ctx.topicName(`rebalance-dist-${side}`);
  await createTopic(ctx.brokers, topic, REBALANCE.partitions);
  ctx.createdTopics.push(topic);
  const dir = mkdtempSync(path.join(os.tmpdir(), `sharesink-rebalance-dist-${side}-`));
  const recordsDir = path.join(dir, 'records');
  const name = `rebalance-dist-${side}-${ctx.runId}`;
  const groupId = `bench-${ctx.runId}-rebalance-workers-${side}`;
  ctx.createdTopics.push(`${groupId}-configs`, `${groupId}-status`);
  const extra = {
    'session.timeout.ms': String(REBALANCE.sessionTimeoutMs),
    'heartbeat.interval.ms': '3000',
    // Connect's default (5 minutes) would hold a dead worker's tasks for the whole run
    'scheduled.rebalance.max.delay.ms': '0',
  };
  const workers: Proc[] = [];
  const worker = (n: string) =>
    sharesinkDistributedWorker({ dir, name: n, brokers: ctx.brokers, groupId, extra }).then((w) => {
      workers.push(w);
      return w;
    });
  let ok = false;
  try {
    const [a, b] = await Promise.all([worker('A'), worker('B')]);
    if (side === 'share')
      await setGroupConfig(ctx.brokers, `connect-${name}`, {
        'share.session.timeout.ms': String(REBALANCE.sessionTimeoutMs),
      });
    const tasks = REBALANCE.tasks[1];
    const config = connectorConfig({ side, name, topic, tasks, recordsDir });
    const created = await rest(a.url, 'POST', '/connectors', { name, config });
    if (created.status !== 201)
      throw new Error(`POST /connectors → ${created.status}: ${JSON.stringify(created.json)}`);
    await waitForTasks(b, name, tasks);
    await sleep(2000);
    const [addAt, killAt] = REBALANCE.distributed.changesMs as [number, number];
    const timeline = await produceThrough({
      ctx,
      topic,
      produceAfterMs: REBALANCE.distributed.produceAfterMs,
      recordsDir,
      act: async (at, changes) => {
        await at(addAt);
        changes.push({ label: 'worker C added', atMs: Date.now() });
        await worker('C');
        await at(killAt);
        changes.push({ label: 'worker A killed (-9)', atMs: Date.now() });
        await a.kill9();
      },
    });
    const note = PROTOCOL_NOTE.exec(workers.map((w) => w.log()).join('\n'))?.[0];
    await Promise.all(workers.map((w) => w.stop()));
    const via = `sharesink distributed (CLI), 2 workers + 1 added − 1 killed, ${tasks} tasks, consumer.override.group.protocol=${side}`;
    const row = rowFrom({
      side,
      phase: 'distributed',
      via,
      protocolNote: note,
      recordsDir,
      timeline,
      started,
    });
    ok = true;
    return row;
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    if (ok) rmSync(dir, { recursive: true, force: true });
    else say(`[bench] rebalance distributed ${side}: files kept in ${dir}`);
  }
}

/** Scenario 11 (`--only=11`; part of the default plan). Fills results.scenarios.rebalance. */
export async function runRebalance(ctx: BenchContext): Promise<void> {
  if (!ctx.wants(11)) return;
  const { rate, basis } = rebalanceRate();
  const out: RebalanceResults = { plan: { ...REBALANCE, rate }, rateBasis: basis, rows: [] };
  ctx.results.scenarios.rebalance = out;
  const connectClasses = await ctx.step('rebalance: compile the Kafka Connect sink', async () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'sharesink-bench-connect-classes-'));
    await compileConnectPlugin(d);
    return d;
  });
  const sides: RebalanceSideName[] = ['classic', 'consumer', 'share', 'connect'];
  for (const side of sides) {
    if (side === 'connect' && !connectClasses) continue;
    const row = await ctx.measured(`rebalance standalone: ${side} (tasks 3 → 6 → 3)`, () =>
      standaloneSide(ctx, side, connectClasses),
    );
    if (row) out.rows.push(row);
  }
  for (const side of ['classic', 'consumer', 'share'] as const) {
    const row = await ctx.measured(`rebalance distributed: ${side} (worker added, worker killed)`, () =>
      distributedSide(ctx, side),
    );
    if (row) out.rows.push(row);
  }
}
