/**
 * What a put result means in classic mode: the batch event it becomes, and — for records that end up in
 * the dead letter topic — the Connect-style reason each one carries.
 */
import type { ErrorsConfig } from '../config/types.js';
import type { BatchEvent } from '../machines/batch.js';
import type { ConverterFailureInfo, PutResult } from '../pool/protocol.js';
import type { RetryBackoff } from './retry-backoff.js';
import { exceptionClassOf, SINK_TASK_CLASS, type DeadLetterReason } from './classic-dead-letter.js';

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
};

/**
 * The batch event for a put result. `reasons` is refilled with every bad record of this attempt, by batch
 * index: converter failures count as errant records, as the errant record reporter's do.
 */
export function classicPutEvent(
  result: PutResult,
  tolerance: 'none' | 'all',
  reasons: Map<number, DeadLetterReason>,
): BatchEvent {
  reasons.clear();
  for (const f of result.converterFailures) reasons.set(f.index, converterReason(f));
  switch (result.kind) {
    case 'ok':
      if (reasons.size === 0) return { type: 'PUT_OK' };
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
      return { type: 'PUT_RETRIABLE', error: result.message };
    case 'fatal':
      return { type: 'PUT_FATAL', error: result.message };
    case 'aborted':
      return { type: 'ABORTED' };
  }
  // Connect's reporter throws under errors.tolerance=none, which fails put() and so the task
  if (tolerance === 'none') return { type: 'PUT_FATAL', error: 'errant record' };
  return { type: 'PUT_PER_RECORD', rejectedOffsets: [...reasons.keys()] };
}

/**
 * How long to wait before putting a batch again, or undefined once `errors.retry.timeout` (when positive)
 * has run out since the first failure. The task's `context.timeout(ms)` hint wins when it is longer.
 */
export function nextRetryDelay(
  put: PutResult | undefined,
  backoff: RetryBackoff,
  retryingSince: number,
  errors: ClassicErrorsOptions | undefined,
  now = Date.now(),
): number | undefined {
  const timeout = errors?.retryTimeoutMs ?? -1;
  const left = timeout > 0 ? retryingSince + timeout - now : Number.POSITIVE_INFINITY;
  if (left <= 0) return undefined;
  return Math.min(backoff.failed(put?.kind === 'retriable' ? put.backoffMs : undefined), left);
}

/** Why the whole batch failed (fatal put, retries exhausted): the reason of records without their own. */
export function batchReason(put: PutResult | undefined): DeadLetterReason {
  const stack = put && 'stack' in put ? put.stack : undefined;
  return {
    stage: 'TASK_PUT',
    executingClass: SINK_TASK_CLASS,
    exceptionClass: exceptionClassOf(stack),
    message: putMessage(put),
    stack,
  };
}

/** The message a task failure reports: the put's error, else the first bad record's. */
export function failureMessage(put: PutResult | undefined, reasons: Map<number, DeadLetterReason>): string {
  if (put?.kind === 'fatal' || put?.kind === 'retriable') return put.message;
  const [first] = reasons.values();
  return first?.message ?? 'errant record';
}

/** Connect's stage names: KEY_CONVERTER, VALUE_CONVERTER, HEADER_CONVERTER, TRANSFORMATION. */
function converterReason(f: ConverterFailureInfo): DeadLetterReason {
  const transform = f.part === 'transform';
  return {
    stage: transform ? 'TRANSFORMATION' : `${f.part.toUpperCase()}_CONVERTER`,
    executingClass: f.converter,
    exceptionClass: transform ? 'TransformError' : 'ConverterError',
    message: f.message,
  };
}

export function putMessage(put: PutResult | undefined): string {
  return put && 'message' in put ? put.message : 'put failed';
}

/** kafkajs protocol errors by their type (REBALANCE_IN_PROGRESS, …), anything else by its message. */
export function errorCodeOf(err: unknown): string {
  const type = (err as { type?: unknown } | null)?.type;
  if (typeof type === 'string') return type;
  return err instanceof Error ? err.message : String(err);
}
