// Bench scenario 8 (bench/scenarios/steady.ts): which rows count, the ratios, and the latency read from
// the steady sink's per-second histograms.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  keptUp,
  STEADY_PLAN,
  steadyRatios,
  type SteadyRow,
  type SteadySide,
} from '../../bench/scenarios/steady-results.js';
import { readHistograms } from '../../bench/scenarios/steady.js';

const row = (side: SteadySide, partitions: number, fraction: number, o: Partial<SteadyRow>): SteadyRow => ({
  side,
  partitions,
  consumers: partitions,
  fraction,
  targetRecordsPerSec: 10_000,
  recordsPerSec: 10_000,
  windowMs: 8000,
  cpuUsPerRecord: 10,
  cpuCores: 0.1,
  rssMb: 100,
  p50Ms: null,
  p99Ms: null,
  latencySamples: null,
  machineBusyCores: 1,
  loadAverage1m: 1,
  firstRecordMs: 1000,
  detail: {},
  ...o,
});

describe('steady-rate scenario', () => {
  it('a row kept up within 15 % of its target rate', () => {
    expect(keptUp(row('sharesink', 1, 0.5, { recordsPerSec: 11_400 }))).toBe(true);
    expect(keptUp(row('sharesink', 1, 0.5, { recordsPerSec: 11_600 }))).toBe(false);
    expect(keptUp(row('sharesink', 1, 0.5, { recordsPerSec: 8_400 }))).toBe(false);
  });

  it('ratios are sharesink ÷ Java per partition count, geomean over them, none from a row that fell behind', () => {
    const rows = [
      row('sharesink', 1, 0.5, { cpuUsPerRecord: 8, p50Ms: 4, p99Ms: 20 }),
      row('ShareConsumerPerformance', 1, 0.5, { cpuUsPerRecord: 16 }),
      row('java-peer', 1, 0.5, { cpuUsPerRecord: 10, p50Ms: 5, p99Ms: 10 }),
      row('sharesink', 4, 0.5, { cpuUsPerRecord: 18 }),
      row('ShareConsumerPerformance', 4, 0.5, { cpuUsPerRecord: 9 }),
      // a backlog: no peer ratio at 4 partitions
      row('java-peer', 4, 0.5, { cpuUsPerRecord: 9, recordsPerSec: 20_000, p99Ms: 1 }),
    ];
    const r = steadyRatios({ plan: STEADY_PLAN, maxRecordsPerSec: 20_000, maxRateBasis: 'test', rows });
    expect(r.cpuPerRecordVsJavaAt50pct_p1).toBe(0.5);
    expect(r.cpuPerRecordVsJavaAt50pct_p4).toBe(2);
    expect(r.cpuPerRecordVsJavaAt50pct).toBe(1);
    expect(r.cpuPerRecordVsJavaPeerAt50pct_p4).toBeNull();
    expect(r.cpuPerRecordVsJavaPeerAt50pct).toBe(0.8);
    expect(r.e2eP99VsJavaAt50pct).toBe(2);
    expect(r.e2eP50VsJavaAt50pct).toBe(0.8);
    expect(r.cpuPerRecordVsJavaAt25pct).toBeNull();
  });

  it('a tuned sharesink side (put.placement=event-loop) gets its own ratios, suffixed, and leaves the defaults alone', () => {
    const java = [
      row('ShareConsumerPerformance', 1, 0.5, { cpuUsPerRecord: 10 }),
      row('java-peer', 1, 0.5, { cpuUsPerRecord: 10, p50Ms: 5, p99Ms: 10 }),
    ];
    const defaults = [row('sharesink', 1, 0.5, { cpuUsPerRecord: 12, p50Ms: 5, p99Ms: 10 })];
    const tuned = [row('sharesink-event-loop', 1, 0.5, { cpuUsPerRecord: 9, p50Ms: 5, p99Ms: 8 })];
    const results = (rows: SteadyRow[]) =>
      steadyRatios({ plan: STEADY_PLAN, maxRecordsPerSec: 20_000, maxRateBasis: 'test', rows });
    const r = results([...java, ...defaults, ...tuned]);
    expect(r.cpuPerRecordVsJavaAt50pct).toBe(1.2);
    expect(r.cpuPerRecordVsJavaAt50pctEventLoop).toBe(0.9);
    expect(r.e2eP99VsJavaAt50pctEventLoop).toBe(0.8);
    expect(results([...java, ...defaults])).not.toHaveProperty('cpuPerRecordVsJavaAt50pctEventLoop');
  });

  it('latency percentiles come from the whole seconds inside the window only', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'steady-test-'));
    try {
      // seconds 100..102: 100 and 102 are cut by the window [100.5 s, 102.5 s)
      writeFileSync(
        path.join(dir, 'a.json'),
        JSON.stringify({
          100: [[900, 50]],
          101: [
            [3, 98],
            [40, 1],
          ],
        }),
      );
      writeFileSync(path.join(dir, 'b.json'), JSON.stringify({ 101: [[80, 1]], 102: [[700, 9]] }));
      const lat = readHistograms(dir, { from: 100_500, to: 102_500 });
      expect(lat).toEqual({ p50: 3, p99: 40, samples: 100 });
      expect(readHistograms(dir, { from: 110_000, to: 120_000 })).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
