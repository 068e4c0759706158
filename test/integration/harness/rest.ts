/**
 * A Worker with the REST API in front, running the poison-lines fixture connector (it writes each
 * record's value as a line to `lines.file`): the setup the REST integration tests share.
 */
import type { Logger } from 'pino';
import { Worker } from '../../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../../src/config/index.js';
import { startRestServer, type RestServer, type RestServerOptions } from '../../../src/rest/server/server.js';
import { testBrokers } from './kafka.js';

/** The fixture's `connector.class` (a module URL). */
export const LINES_CONNECTOR = new URL('../../fixtures/connectors/poison-lines.ts', import.meta.url).href;

export interface LinesWorkerOptions {
  readonly name: string;
  readonly topic: string;
  /** The file the connector writes its lines to. */
  readonly file: string;
  readonly group: string;
  readonly mode: 'share' | 'classic';
  readonly tasks: number;
  readonly poolThreads: number;
  readonly logger: Logger;
  /** More worker settings (listeners, task.shutdown.graceful.timeout.ms, …). */
  readonly worker?: Readonly<Record<string, string>>;
  /** More connector settings (converters, …). */
  readonly connector?: Readonly<Record<string, string>>;
  readonly rest?: Omit<RestServerOptions, 'logger'>;
}

/** Builds the worker and its REST server; the test starts and stops the worker itself. */
export async function startLinesWorker(o: LinesWorkerOptions): Promise<{ w: Worker; rest: RestServer }> {
  const worker = compileWorkerConfig({
    'bootstrap.servers': testBrokers(),
    'pool.threads': String(o.poolThreads),
    ...o.worker,
  });
  const connector = compileConnectorConfig(
    {
      name: o.name,
      'connector.class': LINES_CONNECTOR,
      topics: o.topic,
      'tasks.max': String(o.tasks),
      'lines.file': o.file,
      'consumer.override.group.protocol': o.mode,
      'consumer.override.group.id': o.group,
      ...(o.mode === 'share'
        ? { 'share.group.share.auto.offset.reset': 'earliest' }
        : { 'consumer.override.auto.offset.reset': 'earliest' }),
      'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
      ...o.connector,
    },
    worker,
  );
  const w = new Worker({ worker, connectors: [connector], logger: o.logger });
  const rest = await startRestServer(w, { ...o.rest, logger: o.logger });
  return { w, rest };
}
