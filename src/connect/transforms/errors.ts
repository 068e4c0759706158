import { SharesinkError, type SharesinkErrorOptions } from '../../errors.js';
import type { RecordCoordinates } from '../errors.js';

/**
 * A transform or predicate threw on a record (Connect's TRANSFORMATION stage failing). The record is
 * errant, exactly like one a converter could not read: `errors.tolerance` decides what happens.
 */
export class TransformError extends SharesinkError {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly alias: string;
  /** `type` as configured: Connect's class name, a short name, or a module. */
  readonly type: string;

  constructor(at: RecordCoordinates, alias: string, type: string, options: SharesinkErrorOptions = {}) {
    const reason =
      options.cause instanceof Error ? options.cause.message : String(options.cause ?? 'unknown');
    super(
      'SHARESINK_TRANSFORM_FAILED',
      `transform ${alias} (${type}) failed on ${at.topic}-${at.partition}@${at.offset}: ${reason}`,
      options,
    );
    this.topic = at.topic;
    this.partition = at.partition;
    this.offset = at.offset;
    this.alias = alias;
    this.type = type;
  }
}

/** A custom transform or predicate module cannot be imported, or its default export is not a usable class. */
export class TransformModuleError extends SharesinkError {
  constructor(message: string, options: SharesinkErrorOptions = {}) {
    super('SHARESINK_TRANSFORM_MODULE_INVALID', message, options);
  }
}
