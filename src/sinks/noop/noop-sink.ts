import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigDef } from '../../connect/config-def.js';
import { atLeast } from '../../connect/config-validators.js';
import { SinkConnector } from '../../connect/sink-connector.js';
import type { SinkRecord } from '../../connect/sink-record.js';
import { SinkTask } from '../../connect/sink-task.js';

const VERSION = '0.1.0';

export const NOOP_SINK_CONFIG = new ConfigDef().define({
  name: 'latency.ms',
  type: 'long',
  default: 0,
  validator: atLeast(0),
  importance: 'medium',
  documentation: 'Time each put() takes, to simulate a downstream system; 0 returns at once.',
});

/** Drops every record. For benchmarks and for exercising the runtime without a downstream system. */
export class NoopSinkConnector extends SinkConnector {
  #props: Readonly<Record<string, string>> = {};

  version(): string {
    return VERSION;
  }

  config(): typeof NOOP_SINK_CONFIG {
    return NOOP_SINK_CONFIG;
  }

  start(props: Readonly<Record<string, string>>): void {
    NOOP_SINK_CONFIG.parse(props);
    this.#props = props;
  }

  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.#props }));
  }

  stop(): void {}
}

export class NoopSinkTask extends SinkTask {
  /** Records this instance was given; a benchmark reads it through the task, not through logs. */
  recordCount = 0;
  putCount = 0;
  #latencyMs = 0;

  version(): string {
    return VERSION;
  }

  start(props: Readonly<Record<string, string>>): void {
    this.#latencyMs = NOOP_SINK_CONFIG.parse(props)['latency.ms'];
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    if (this.#latencyMs > 0) await sleep(this.#latencyMs);
    this.recordCount += records.length;
    this.putCount++;
  }

  stop(): void {}
}
