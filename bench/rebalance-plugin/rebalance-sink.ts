/**
 * The sink of the rebalance scenario (bench/scenarios/rebalance.ts): each put() waits `sleep.ms` (the
 * sink's fixed latency, as bench/java/SleepSinkTask.java sleeps for the Kafka Connect side), then
 * appends one line to a file of its own under `records.dir`: `r <epoch ms> <p>:<offset>:<CreateTime>,…`
 * (bench/rebalance-analysis.ts reads it). The line is written synchronously before put() returns, so a
 * worker killed with SIGKILL has logged every put that returned.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { ConfigDef } from '../../src/connect/config-def.js';
import type { ConnectorModule } from '../../src/connect/connector-module.js';
import { SinkConnector } from '../../src/connect/sink-connector.js';
import type { SinkRecord } from '../../src/connect/sink-record.js';
import { SinkTask } from '../../src/connect/sink-task.js';
import { writeLogLine } from '../rebalance-analysis.js';

const CONFIG = new ConfigDef()
  .define({
    name: 'records.dir',
    type: 'string',
    importance: 'high',
    documentation: 'Directory for the write logs (one file per task instance).',
  })
  .define({
    name: 'sleep.ms',
    type: 'long',
    default: 0,
    importance: 'high',
    documentation: 'Milliseconds each non-empty put() waits before it returns (the sink latency).',
  });

let instances = 0;

class RebalanceSinkConnector extends SinkConnector {
  #props: Readonly<Record<string, string>> = {};
  version(): string {
    return '0.0.0';
  }
  config(): ConfigDef {
    return CONFIG;
  }
  start(props: Readonly<Record<string, string>>): void {
    this.#props = props;
  }
  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.#props }));
  }
  stop(): void {}
}

class RebalanceSinkTask extends SinkTask {
  #file = '';
  #sleepMs = 0;

  version(): string {
    return '0.0.0';
  }

  start(props: Readonly<Record<string, string>>): void {
    const dir = props['records.dir'];
    if (!dir) throw new Error('records.dir is required');
    mkdirSync(dir, { recursive: true });
    this.#file = path.join(dir, `t${threadId}-${++instances}-${process.pid}.txt`);
    this.#sleepMs = Number(props['sleep.ms'] ?? '0');
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    if (records.length === 0) return;
    if (this.#sleepMs > 0) await new Promise((r) => setTimeout(r, this.#sleepMs));
    appendFileSync(
      this.#file,
      writeLogLine(
        Date.now(),
        records.map((r) => [r.partition, r.offset, r.timestamp ?? -1] as const),
      ),
    );
  }

  stop(): void {}
}

export default { connector: RebalanceSinkConnector, task: RebalanceSinkTask } satisfies ConnectorModule;
