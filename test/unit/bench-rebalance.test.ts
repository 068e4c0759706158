// bench/rebalance-analysis.ts and bench/scenarios/rebalance-results.ts: the rebalance scenario's write
// logs, samples, longest wait, duplicates, time to full rate, and its ratios.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  analyzeRebalance,
  parseWriteLog,
  unwrittenCount,
  unwrittenFromSends,
  writeLogLine,
  type WrittenRecord,
} from '../../bench/rebalance-analysis.js';
import { WriteLogTail } from '../../bench/rebalance-data.js';
import {
  rebalanceMarkdown,
  rebalanceRatios,
  rebalanceSvg,
  type RebalanceResults,
  type RebalanceRow,
} from '../../bench/scenarios/rebalance-results.js';

const T0 = 1_000_000;

/**
 * One record per partition every 10 ms from T0 to T0 + `ms`, written `latency` ms after it was
 * produced, except partition `stalled` between `from` and `to` (its records wait for `to`).
 */
function stream(o: {
  ms: number;
  partitions: number;
  latency: number;
  stall?: { p: number; from: number; to: number };
}) {
  const out: WrittenRecord[] = [];
  const offsets = new Array<number>(o.partitions).fill(0);
  for (let t = 0; t < o.ms; t += 10)
    for (let p = 0; p < o.partitions; p++) {
      const createMs = T0 + t;
      let writeMs = createMs + o.latency;
      const s = o.stall;
      if (s && p === s.p && writeMs > T0 + s.from && t < s.to) writeMs = Math.max(writeMs, T0 + s.to);
      out.push({ partition: p, offset: offsets[p]!++, createMs, writeMs });
    }
  return out;
}

describe('the write log', () => {
  it('round-trips a put line and skips other lines and a partial last line', () => {
    const text =
      writeLogLine(1700, [
        [0, 5, 1600],
        [3, 9, 1650],
      ]) +
      '1700000 2\nopen 17 2\n' +
      writeLogLine(1800, [[1, 0, 1790]]) +
      'r 1900 2:4:';
    expect(parseWriteLog(text)).toEqual([
      { partition: 0, offset: 5, createMs: 1600, writeMs: 1700 },
      { partition: 3, offset: 9, createMs: 1650, writeMs: 1700 },
      { partition: 1, offset: 0, createMs: 1790, writeMs: 1800 },
    ]);
  });

  it('counts the records never written from the end offsets', () => {
    const records = parseWriteLog(
      writeLogLine(10, [
        [0, 0, 1],
        [0, 1, 1],
        [0, 1, 1],
        [1, 0, 2],
      ]),
    );
    expect(
      unwrittenCount(
        records,
        new Map([
          [0, 3],
          [1, 1],
          [2, 2],
        ]),
      ),
    ).toBe(1 + 0 + 2);
  });
});

describe('following the write logs', () => {
  it('parses each whole line once, and a line finished later on the next read', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-tail-'));
    try {
      const tail = new WriteLogTail(path.join(dir, 'records'));
      expect(tail.read()).toEqual([]); // no directory yet
      const a = path.join(dir, 'records', 'a.txt');
      const b = path.join(dir, 'records', 'b.txt');
      mkdirSync(path.join(dir, 'records'));
      appendFileSync(a, writeLogLine(10, [[0, 0, 5]]) + 'r 20 0:1');
      appendFileSync(b, writeLogLine(11, [[1, 0, 6]]));
      expect(tail.read().map((r) => r.offset)).toEqual([0, 0]);
      appendFileSync(a, ':15\n' + writeLogLine(30, [[0, 2, 25]]));
      expect(tail.read()).toEqual([
        { partition: 0, offset: 1, createMs: 15, writeMs: 20 },
        { partition: 0, offset: 2, createMs: 25, writeMs: 30 },
      ]);
      expect(tail.read()).toEqual([]);
      expect(tail.records).toHaveLength(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sampling a run', () => {
  it('counts writes and productions per interval and the steady wait', () => {
    const a = analyzeRebalance({
      records: stream({ ms: 2000, partitions: 2, latency: 50 }),
      startMs: T0,
      endMs: T0 + 2100,
      changes: [],
    });
    expect(a.samples).toHaveLength(21);
    // 10 records per partition per 100 ms
    expect(a.samples[5]).toMatchObject({ tMs: 600, written: 20, produced: 20 });
    // at 600 ms the record of 550 was written at 600; the oldest unwritten one is that of 560
    for (const s of a.samples.slice(0, 20)) expect(s.maxWaitMs).toBe(40);
    expect(a.samples[20]!.maxWaitMs).toBe(0);
    expect(a.longestWaitMs).toBe(40);
    expect(a.duplicates).toBe(0);
    expect(a.distinct).toBe(400);
  });

  it('measures a stalled partition as the longest wait, with the time to full rate and to caught up', () => {
    const records = stream({ ms: 10_000, partitions: 3, latency: 50, stall: { p: 1, from: 3000, to: 5000 } });
    const a = analyzeRebalance({
      records,
      startMs: T0,
      endMs: T0 + 10_100,
      changes: [
        { label: 'scale', atMs: T0 + 2500 },
        { label: 'back', atMs: T0 + 8000 },
      ],
      measureFromMs: T0 + 1000,
    });
    // partition 1's record produced at 2,960 ms (due at 3,010) is written at 5,000: at the sample of
    // 4,900 ms it has waited 1,940 ms; at 5,000 it is written
    expect(a.longestWaitMs).toBe(1940);
    const [scale, back] = a.changes;
    expect(scale).toMatchObject({
      label: 'scale',
      atMs: 2500,
      longestWaitMs: 1940,
      peakAtMs: 4900,
      recovered: true,
    });
    // caught up at the sample after the peak; the trailing second holds a third fewer writes than
    // productions until the catch-up burst written at 5,000 ms, counted in the interval ending at 5,100
    expect(scale!.timeToCaughtUpMs).toBe(5000 - 2500);
    expect(scale!.timeToFullRateMs).toBe(5100 - 2500);
    expect(back).toMatchObject({
      longestWaitMs: 40,
      timeToFullRateMs: 0,
      timeToCaughtUpMs: 0,
      recovered: true,
    });
    expect(a.steadyWaitP50Ms).toBe(40);
  });

  it('leaves a start-up wait before measureFromMs out of the longest wait', () => {
    const records = stream({ ms: 6000, partitions: 2, latency: 50, stall: { p: 0, from: 0, to: 1500 } });
    const a = analyzeRebalance({
      records,
      startMs: T0,
      endMs: T0 + 6000,
      changes: [],
      measureFromMs: T0 + 2000,
    });
    expect(a.longestWaitMs).toBe(40);
    expect(a.samples.some((s) => s.maxWaitMs > 1000)).toBe(true);
  });

  it('counts records written twice, and the first write is the one that ends the wait', () => {
    const records = stream({ ms: 1000, partitions: 1, latency: 20 });
    const again = records.slice(10, 15).map((r) => ({ ...r, writeMs: r.writeMs + 3000 }));
    const a = analyzeRebalance({
      records: [...again, ...records],
      startMs: T0,
      endMs: T0 + 4500,
      changes: [],
    });
    expect(a.writes).toBe(105);
    expect(a.distinct).toBe(100);
    expect(a.duplicates).toBe(5);
    expect(a.recordsWrittenTwice).toBe(5);
    expect(a.longestWaitMs).toBeLessThanOrEqual(20);
    // the second writes land in the interval ending at 3,200 ms (written at 3,120–3,160)
    expect(a.samples[31]!.written).toBe(5);
  });

  it('says a change never recovered when the stall outlasts its segment', () => {
    const records = stream({ ms: 5000, partitions: 2, latency: 50, stall: { p: 0, from: 2000, to: 4800 } });
    const a = analyzeRebalance({
      records,
      startMs: T0,
      endMs: T0 + 5000,
      changes: [
        { label: 'kill', atMs: T0 + 2000 },
        { label: 'next', atMs: T0 + 4000 },
      ],
    });
    expect(a.changes[0]).toMatchObject({ recovered: false, timeToFullRateMs: 2000, timeToCaughtUpMs: 2000 });
  });
});

describe("the producer's sends", () => {
  it('give the produced counts, and the records never written wait until the end', () => {
    // 2 partitions; sends of 4 records at 0, 100, 200 ms: partition 0 gets offsets 0..5 at 0,0,100,100,200,200
    const sends: Array<[number, number]> = [
      [T0, 4],
      [T0 + 100, 4],
      [T0 + 200, 4],
    ];
    const all: WrittenRecord[] = [];
    const next = [0, 0];
    sends.forEach(([t, n], s) => {
      for (let k = 0; k < n; k++) {
        const p = (s * 4 + k) % 2;
        all.push({ partition: p, offset: next[p]!++, createMs: t, writeMs: t + 50 });
      }
    });
    // partition 1, offset 3 (sent at 100 ms) is never written
    const records = all.filter((r) => !(r.partition === 1 && r.offset === 3));
    const unwritten = unwrittenFromSends(records, sends, 2);
    expect(unwritten).toEqual([T0 + 100]);
    const a = analyzeRebalance({
      records,
      startMs: T0,
      endMs: T0 + 1000,
      changes: [],
      produced: sends,
      unwritten,
    });
    expect(a.samples.slice(0, 3).map((x) => x.produced)).toEqual([4, 4, 4]);
    expect(a.samples[9]!.maxWaitMs).toBe(900);
    expect(a.longestWaitMs).toBe(900);
  });
});

function row(side: RebalanceRow['side'], phase: RebalanceRow['phase'], longestWaitMs: number): RebalanceRow {
  return {
    side,
    phase,
    via: side,
    settled: true,
    settleMs: 9000,
    protocolNote:
      side === 'consumer' ? 'consumer.override.group.protocol=consumer: read as classic' : undefined,
    targetRecordsPerSec: 3000,
    produced: 100,
    writes: 100,
    distinct: 100,
    duplicates: 0,
    recordsWrittenTwice: 0,
    missing: 0,
    longestWaitMs,
    steadyWaitP50Ms: 80,
    changes: [
      {
        label: 'tasks 3→6',
        atMs: 9000,
        longestWaitMs,
        peakAtMs: 11_000,
        timeToFullRateMs: 2000,
        timeToCaughtUpMs: 2500,
        recovered: true,
      },
    ],
    intervalMs: 100,
    written: [0, 10, 20, 30],
    producedPerInterval: [10, 10, 10, 10],
    maxWaitMs: [0, 50, 60, 70],
    peakRecordsPerSec: 6000,
    loadAverage: [1, 2, 3],
    wallS: 70,
  };
}

describe('the rebalance results', () => {
  const results: RebalanceResults = {
    plan: {},
    rateBasis: 'test',
    rows: [
      row('classic', 'standalone', 4000),
      row('consumer', 'standalone', 3000),
      row('share', 'standalone', 1000),
      row('connect', 'standalone', 5000),
      row('classic', 'distributed', 12_000),
      row('share', 'distributed', 6000),
    ],
  };

  it('gives the longest-wait ratios, below 1 when the first side waited less', () => {
    expect(rebalanceRatios(results)).toEqual({
      rebalancePauseShareVsClassic: 0.25,
      rebalancePauseConsumerVsClassic: 0.75,
      rebalancePauseShareVsConnect: 0.2,
      rebalancePauseShareVsClassicDistributed: 0.5,
      rebalancePauseConsumerVsClassicDistributed: null,
    });
    expect(rebalanceRatios(undefined)).toEqual({});
  });

  it('renders a table per phase, marks a protocol read as another, and plots each phase', () => {
    const md = rebalanceMarkdown(results).join('\n');
    expect(md).toContain('| standalone | longest wait');
    expect(md).toContain('| distributed | longest wait');
    expect(md).toContain('| consumer † | 3 s |');
    expect(md).toContain(
      '† consumer (standalone): consumer.override.group.protocol=consumer: read as classic',
    );
    const svg = rebalanceSvg(results, 'standalone')!;
    // a panel per side, each with its written and produced lines
    expect(svg.match(/<g transform=/g)).toHaveLength(4);
    expect(svg.match(/<polyline/g)).toHaveLength(8);
    expect(svg).toContain('standalone: consumer † (read as classic), longest wait 3 s');
    expect(svg).toContain('tasks 3→6');
    expect(rebalanceSvg({ ...results, rows: [] }, 'distributed')).toBeUndefined();
  });
});
