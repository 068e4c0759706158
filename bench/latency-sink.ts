/**
 * A connector for the end-to-end latency scenario: each put() notes, for every record, the time from
 * its CreateTime (set by the producer) to the put, in ms. Samples go to one file per task instance
 * under `latency.dir` (`createTime:latency,` pairs, appended about twice a second and at stop), so the
 * harness can follow progress from another process (the CLI runs it).
 */
import { appendFileSync } from 'node:fs';
import type { ConnectorModule } from '../src/connect/connector-module.js';
import type { SinkRecord } from '../src/connect/sink-record.js';
import { SinkTask } from '../src/connect/sink-task.js';
import { LatencyDirConnector, latencyFileFor } from './latency-dir-connector.js';

class LatencySinkTask extends SinkTask {
  #file = '';
  #pending: string[] = [];
  #lastFlush = 0;

  version(): string {
    return '0.0.0';
  }

  start(props: Readonly<Record<string, string>>): void {
    this.#file = latencyFileFor(props, 'txt');
  }

  put(records: readonly SinkRecord[]): void {
    const now = Date.now();
    for (const r of records)
      if (r.timestamp !== null) this.#pending.push(`${r.timestamp}:${now - r.timestamp}`);
    if (now - this.#lastFlush >= 500) this.#flush(now);
  }

  stop(): void {
    this.#flush(Date.now());
  }

  #flush(now: number): void {
    this.#lastFlush = now;
    if (this.#pending.length === 0) return;
    // small synchronous appends: a few per second per thread, far off the measured path's cost
    appendFileSync(this.#file, `${this.#pending.join(',')},`);
    this.#pending = [];
  }
}

export default { connector: LatencyDirConnector, task: LatencySinkTask } satisfies ConnectorModule;
