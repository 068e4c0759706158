/**
 * What the two latency sinks of the bench (latency-sink.ts, steady-sink.ts) share: the `latency.dir`
 * setting, a connector that hands every task its own props, and a per-task-instance file name in that
 * directory (thread, instance and process, so tasks on several pool threads never share a file).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { ConfigDef } from '../src/connect/config-def.js';
import { SinkConnector } from '../src/connect/sink-connector.js';

export const LATENCY_DIR_CONFIG = new ConfigDef().define({
  name: 'latency.dir',
  type: 'string',
  importance: 'high',
  documentation: 'Directory for the latency files (one per task instance).',
});

let instances = 0;

export class LatencyDirConnector extends SinkConnector {
  #props: Readonly<Record<string, string>> = {};
  version(): string {
    return '0.0.0';
  }
  config(): typeof LATENCY_DIR_CONFIG {
    return LATENCY_DIR_CONFIG;
  }
  start(props: Readonly<Record<string, string>>): void {
    this.#props = props;
  }
  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.#props }));
  }
  stop(): void {}
}

/** A new file path under the task's `latency.dir` (made if missing), ending in `ext`. */
export function latencyFileFor(props: Readonly<Record<string, string>>, ext: string): string {
  const dir = props['latency.dir'];
  if (!dir) throw new Error('latency.dir is required');
  mkdirSync(dir, { recursive: true });
  return path.join(dir, `t${threadId}-${++instances}-${process.pid}.${ext}`);
}
