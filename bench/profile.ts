/**
 * Summarizes V8 CPU profiles (`node --cpu-prof`): the functions with the most self time per thread,
 * and self time by area of the code (sharesink modules, kafkajs, xstate, node internals, GC, idle).
 *
 *   tsx bench/profile.ts <dir with .cpuprofile files> [top=20]
 *
 * bench/run.ts --profile records one such summary in the results.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface CpuProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
}

interface CpuProfile {
  readonly nodes: readonly CpuProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ThreadProfile {
  readonly file: string;
  readonly thread: string;
  readonly totalMs: number;
  /** Time not idle (self time of everything but `(idle)`). */
  readonly busyMs: number;
  readonly top: Array<{ fn: string; where: string; selfMs: number; pctOfBusy: number }>;
  readonly byArea: Array<{ area: string; selfMs: number; pctOfBusy: number }>;
}

export interface ProfileSummary {
  readonly threads: ThreadProfile[];
  readonly run?: string;
  readonly recordsPerSec?: number;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function area(fn: string, url: string): string {
  if (fn === '(idle)') return 'idle';
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(program)') return 'V8/native (program)';
  if (url === '') return 'native/builtin';
  if (url.startsWith('node:')) return 'node internals';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1] === 'esbuild' || m[1] === 'tsx' || m[1] === 'get-tsconfig' ? 'tsx loader' : m[1]!;
  const src = /\/src\/(.+)\/[^/]+$/.exec(url);
  if (src) return `src/${src[1]}`;
  if (url.includes('/bench/')) return 'bench';
  return 'other';
}

function shortUrl(url: string): string {
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  return file.startsWith(ROOT) ? file.slice(ROOT.length) : file.replace(/^.*node_modules\//, '');
}

export function summarizeProfile(file: string, top = 20): ThreadProfile {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) {
    const id = p.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const byFn = new Map<string, { fn: string; where: string; us: number }>();
  const byArea = new Map<string, number>();
  let idle = 0;
  let total = 0;
  for (const [id, us] of selfUs) {
    const n = byId.get(id);
    if (!n) continue;
    const { functionName, url, lineNumber } = n.callFrame;
    const fn = functionName || '(anonymous)';
    total += us;
    if (fn === '(idle)') idle += us;
    const a = area(fn, url);
    byArea.set(a, (byArea.get(a) ?? 0) + us);
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
    const key = `${fn}@${where}`;
    const entry = byFn.get(key) ?? { fn, where, us: 0 };
    entry.us += us;
    byFn.set(key, entry);
  }
  const busy = total - idle;
  const pct = (us: number) => Math.round((us / Math.max(1, busy)) * 1000) / 10;
  const ms = (us: number) => Math.round(us / 100) / 10;
  const base = path.basename(file);
  // CPU.<date>.<time>.<pid>.<threadId>.<seq>.cpuprofile: thread 0 is the main thread
  const tid = base.split('.')[4];
  return {
    file: base,
    thread: tid === '0' ? 'main' : `worker thread ${tid}`,
    totalMs: ms(total),
    busyMs: ms(busy),
    top: [...byFn.values()]
      .filter((e) => e.fn !== '(idle)')
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => ({ fn: e.fn, where: e.where, selfMs: ms(e.us), pctOfBusy: pct(e.us) })),
    byArea: [...byArea.entries()]
      .filter(([a]) => a !== 'idle')
      .sort((a, b) => b[1] - a[1])
      .map(([a, us]) => ({ area: a, selfMs: ms(us), pctOfBusy: pct(us) })),
  };
}

export function summarizeProfiles(dir: string, top = 20): ProfileSummary {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  const threads = files.map((f) => summarizeProfile(path.join(dir, f), top));
  // busiest first: the main thread usually, then the pool threads
  threads.sort((a, b) => b.busyMs - a.busyMs);
  return { threads };
}

export function formatProfile(summary: ProfileSummary, maxThreads = 3): string {
  const lines: string[] = [];
  for (const t of summary.threads.slice(0, maxThreads)) {
    lines.push(`${t.thread} (${t.file}): busy ${t.busyMs} ms of ${t.totalMs} ms`);
    lines.push('  self time by area:');
    for (const a of t.byArea.slice(0, 12))
      lines.push(`    ${a.pctOfBusy.toFixed(1).padStart(5)}%  ${a.area}`);
    lines.push('  top functions by self time:');
    for (const f of t.top) lines.push(`    ${f.pctOfBusy.toFixed(1).padStart(5)}%  ${f.fn}  ${f.where}`);
  }
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: tsx bench/profile.ts <dir with .cpuprofile files> [top]\n');
    process.exit(2);
  }
  process.stdout.write(`${formatProfile(summarizeProfiles(dir, Number(process.argv[3] ?? 20)), 8)}\n`);
}
