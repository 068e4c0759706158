/**
 * Diffs two benchmark result files: ratios first (comparable across machines), then every throughput
 * that both runs measured.
 *
 *   tsx bench/compare.ts bench/results/<old>.json bench/results/latest.json
 *
 * Absolute numbers from different runs are only comparable on the same machine under the same load;
 * the ratios were each measured against a baseline of their own run.
 */
import { readFileSync } from 'node:fs';
import type { BenchResults } from './results.js';

function load(file: string): BenchResults {
  return JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
}

/** Throughputs by a key that does not depend on topic names (those carry the run id). */
function throughputs(r: BenchResults): Map<string, number> {
  const m = new Map<string, number>();
  const s = r.scenarios;
  for (const c of s.ceiling)
    m.set(
      `drain ${c.recordSize}B×${c.partitions}p ${c.result.tool} c=${c.result.consumers}`,
      c.result.recordsPerSec,
    );
  for (const c of s.noop)
    m.set(`drain ${c.recordSize}B×${c.partitions}p sharesink ${c.mode} t=${c.tasks}`, c.result.recordsPerSec);
  for (const c of s.latency)
    m.set(`latency ${c.sinkMs}ms p=${c.partitions} ${c.mode} ${c.multiplier}×`, c.recordsPerSec);
  if (s.postgres?.sharesink) m.set('postgres sharesink', s.postgres.sharesink.recordsPerSec);
  if (s.postgres?.bare) m.set('postgres bare pg', s.postgres.bare.recordsPerSec);
  for (const c of s.runtimeCost)
    m.set(`cpu µs/record ${c.mode} p=${String(c.partitions)}`, Number(c.cpuUsPerRecord));
  for (const e of s.e2e) {
    const at = `${Math.round((e.fraction ?? 0.5) * 100)}%`;
    m.set(`e2e ${e.mode} at ${at} p50 ms`, e.p50Ms);
    m.set(`e2e ${e.mode} at ${at} p99 ms`, e.p99Ms);
  }
  return m;
}

function pct(a: number, b: number): string {
  if (!(a > 0) || !Number.isFinite(b)) return '–';
  const d = ((b - a) / a) * 100;
  return `${d >= 0 ? '+' : ''}${d.toFixed(1)}%`;
}

function fmt(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(3);
}

export function compare(a: BenchResults, b: BenchResults): string {
  const lines: string[] = [];
  const sha = (r: BenchResults) => ((r.versions.sharesink as { gitSha?: string })?.gitSha ?? '').slice(0, 10);
  lines.push(`A: ${a.startedAt} ${a.mode} ${sha(a)}    B: ${b.startedAt} ${b.mode} ${sha(b)}`);
  if (a.mode !== b.mode)
    lines.push('note: the runs used different modes (short/full): counts and windows differ');
  lines.push('');
  lines.push('| ratio | A | B | change |');
  lines.push('|---|---|---|---|');
  for (const k of new Set([...Object.keys(a.ratios), ...Object.keys(b.ratios)])) {
    const va = a.ratios[k] ?? null;
    const vb = b.ratios[k] ?? null;
    lines.push(`| ${k} | ${fmt(va)} | ${fmt(vb)} | ${va !== null && vb !== null ? pct(va, vb) : '–'} |`);
  }
  lines.push('');
  lines.push('| measurement | A | B | change |');
  lines.push('|---|---|---|---|');
  const ta = throughputs(a);
  const tb = throughputs(b);
  for (const k of new Set([...ta.keys(), ...tb.keys()])) {
    const va = ta.get(k);
    const vb = tb.get(k);
    lines.push(
      `| ${k} | ${fmt(va)} | ${fmt(vb)} | ${va !== undefined && vb !== undefined ? pct(va, vb) : '–'} |`,
    );
  }
  return lines.join('\n');
}

const [fileA, fileB] = process.argv.slice(2);
if (!fileA || !fileB) {
  process.stderr.write('usage: tsx bench/compare.ts <a.json> <b.json>\n');
  process.exit(2);
}
process.stdout.write(`${compare(load(fileA), load(fileB))}\n`);
