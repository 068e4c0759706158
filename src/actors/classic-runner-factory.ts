/** Builds the classic-mode task runner from the compiled connector config. */
import type { Logger } from 'pino';
import type { InspectionEvent } from 'xstate';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import type { PoolTask, PutPool } from '../pool/put-pool.js';
import { ClassicTaskRunner } from './classic-task-runner.js';
import type { TaskRunner } from './connector-runtime.js';

export interface CommonRunnerOptions {
  readonly connector: string;
  readonly taskId: number;
  readonly topics: readonly string[];
  readonly pool: PutPool;
  readonly poolTask: PoolTask;
  readonly logger: Logger;
  readonly errorsTolerance: 'none' | 'all';
  readonly retryDelayMaxMs: number;
  readonly shutdownGraceMs: number;
  readonly onFailure: (error: Error) => void;
  readonly inspect?: ((event: InspectionEvent) => void) | undefined;
}

export function createClassicRunner(
  config: ConnectorConfig,
  worker: WorkerConfig,
  common: CommonRunnerOptions,
): TaskRunner {
  return new ClassicTaskRunner({
    connector: common.connector,
    taskId: common.taskId,
    topics: config.topicsRegex ? undefined : config.topics,
    topicsRegex: config.topicsRegex,
    groupId: config.groupId,
    consumer: config.consumer,
    brokers: worker.bootstrapServers,
    clientId: `${worker.clientId}-${config.name}-${common.taskId}`,
    pool: common.pool,
    poolTask: common.poolTask,
    logger: common.logger.child({ task: common.taskId }),
    errors: config.errors,
    errorsLog: { enable: config.errors.logEnable, includeMessages: config.errors.logIncludeMessages },
    maxInFlightBatches: config.maxInFlightBatches,
    shutdownGraceMs: common.shutdownGraceMs,
    onFailure: common.onFailure,
    inspect: common.inspect,
  });
}
