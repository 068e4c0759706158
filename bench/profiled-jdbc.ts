/**
 * The JDBC sink as a connector module for `bench/jdbc-ab.ts --worker-profile=DIR`: the same connector
 * and task, plus what the pool thread did. The pool threads are terminated (so `--cpu-prof` writes
 * nothing for them); this task profiles its own thread with the inspector from its first put to its
 * stop and writes `DIR/CPU.pool.<pid>.<thread>.cpuprofile` (or, with
 * SHARESINK_BENCH_WORKER_PROFILE_KIND=alloc|promoted, an allocation profile
 * `DIR/Alloc.pool.<pid>.<thread>.heapprofile`), and a line of put timings on stderr: how long the puts
 * ran and how long the thread waited between them (idle between puts = the thread is not the
 * bottleneck).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import type { SinkRecord } from '../src/connect/sink-record.js';
import { JdbcSinkConnector, JdbcSinkTask } from '../src/sinks/jdbc/index.js';

const DIR = process.env.SHARESINK_BENCH_WORKER_PROFILE;
/**
 * `alloc`: sample what the thread allocates (collected objects included) instead of its CPU time;
 * `promoted`: only what outlives the young generation (collected by full collections, or still alive).
 */
const KIND = process.env.SHARESINK_BENCH_WORKER_PROFILE_KIND;
const ALLOC = KIND === 'alloc' || KIND === 'promoted';

class ProfiledJdbcSinkTask extends JdbcSinkTask {
  #session: Session | undefined;
  #starting: Promise<void> | undefined;
  #puts = 0;
  #rows = 0;
  #putMs = 0;
  #gapMs = 0;
  #lastEnd: number | undefined;
  /**
   * Each put's time in put() and the gap before it (ms), and in put() this thread's time on a CPU and
   * waiting for one (runnable, not running: /proc/thread-self/schedstat), for the later half's figures.
   */
  readonly #timings: Timing[] = [];
  #lastSched: readonly [number, number] | undefined;

  override async put(records: readonly SinkRecord[]): Promise<void> {
    if (DIR !== undefined && this.#starting === undefined) this.#starting = this.#start();
    await this.#starting;
    const began = performance.now();
    const s0 = schedstat();
    const gap = this.#lastEnd === undefined ? NaN : began - this.#lastEnd;
    const gapSched =
      this.#lastSched === undefined ? [NaN, NaN] : [s0[0] - this.#lastSched[0], s0[1] - this.#lastSched[1]];
    if (this.#lastEnd !== undefined) this.#gapMs += gap;
    try {
      await super.put(records);
    } finally {
      this.#lastEnd = performance.now();
      const s1 = schedstat();
      this.#lastSched = s1;
      this.#putMs += this.#lastEnd - began;
      this.#timings.push({
        inPut: this.#lastEnd - began,
        cpu: s1[0] - s0[0],
        runq: s1[1] - s0[1],
        gap,
        gapCpu: gapSched[0]!,
        gapRunq: gapSched[1]!,
      });
      this.#puts++;
      this.#rows += records.length;
    }
  }

  async #start(): Promise<void> {
    const session = new Session();
    session.connect();
    if (ALLOC) {
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: 16_384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: KIND === 'alloc',
      });
    } else {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
    }
    this.#session = session;
  }

  override async stop(): Promise<void> {
    const session = this.#session;
    this.#session = undefined;
    if (session !== undefined && DIR !== undefined) {
      const { profile } = ALLOC
        ? await session.post('HeapProfiler.stopSampling')
        : await session.post('Profiler.stop');
      session.disconnect();
      const file = ALLOC
        ? `Alloc.pool.${process.pid}.${threadId}.heapprofile`
        : `CPU.pool.${process.pid}.${threadId}.cpuprofile`;
      writeFileSync(path.join(DIR, file), JSON.stringify(profile));
    }
    if (this.#puts > 0)
      process.stderr.write(
        `pool thread ${threadId}: ${this.#puts} puts, ${this.#rows} rows, in put() ${this.#putMs.toFixed(0)} ms ` +
          `(${((this.#putMs / this.#rows) * 1000).toFixed(1)} µs/row), between puts ${this.#gapMs.toFixed(0)} ms; ` +
          `later half: ${laterHalf(this.#timings)}\n`,
      );
    await super.stop();
  }
}

interface Timing {
  readonly inPut: number;
  readonly cpu: number;
  readonly runq: number;
  readonly gap: number;
  readonly gapCpu: number;
  readonly gapRunq: number;
}

/** This thread's time on a CPU and waiting in the run queue so far (ms). */
function schedstat(): readonly [number, number] {
  const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ');
  return [Number(run) / 1e6, Number(wait) / 1e6];
}

/** Medians, 90th percentiles and means of the later half's puts (the steady part, JIT mostly done). */
function laterHalf(timings: readonly Timing[]): string {
  const half = timings.slice(Math.floor(timings.length / 2));
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p)] ?? NaN;
  const mean = (k: keyof Timing) => (half.reduce((a, t) => a + t[k], 0) / half.length).toFixed(2);
  const inPut = half.map((t) => t.inPut);
  const gap = half.map((t) => t.gap);
  return (
    `in put() median ${q(inPut, 0.5).toFixed(2)} ms (p90 ${q(inPut, 0.9).toFixed(2)}), ` +
    `gap before median ${q(gap, 0.5).toFixed(2)} ms (p90 ${q(gap, 0.9).toFixed(2)}), ${half.length} puts; ` +
    `means: in put() ${mean('inPut')} ms = on CPU ${mean('cpu')} + run queue ${mean('runq')} + off CPU; ` +
    `gap ${mean('gap')} ms = on CPU ${mean('gapCpu')} + run queue ${mean('gapRunq')} + off CPU`
  );
}

export default { connector: JdbcSinkConnector, task: ProfiledJdbcSinkTask };
