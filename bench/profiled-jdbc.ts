/**
 * The JDBC sink as a connector module for `bench/jdbc-ab.ts --worker-profile=DIR`: the same connector
 * and task, plus what the pool thread did. The pool threads are terminated (so `--cpu-prof` writes
 * nothing for them); this task profiles its own thread with the inspector from its first put to its
 * stop and writes `DIR/CPU.pool.<pid>.<thread>.cpuprofile`, and a line of put timings on stderr: how
 * long the puts ran and how long the thread waited between them (idle between puts = the thread is not
 * the bottleneck).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import type { SinkRecord } from '../src/connect/sink-record.js';
import { JdbcSinkConnector, JdbcSinkTask } from '../src/sinks/jdbc/index.js';

const DIR = process.env.SHARESINK_BENCH_WORKER_PROFILE;

class ProfiledJdbcSinkTask extends JdbcSinkTask {
  #session: Session | undefined;
  #starting: Promise<void> | undefined;
  #puts = 0;
  #rows = 0;
  #putMs = 0;
  #gapMs = 0;
  #lastEnd: number | undefined;

  override async put(records: readonly SinkRecord[]): Promise<void> {
    if (DIR !== undefined && this.#starting === undefined) this.#starting = this.#start();
    await this.#starting;
    const began = performance.now();
    if (this.#lastEnd !== undefined) this.#gapMs += began - this.#lastEnd;
    try {
      await super.put(records);
    } finally {
      this.#lastEnd = performance.now();
      this.#putMs += this.#lastEnd - began;
      this.#puts++;
      this.#rows += records.length;
    }
  }

  async #start(): Promise<void> {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    this.#session = session;
  }

  override async stop(): Promise<void> {
    const session = this.#session;
    this.#session = undefined;
    if (session !== undefined && DIR !== undefined) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      writeFileSync(
        path.join(DIR, `CPU.pool.${process.pid}.${threadId}.cpuprofile`),
        JSON.stringify(profile),
      );
    }
    if (this.#puts > 0)
      process.stderr.write(
        `pool thread ${threadId}: ${this.#puts} puts, ${this.#rows} rows, in put() ${this.#putMs.toFixed(0)} ms ` +
          `(${((this.#putMs / this.#rows) * 1000).toFixed(1)} µs/row), between puts ${this.#gapMs.toFixed(0)} ms\n`,
      );
    await super.stop();
  }
}

export default { connector: JdbcSinkConnector, task: ProfiledJdbcSinkTask };
