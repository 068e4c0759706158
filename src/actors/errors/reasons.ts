/**
 * Why a record failed, in the terms of Connect's ProcessingContext: the stage, the class that was
 * executing and the exception. The log reporter and the dead-letter reporter both write these.
 */
import type { ConverterFailureInfo, PutResult } from '../../pool/protocol.js';

/** Connect names the executing class of a put failure after the SinkTask interface, not the task. */
export const SINK_TASK_CLASS = 'org.apache.kafka.connect.sink.SinkTask';

/** Why one record is dead-lettered, in the terms of Connect's ProcessingContext. */
export interface DeadLetterReason {
  /** Connect's Stage: TASK_PUT, KEY_CONVERTER, VALUE_CONVERTER, HEADER_CONVERTER. */
  readonly stage: string;
  readonly executingClass: string;
  readonly exceptionClass: string;
  readonly message: string;
  readonly stack?: string | undefined;
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

/** Connect's stage names: KEY_CONVERTER, VALUE_CONVERTER, HEADER_CONVERTER, TRANSFORMATION. */
export function converterReason(f: ConverterFailureInfo): DeadLetterReason {
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

/** The error's class as its stack names it (`RetriableError: …`), else `Error`. */
export function exceptionClassOf(stack: string | undefined): string {
  const match = stack === undefined ? null : /^([A-Za-z_$][\w$.]*)(?::|$)/.exec(stack);
  return match?.[1] ?? 'Error';
}
