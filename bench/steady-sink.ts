/**
 * The sink of the steady-rate scenario (bench/scenarios/steady.ts): NoopSink plus, per record, the time
 * from its CreateTime to the put, in whole ms, kept as one histogram per second of put time (1 ms
 * buckets up to 5 s, the rest in the last one). At stop each instance writes its histograms to a file
 * of its own under `latency.dir`, and the harness keeps the seconds inside the measured window.
 *
 * Per put this is one Date.now() and a typed-array increment per record: next to the runtime's own
 * per-record work it is noise, and it keeps no per-record memory (untouched buckets stay unpaged).
 */
import { writeFileSync } from 'node:fs';
import type { ConnectorModule } from '../src/connect/connector-module.js';
import type { SinkRecord } from '../src/connect/sink-record.js';
import { SinkTask } from '../src/connect/sink-task.js';
import { LatencyDirConnector, latencyFileFor } from './latency-dir-connector.js';

/** Buckets 0..LAST_MS-1 are 1 ms wide; LAST_MS holds everything from LAST_MS ms up. */
export const LAST_MS = 5000;

class SteadySinkTask extends SinkTask {
  #file = '';
  readonly #bySecond = new Map<number, Uint32Array>();

  version(): string {
    return '0.0.0';
  }

  start(props: Readonly<Record<string, string>>): void {
    this.#file = latencyFileFor(props, 'json');
  }

  put(records: readonly SinkRecord[]): void {
    const now = Date.now();
    const second = Math.floor(now / 1000);
    let h = this.#bySecond.get(second);
    if (!h) {
      h = new Uint32Array(LAST_MS + 1);
      this.#bySecond.set(second, h);
    }
    for (const r of records) {
      if (r.timestamp === null) continue;
      const ms = now - r.timestamp;
      h[ms < 0 ? 0 : ms > LAST_MS ? LAST_MS : ms]!++;
    }
  }

  stop(): void {
    const out: Record<string, Array<[number, number]>> = {};
    for (const [second, h] of this.#bySecond) {
      const pairs: Array<[number, number]> = [];
      for (let i = 0; i <= LAST_MS; i++) if (h[i]! > 0) pairs.push([i, h[i]!]);
      out[String(second)] = pairs;
    }
    writeFileSync(this.#file, JSON.stringify(out));
  }
}

export default { connector: LatencyDirConnector, task: SteadySinkTask } satisfies ConnectorModule;
