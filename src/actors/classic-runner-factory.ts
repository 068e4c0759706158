/** Builds the classic-mode task runner from the compiled connector config. */
import type { Logger } from 'pino';
import type { InspectionEvent } from 'xstate';
import { SharesinkError } from '../errors.js';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import type { PoolTask, PutPool } from '../pool/put-pool.js';
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
  _config: ConnectorConfig,
  _worker: WorkerConfig,
  _common: CommonRunnerOptions,
): TaskRunner {
  throw new SharesinkError('SHARESINK_NOT_IMPLEMENTED', 'classic mode is not wired yet');
}
