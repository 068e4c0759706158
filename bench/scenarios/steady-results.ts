/**
 * Scenario 8's plan, rows and results as data: the ratios, the targets and the report section. Apart
 * from the runner (steady.ts) so that results.ts and report.ts read them without importing the runner.
 */
import { ratio, round } from '../common.js';

/** records/s the fractions are taken of, unless --steady-max-rate: about the slower 1-consumer drain. */
export const STEADY_MAX_RATE = 60_000;

export interface SteadyPlan {
  readonly partitions: readonly number[];
  readonly fractions: readonly number[];
  readonly recordSize: number;
  readonly warmupMs: number;
  readonly windowMs: number;
}

export const STEADY_PLAN: SteadyPlan = {
  partitions: [1, 4],
  fractions: [0.5, 0.25],
  recordSize: 200,
  // long enough for a start-up backlog (the first puts load the sink in the pool threads) to be caught
  // up at 50 % load on a busy 2-core machine: 4 s was not (rows at 30,000/s caught up inside the window)
  warmupMs: 10000,
  windowMs: 8000,
};

/**
 * `sharesink-event-loop` is sharesink tuned (`put.placement=event-loop`, ADR 0013): its ratios carry
 * the suffix `EventLoop` and no goal is judged on them; the goals are judged on the defaults.
 */
export type SteadySide = 'sharesink' | 'sharesink-event-loop' | 'ShareConsumerPerformance' | 'java-peer';

/** How a side is named in the report: a tuned side says what it tunes. */
export function sideLabel(side: SteadySide): string {
  return side === 'sharesink-event-loop' ? 'sharesink, tuned: put.placement=event-loop' : side;
}

export interface SteadyRow {
  readonly side: SteadySide;
  readonly partitions: number;
  readonly consumers: number;
  readonly fraction: number;
  readonly targetRecordsPerSec: number;
  /** Records done in the window ÷ its length (sharesink: acknowledged; Java: polled). */
  readonly recordsPerSec: number;
  readonly windowMs: number;
  /** /proc/<pid>/stat utime + stime over the window, per record. */
  readonly cpuUsPerRecord: number | null;
  readonly cpuCores: number | null;
  readonly rssMb: number | null;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  readonly latencySamples: number | null;
  /** Busy cores of the whole machine over the window (sharesink rows) and the load average at the start. */
  readonly machineBusyCores: number | null;
  readonly loadAverage1m: number;
  /** Time from the process's launch to its first record (sharesink: from Worker.start()). */
  readonly firstRecordMs: number | null;
  readonly detail: Record<string, unknown>;
}

/** A row kept up when it did within this fraction of the target rate (else a backlog or a starved process). */
export const KEPT_UP = 0.15;

export function keptUp(r: SteadyRow): boolean {
  return Math.abs(r.recordsPerSec - r.targetRecordsPerSec) <= KEPT_UP * r.targetRecordsPerSec;
}

export interface SteadyResults {
  readonly plan: SteadyPlan;
  readonly maxRecordsPerSec: number;
  readonly maxRateBasis: string;
  readonly rows: SteadyRow[];
}

// ------------------------------------------------------------------------------------------ ratios

export function steadyRatios(s: SteadyResults | undefined): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  if (!s) return out;
  const find = (side: SteadySide, p: number, f: number) =>
    s.rows.find((r) => r.side === side && r.partitions === p && r.fraction === f);
  const gm = (v: Array<number | null>) => {
    const ok = v.filter((x): x is number => x !== null && x > 0);
    return ok.length === 0 ? null : round(Math.exp(ok.reduce((a, x) => a + Math.log(x), 0) / ok.length), 3);
  };
  for (const [side, suffix] of [
    ['sharesink', ''],
    ['sharesink-event-loop', 'EventLoop'],
  ] as const) {
    // a run without tuned rows (an older results file) gives no tuned ratios
    if (suffix !== '' && !s.rows.some((r) => r.side === side)) continue;
    for (const f of s.plan.fractions) {
      const pct = Math.round(f * 100);
      const vsScp: Array<number | null> = [];
      const vsPeer: Array<number | null> = [];
      const p99: Array<number | null> = [];
      const p50: Array<number | null> = [];
      for (const p of s.plan.partitions) {
        // a side that did not keep up with the producer measured a backlog or a starved process: no ratio
        const kept = (r: SteadyRow | undefined) => (r !== undefined && keptUp(r) ? r : undefined);
        const ss = kept(find(side, p, f));
        const scp = kept(find('ShareConsumerPerformance', p, f));
        const jp = kept(find('java-peer', p, f));
        const a = ratio(ss?.cpuUsPerRecord, scp?.cpuUsPerRecord);
        const b = ratio(ss?.cpuUsPerRecord, jp?.cpuUsPerRecord);
        const c = ratio(ss?.p99Ms, jp?.p99Ms);
        const d = ratio(ss?.p50Ms, jp?.p50Ms);
        out[`cpuPerRecordVsJavaAt${pct}pct${suffix}_p${p}`] = a;
        out[`cpuPerRecordVsJavaPeerAt${pct}pct${suffix}_p${p}`] = b;
        out[`e2eP99VsJavaAt${pct}pct${suffix}_p${p}`] = c;
        vsScp.push(a);
        vsPeer.push(b);
        p99.push(c);
        p50.push(d);
      }
      out[`cpuPerRecordVsJavaAt${pct}pct${suffix}`] = gm(vsScp);
      out[`cpuPerRecordVsJavaPeerAt${pct}pct${suffix}`] = gm(vsPeer);
      out[`e2eP99VsJavaAt${pct}pct${suffix}`] = gm(p99);
      out[`e2eP50VsJavaAt${pct}pct${suffix}`] = gm(p50);
    }
  }
  return out;
}

export function steadyTargets(
  ratios: Record<string, number | null>,
): Record<string, { value: number | null; target: number; met: boolean | null }> {
  const atMost = (value: number | null | undefined, goal: number) => ({
    value: value ?? null,
    target: goal,
    met: value === null || value === undefined ? null : value <= goal,
  });
  return {
    'steady 50 %: CPU per record ≤ ShareConsumerPerformance (ratio ≤ 1)': atMost(
      ratios.cpuPerRecordVsJavaAt50pct,
      1,
    ),
    'steady 25 %: CPU per record ≤ ShareConsumerPerformance (ratio ≤ 1)': atMost(
      ratios.cpuPerRecordVsJavaAt25pct,
      1,
    ),
    'steady 50 %: end-to-end p99 ≤ the Java peer': atMost(ratios.e2eP99VsJavaAt50pct, 1),
    'steady 25 %: end-to-end p99 ≤ the Java peer': atMost(ratios.e2eP99VsJavaAt25pct, 1),
  };
}

// ------------------------------------------------------------------------------------------ report

export function renderSteady(s: SteadyResults): string[] {
  const n = (v: number | null | undefined, d = 0) =>
    v === null || v === undefined || !Number.isFinite(v)
      ? '–'
      : v.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const out = [
    '',
    `## 8. Steady rate (${s.plan.recordSize} B records; ${s.plan.warmupMs / 1000} s warm-up, ${s.plan.windowMs / 1000} s window; whole-process CPU from /proc)`,
    '',
    `Maximum rate basis: ${s.maxRateBasis}.`,
    '',
    '| partitions = consumers | load | side | target /s | done /s | CPU µs/record | CPU cores | RSS | p50 / p99 | machine busy cores | load avg |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of s.rows) {
    out.push(
      `| ${r.partitions} | ${Math.round(r.fraction * 100)}% | ${sideLabel(r.side)}${keptUp(r) ? '' : ' ‡'} | ${n(r.targetRecordsPerSec)} | ${n(r.recordsPerSec)} | ` +
        `${n(r.cpuUsPerRecord, 2)} | ${n(r.cpuCores, 2)} | ${n(r.rssMb)} MB | ` +
        `${r.p50Ms === null ? '–' : `${r.p50Ms} / ${r.p99Ms} ms`} | ${n(r.machineBusyCores, 2)} | ${n(r.loadAverage1m, 2)} |`,
    );
  }
  out.push('');
  out.push(
    `‡ did not keep up: done/s more than ${KEPT_UP * 100}% off the target (a backlog being caught up, or a starved process); ` +
      'its CPU per record and latency are not a steady-rate measurement.',
  );
  return out;
}
