/**
 * Scenario 11 (rebalance) as data: one row per side and phase, the ratios that go into the results'
 * `ratios` (longest wait, share and consumer ÷ classic, share ÷ Kafka Connect), its Markdown section and
 * its plots (bench/svg-plot.ts). The runner is bench/scenarios/rebalance.ts.
 */
import { ratio, round } from '../common.js';
import type { ChangeResult } from '../rebalance-analysis.js';
import { PALETTE, stackedChartsSvg } from '../svg-plot.js';

export type RebalanceSideName = 'classic' | 'consumer' | 'share' | 'connect';
export type RebalancePhase = 'standalone' | 'distributed';

export interface RebalanceRow {
  readonly side: RebalanceSideName;
  readonly phase: RebalancePhase;
  readonly via: string;
  /** Whether the longest wait had settled before the first change (else the settle time ran out). */
  readonly settled: boolean;
  /** The producer's launch → the first change. */
  readonly settleMs: number;
  /** What the side's log said about its protocol (e.g. `group.protocol=consumer` read as classic). */
  readonly protocolNote: string | undefined;
  readonly targetRecordsPerSec: number;
  readonly produced: number;
  readonly writes: number;
  readonly distinct: number;
  /** Writes beyond a record's first. */
  readonly duplicates: number;
  readonly recordsWrittenTwice: number;
  /** Produced and never written by the end of the drain. */
  readonly missing: number;
  readonly longestWaitMs: number;
  readonly steadyWaitP50Ms: number;
  readonly changes: ChangeResult[];
  readonly intervalMs: number;
  /** Per interval, from the producer's launch: records written, produced, the longest wait (ms). */
  readonly written: number[];
  readonly producedPerInterval: number[];
  readonly maxWaitMs: number[];
  /** The rate the written count peaked at over 1 s (catching up after a pause: the drain rate seen). */
  readonly peakRecordsPerSec: number;
  readonly loadAverage: number[];
  readonly wallS: number;
}

export interface RebalanceResults {
  readonly plan: Record<string, unknown>;
  readonly rateBasis: string;
  readonly rows: RebalanceRow[];
}

const longest = (r: RebalanceResults | undefined, phase: RebalancePhase, side: RebalanceSideName) =>
  r?.rows.find((x) => x.phase === phase && x.side === side)?.longestWaitMs;

/** Longest wait ratios (below 1 = shorter), standalone (the headline names) and distributed (`…Distributed`). */
export function rebalanceRatios(r: RebalanceResults | undefined): Record<string, number | null> {
  if (!r) return {};
  const out: Record<string, number | null> = {};
  for (const [phase, suffix] of [
    ['standalone', ''],
    ['distributed', 'Distributed'],
  ] as const) {
    if (!r.rows.some((x) => x.phase === phase)) continue;
    const classic = longest(r, phase, 'classic');
    out[`rebalancePauseShareVsClassic${suffix}`] = ratio(longest(r, phase, 'share'), classic);
    out[`rebalancePauseConsumerVsClassic${suffix}`] = ratio(longest(r, phase, 'consumer'), classic);
    if (phase === 'standalone')
      out.rebalancePauseShareVsConnect = ratio(longest(r, phase, 'share'), longest(r, phase, 'connect'));
  }
  return out;
}

const s = (ms: number) => `${round(ms / 1000, 1)} s`;

export function rebalanceMarkdown(r: RebalanceResults | undefined): string[] {
  if (!r || r.rows.length === 0) return [];
  const out = [
    '## Rebalance (scenario 11)',
    '',
    `Rate: ${r.rateBasis}. Longest wait = max over partitions of (now − CreateTime of its oldest record not yet written), sampled every ${r.rows[0]!.intervalMs} ms; full rate = trailing 1 s written ≥ 90 % of produced, caught up = longest wait back ≤ 1 s, both from the change and after the wait's peak (bench/README.md).`,
    '',
  ];
  for (const phase of ['standalone', 'distributed'] as const) {
    const rows = r.rows.filter((x) => x.phase === phase);
    if (rows.length === 0) continue;
    const labels = rows[0]!.changes.map((c) => c.label);
    out.push(
      `| ${phase} | longest wait | steady wait p50 | ${labels.map((l) => `${l}: longest wait / to full rate / to caught up`).join(' | ')} | written / produced | written twice | missing | load avg |`,
      `|---|---|---|${labels.map(() => '---|').join('')}---|---|---|---|`,
    );
    for (const x of rows) {
      const cells = x.changes.map(
        (c) =>
          `${s(c.longestWaitMs)} / ${s(c.timeToFullRateMs)} / ${s(c.timeToCaughtUpMs)}${c.recovered ? '' : ' (not recovered)'}`,
      );
      out.push(
        `| ${x.side}${x.protocolNote ? ' †' : ''}${x.settled ? '' : ' (not settled)'} | ${s(x.longestWaitMs)} | ${s(x.steadyWaitP50Ms)} | ${cells.join(' | ')} | ${x.distinct} / ${x.produced} | ${x.recordsWrittenTwice} | ${x.missing} | ${x.loadAverage.join(' ')} |`,
      );
    }
    for (const x of rows.filter((y) => y.protocolNote))
      out.push('', `† ${x.side} (${phase}): ${x.protocolNote}`);
    out.push('');
  }
  return out;
}

/**
 * The records-per-interval plot of one phase: a panel per side (written per interval, and produced in
 * grey), on one x axis in seconds from each side's first change, its changes marked.
 */
export function rebalanceSvg(r: RebalanceResults | undefined, phase: RebalancePhase): string | undefined {
  const rows = r?.rows.filter((x) => x.phase === phase) ?? [];
  if (rows.length === 0) return undefined;
  const iv = rows[0]!.intervalMs;
  // one y scale for every panel, set by what was written (a burst of production is cut at it)
  const yMax = Math.max(1, ...rows.map((x) => Math.max(0, ...x.written)));
  return stackedChartsSvg(
    rows.map((x, i) => {
      // every side on its own clock, from its first change (each side settles in its own time first)
      const origin = x.changes[0]?.atMs ?? 0;
      const at = (k: number) => ((k + 1) * iv - origin) / 1000;
      return {
        title: `${phase}: ${x.side}${x.protocolNote ? ' † (read as classic)' : ''}${x.settled ? '' : ' (not settled)'}, longest wait ${s(x.longestWaitMs)}, ${x.recordsWrittenTwice} written twice`,
        xLabel: 's since the first change',
        yLabel: `records per ${iv} ms`,
        yMax,
        series: [
          {
            name: 'written',
            colour: PALETTE[i % PALETTE.length]!,
            points: x.written.map((w, k) => [at(k), w] as const),
          },
          {
            name: `produced (${x.targetRecordsPerSec}/s)`,
            colour: '#9a9a9a',
            points: x.producedPerInterval.map((w, k) => [at(k), w] as const),
          },
        ],
        markers: x.changes.map((c) => ({ x: (c.atMs - origin) / 1000, label: c.label })),
      };
    }),
  );
}
