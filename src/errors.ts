/**
 * Every error sharesink raises on purpose is a SharesinkError with a stable string `code`.
 * Users match on `code` (documented in docs/errors.md), never on the message text.
 */
import type { SharesinkErrorCode } from './error-codes.js';

export type { SharesinkErrorCode } from './error-codes.js';

const BRAND = Symbol.for('sharesink.error');

export interface SharesinkErrorOptions {
  cause?: unknown;
}

export class SharesinkError extends Error {
  readonly code: SharesinkErrorCode;
  readonly [BRAND] = true;

  constructor(code: SharesinkErrorCode, message: string, options: SharesinkErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }
}

/** True for errors from any copy of sharesink loaded in this process (the brand survives duplication). */
export function isSharesinkError(value: unknown): value is SharesinkError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** One or more configuration problems, all listed, each with the key, the bad value and the fix. */
export class ConfigError extends SharesinkError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(
      'SHARESINK_CONFIG_INVALID',
      `Invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` +
        problems.map((p) => `  - ${p}`).join('\n'),
    );
    this.problems = problems;
  }
}
