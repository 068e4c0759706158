import { SharesinkError, type SharesinkErrorCode, type SharesinkErrorOptions } from '../errors.js';

const RETRIABLE = Symbol.for('sharesink.retriable');

/**
 * Connect's ConnectException: a connector or task failed and retrying the same records will not help.
 * Thrown from `put()` it REJECTs the batch in share mode and fails the task in classic mode.
 */
export class ConnectError extends SharesinkError {
  constructor(
    message: string,
    options: SharesinkErrorOptions = {},
    code: SharesinkErrorCode = 'SHARESINK_CONNECT_ERROR',
  ) {
    super(code, message, options);
  }
}

/**
 * Connect's RetriableException: the failure is transient (downstream busy, timeout).
 * Thrown from `put()` it RELEASEs the batch in share mode and retries the same batch in classic mode.
 */
export class RetriableError extends ConnectError {
  readonly [RETRIABLE] = true;

  constructor(
    message: string,
    options: SharesinkErrorOptions = {},
    code: SharesinkErrorCode = 'SHARESINK_RETRIABLE',
  ) {
    super(message, options, code);
  }
}

/**
 * True for RetriableError from any copy of sharesink, and for errors named like Connect's
 * RetriableException, so a connector bundling its own copy of the package is still understood.
 */
export function isRetriableError(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if ((value as Record<symbol, unknown>)[RETRIABLE] === true) return true;
  const name = (value as { name?: unknown }).name;
  return name === 'RetriableError' || name === 'RetriableException';
}

/** Where a record came from; converter and data errors name it so operators can find the bytes. */
export interface RecordCoordinates {
  topic: string;
  partition: number;
  offset: number;
}

/** Bytes that a converter could not turn into a value (Connect's DataException during conversion). */
export class ConverterError extends SharesinkError {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly converter: string;
  readonly part: 'key' | 'value' | 'header';

  constructor(
    at: RecordCoordinates,
    converter: string,
    part: 'key' | 'value' | 'header',
    options: SharesinkErrorOptions = {},
  ) {
    const reason =
      options.cause instanceof Error ? options.cause.message : String(options.cause ?? 'unknown');
    super(
      'SHARESINK_CONVERTER_FAILED',
      `${converter} could not convert the ${part} of ${at.topic}-${at.partition}@${at.offset}: ${reason}`,
      options,
    );
    this.topic = at.topic;
    this.partition = at.partition;
    this.offset = at.offset;
    this.converter = converter;
    this.part = part;
  }
}

/** Data that does not match its schema, or a malformed envelope (Connect's DataException). */
export class DataError extends ConnectError {
  constructor(message: string, options: SharesinkErrorOptions = {}) {
    super(message, options, 'SHARESINK_DATA_INVALID');
  }
}
