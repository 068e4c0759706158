/**
 * Scenario 11's settings and the part of a side's run that every side shares: the steady producer,
 * the wait for the side to settle, the changes made on the way, the drain, and the side's row from
 * its write logs (bench/rebalance-analysis.ts). The sides themselves are in bench/scenarios/rebalance.ts.
 */
import os from 'node:os';
import { createTopic, kafkaClient, round, sleep } from '../common.js';
import type { BenchContext } from '../context.js';
import {
  analyzeRebalance,
  parseWriteLog,
  unwrittenCount,
  unwrittenFromSends,
  type WrittenRecord,
} from '../rebalance-analysis.js';
import { readWriteLogs, steadyProducer, WriteLogTail } from '../rebalance-data.js';
import type { RebalancePhase, RebalanceRow, RebalanceSideName } from './rebalance-results.js';

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
  /** Standalone: the 6 → 3 change this long after the 3 → 6 one; the producer stops `tailMs` after it. */
  standalone: { secondChangeMs: 12_000, tailMs: 12_000 },
  /**
   * Distributed: worker A is killed (SIGKILL) at least `secondChangeMs` after worker C was launched,
   * and only once C holds tasks and the side has settled again (at most `maxSettleMs` more); the
   * producer stops `tailMs` after the kill (a killed member's partitions wait for the session timeout).
   */
  distributed: { secondChangeMs: 20_000, tailMs: 25_000 },
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

export interface Timeline {
  readonly t0: number;
  /** When the first change was made: the side had settled (or the settle time was spent). */
  readonly settled: boolean;
  readonly changes: Array<{ label: string; atMs: number }>;
}

export type Produced = Timeline & {
  produced: number;
  /** The producer's sends: [CreateTime, records]. */
  sends: Array<[number, number]>;
  endMs: number;
  endOffsets: Map<number, number>;
};

/** Records every write log under `dir` holds, parsed. */
export function writtenSoFar(dir: string): WrittenRecord[] {
  const records: WrittenRecord[] = [];
  for (const text of readWriteLogs(dir)) parseWriteLog(text, records);
  return records;
}

/**
 * Whether the side has settled `t0`-relative: at least `minSettleMs` produced, and the longest wait
 * at or below `settledWaitMs` in every sample of the last `settleWindowMs`. Only the records written
 * in that window can have waited in it, so only those are sampled.
 */
function hasSettled(tail: WriteLogTail, t0: number): boolean {
  tail.read();
  const now = Date.now();
  if (now - t0 < REBALANCE.minSettleMs) return false;
  const from = now - REBALANCE.settleWindowMs;
  const a = analyzeRebalance({
    records: tail.records.filter((r) => r.writeMs > from),
    startMs: from,
    endMs: now,
    changes: [],
  });
  return a.samples.length > 0 && a.samples.every((x) => x.maxWaitMs <= REBALANCE.settledWaitMs);
}

/** What a side's changes can wait on: a time after the first change, or the side settling again. */
export interface Act {
  /** Until `ms` after the first change. */
  at(ms: number): Promise<void>;
  /** Until the side has settled (as before the first change; at most `maxSettleMs`): whether it did. */
  settle(): Promise<boolean>;
}

/**
 * Produces at the scenario's rate; once the side has settled (at most `maxSettleMs`), `act` makes the
 * changes, noting each in `changes`; the producer stops `tailMs` after `act` returns; then waits (at
 * most `drainTimeoutMs`) for every record to be written.
 */
export async function produceThrough(o: {
  ctx: BenchContext;
  topic: string;
  tailMs: number;
  recordsDir: string;
  act: (act: Act, changes: Timeline['changes']) => Promise<void>;
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
  const tail = new WriteLogTail(o.recordsDir);
  const settle = async (from: number) => {
    for (;;) {
      if (hasSettled(tail, from)) return true;
      if (Date.now() - from >= REBALANCE.maxSettleMs) return false;
      await sleep(1000);
    }
  };
  let produced: number;
  let settled: boolean;
  try {
    settled = await settle(t0);
    const first = Date.now();
    await o.act(
      { at: (ms) => sleep(Math.max(0, first + ms - Date.now())), settle: () => settle(Date.now()) },
      changes,
    );
    await sleep(o.tailMs);
  } finally {
    produced = await producer.stop();
  }
  const deadline = Date.now() + REBALANCE.drainTimeoutMs;
  const endOffsets = await topicEndOffsets(o.ctx.brokers, o.topic);
  const total = [...endOffsets.values()].reduce((a, b) => a + b, 0);
  const seen = new Set<string>();
  for (;;) {
    for (const r of tail.read()) seen.add(`${r.partition}:${r.offset}`);
    if (seen.size >= total || Date.now() > deadline) break;
    await sleep(500);
  }
  return { t0, settled, changes, produced, sends: producer.sends, endMs: Date.now(), endOffsets };
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

export function rowFrom(o: {
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
  const unwritten = unwrittenFromSends(records, timeline.sends, REBALANCE.partitions);
  // records never written wait until the drain's end; else the samples end a second after the last write
  const endMs = unwritten.length > 0 ? timeline.endMs : Math.min(timeline.endMs, lastWrite + 1000);
  const a = analyzeRebalance({
    records,
    startMs: timeline.t0,
    endMs,
    intervalMs: REBALANCE.intervalMs,
    changes: timeline.changes,
    produced: timeline.sends,
    unwritten,
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
/** Creates the side's topic, retried: under load the broker has answered a fresh topic's metadata with UNKNOWN_TOPIC_OR_PARTITION. */
export async function createSideTopic(ctx: BenchContext, topic: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await createTopic(ctx.brokers, topic, REBALANCE.partitions);
      break;
    } catch (err) {
      if (attempt >= 4) throw err;
      await sleep(1000 * attempt);
    }
  }
  ctx.createdTopics.push(topic);
}
