/**
 * What a bench child reads about its own process over a measured window: CPU from /proc (the whole
 * process, and per thread with its wake-ups), RSS, the machine's busy time, and what held the main
 * thread up (garbage collection, event-loop delay).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { MainStalls, ThreadWindow } from './child-protocol.js';

export function cpuUs(): number {
  const c = process.cpuUsage();
  return c.user + c.system;
}

/** utime + stime of this whole process from /proc/self/stat, in µs (the source the Java side is read from). */
export function procCpuUs(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) / 100) * 1e6;
  } catch {
    return undefined;
  }
}

export type ThreadTicks = Map<string, { name: string; user: number; sys: number; wakes: number }>;

/**
 * utime and stime (µs) of every thread of this process, by thread id, with its name, and its voluntary
 * context switches: how often it went to sleep, so how often something had to wake it (/proc/self/task).
 */
export function threadTicks(): ThreadTicks {
  const out: ThreadTicks = new Map();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const status = readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
      const wakes = Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
      out.set(tid, { name, user: Number(f[11]) * 10_000, sys: Number(f[12]) * 10_000, wakes });
    }
  } catch {
    // not Linux
  }
  return out;
}

/**
 * CPU (µs) and wake-ups per thread over the window, grouped by thread name (the main thread apart), or
 * each thread apart (`name:tid`) with `byThread`: Node names its worker threads and V8's helpers alike.
 */
export function threadCpu(
  from: ThreadTicks,
  to: ThreadTicks,
  byThread = false,
): Record<string, ThreadWindow> {
  const out: Record<string, ThreadWindow> = {};
  for (const [tid, b] of to) {
    const a = from.get(tid) ?? { user: 0, sys: 0, wakes: 0 };
    const key = tid === String(process.pid) ? 'main' : byThread ? `${b.name}:${tid}` : b.name;
    const e = (out[key] ??= { user: 0, sys: 0, wakes: 0, threads: 0 });
    e.user += b.user - a.user;
    e.sys += b.sys - a.sys;
    e.wakes += b.wakes - a.wakes;
    e.threads++;
  }
  return out;
}

/** VmRSS of this process from /proc/self/status, in MB. */
export function procRssMb(): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Busy and total jiffies of the whole machine (/proc/stat), or undefined off Linux. */
export function machineTicks(): { busy: number; total: number } | undefined {
  try {
    const f = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const total = f.slice(0, 8).reduce((t, v) => t + v, 0);
    return { busy: total - (f[3] ?? 0) - (f[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

/**
 * What held the main thread up over the window: V8's garbage collections (count, total and longest
 * pause) and the event loop's delay (p99 and max), the two usual sources of a latency tail.
 */
export function watchMainStalls(): { stop(): MainStalls } {
  // 20 ms, as /metrics samples it: at 1 ms the probe's own timer woke the loop up to 1000 times a second
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  const gc = { count: 0, totalMs: 0, maxMs: 0, majorCount: 0, majorMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.totalMs += e.duration;
      gc.maxMs = Math.max(gc.maxMs, e.duration);
      if (
        (e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR
      ) {
        gc.majorCount++;
        gc.majorMs += e.duration;
      }
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop: () => {
      observer.disconnect();
      loop.disable();
      return {
        gcCount: gc.count,
        gcMsTotal: gc.totalMs,
        gcMsMax: gc.maxMs,
        gcMajorCount: gc.majorCount,
        gcMajorMs: gc.majorMs,
        loopDelayP99Ms: loop.percentile(99) / 1e6,
        loopDelayMaxMs: loop.max / 1e6,
      };
    },
  };
}
