/** What a classic-mode task runner is given (src/actors/task/classic/classic-task-runner.ts). */
import type { InspectionEvent } from 'xstate';
import type { Logger } from 'pino';
import type { ClassicClientOptions } from '../../../kafka/kafkajs/classic-consumer.js';
import type { PoolTask } from '../../../pool/put-pool.js';
import type { PutRunner } from '../../../pool/put-runner.js';
import type { ErrorLogOptions } from '../../errors/log-reporter.js';
import type { ClassicErrorsOptions } from '../../errors/tolerance.js';

export interface ClassicTaskRunnerOptions extends Omit<ClassicClientOptions, 'logger'> {
  readonly connector: string;
  readonly taskId: number;
  readonly topics?: readonly string[];
  /** Matched against the topics that exist when the task starts (kafkajs does not re-evaluate it). */
  readonly topicsRegex?: RegExp;
  readonly groupId: string;
  /** `classic` (kafkajs, the default) or `consumer` (KIP-848, sharesink's own member). */
  readonly groupProtocol?: 'classic' | 'consumer';
  /** Java consumer settings (`consumer.*` / `consumer.override.*` without the prefix). */
  readonly consumer?: Readonly<Record<string, string>>;
  readonly pool: PutRunner;
  readonly poolTask: PoolTask;
  readonly logger: Logger;
  /**
   * `errors.*`. `retryTimeoutMs` > 0 bounds how long one batch is retried after RetriableErrors; 0 and -1
   * retry forever, as Connect's WorkerSinkTask does for put() whatever `errors.retry.timeout` says.
   */
  readonly errors?: ClassicErrorsOptions;
  /** Partitions whose batches are put at the same time. Default 4. */
  readonly maxInFlightBatches?: number;
  /** How long stop() lets running puts finish before it aborts them (uncommitted). Default 5000. */
  readonly shutdownGraceMs?: number;
  /** `errors.log.enable` / `errors.log.include.messages`. */
  readonly errorsLog?: ErrorLogOptions;
  /** Called once when the task fails. */
  readonly onFailure?: (error: Error) => void;
  /** XState inspection hook for the batch actors (e.g. a TransitionCounter's `inspect`). */
  readonly inspect?: ((event: InspectionEvent) => void) | undefined;
}
