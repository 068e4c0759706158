/**
 * `errors.tolerance` for the put stage, in Connect's terms (its RetryWithToleranceOperator): what a put
 * result comes to in either mode — the batch event, the reasons of the bad records for the log and
 * dead-letter reporters, and the task's failure when tolerance ends it. The retry half (backoff,
 * `errors.retry.timeout`) is the task-runner core's, around the machine's `retrying` state.
 */
import type { ErrorsConfig } from '../../config/types.js';
import type { KafkajsSecurityOptions } from '../../kafka/security/index.js';
import type { BatchEvent, BatchMode } from '../../machines/batch.js';
import type { PutResult } from '../../pool/protocol.js';
import { converterReason, SINK_TASK_CLASS, type DeadLetterReason } from './reasons.js';
import { TaskFailedError } from './task-failed.js';

export type ClassicErrorsOptions = Partial<
  Pick<
    ErrorsConfig,
    | 'tolerance'
    | 'retryTimeoutMs'
    | 'retryDelayMaxMs'
    | 'deadLetterQueueTopic'
    | 'deadLetterQueueContextHeaders'
  >
> & {
  /** Replication factor if the dead letter topic must be created. Default min(3, brokers). */
  readonly deadLetterQueueReplicationFactor?: number;
  /**
   * TLS / SASL of the dead-letter producer (`producer.override.*`) and of the admin call that creates
   * its topic (`admin.override.*`); unset, both use the consumer's client.
   */
  readonly deadLetterQueueSecurity?: {
    readonly producer: KafkajsSecurityOptions;
    readonly admin: KafkajsSecurityOptions;
  };
};

/** What a put result comes to: the batch event, and the task's failure when tolerance ends it. */
export interface PutVerdict {
  readonly event: BatchEvent;
  readonly failure?: TaskFailedError | undefined;
}

/**
 * Connect's RetryWithToleranceOperator, for the put stage of both modes: the batch event for a put
 * result under `errors.tolerance`. `reasons` is refilled with every bad record of this attempt, by
 * batch index: converter and transform failures count as errant records, as the errant record
 * reporter's do.
 * - classic, `none`: an errant record fails the put, as Connect's reporter throws under `none`
 *   (PUT_FATAL: the task fails with its offsets not committed);
 * - share, `none`: the errant records are REJECTed and the rest ACCEPTed, and a converter or transform
 *   failure also fails the task (a record the task reported itself does not: the task chose to).
 */
export function putVerdict(
  result: PutResult,
  mode: BatchMode,
  tolerance: 'none' | 'all',
  reasons: Map<number, DeadLetterReason>,
): PutVerdict {
  reasons.clear();
  for (const f of result.converterFailures) reasons.set(f.index, converterReason(f));
  switch (result.kind) {
    case 'ok':
      if (reasons.size === 0) return { event: { type: 'PUT_OK' } };
      break;
    case 'perRecord':
      for (const r of result.rejected)
        reasons.set(r.index, {
          stage: 'TASK_PUT',
          executingClass: SINK_TASK_CLASS,
          exceptionClass: r.errorClass ?? 'Error',
          message: r.message,
          stack: r.stack,
        });
      break;
    case 'retriable':
      return { event: { type: 'PUT_RETRIABLE', error: result.message } };
    case 'fatal':
      return { event: { type: 'PUT_FATAL', error: result.message } };
    case 'aborted':
      return { event: { type: 'ABORTED' } };
  }
  if (tolerance === 'none' && mode === 'classic')
    return { event: { type: 'PUT_FATAL', error: 'errant record' } };
  const event: BatchEvent = { type: 'PUT_PER_RECORD', rejectedIndexes: [...reasons.keys()] };
  const converted = result.converterFailures[0];
  if (tolerance === 'none' && converted !== undefined)
    return { event, failure: new TaskFailedError(`${converted.message} (errors.tolerance=none)`) };
  return { event };
}

/** The message a task failure reports: the put's error, else the first bad record's. */
export function failureMessage(put: PutResult | undefined, reasons: Map<number, DeadLetterReason>): string {
  if (put?.kind === 'fatal' || put?.kind === 'retriable') return put.message;
  const [first] = reasons.values();
  return first?.message ?? 'errant record';
}

/** kafkajs protocol errors by their type (REBALANCE_IN_PROGRESS, …), anything else by its message. */
export function errorCodeOf(err: unknown): string {
  const type = (err as { type?: unknown } | null)?.type;
  if (typeof type === 'string') return type;
  return err instanceof Error ? err.message : String(err);
}
