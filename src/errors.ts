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

/**
 * One problem of a configuration: the setting, what is wrong, and (when the text says so) the value given
 * and what is accepted. `String(problem)` is the line as sharesink prints it (`key: message`).
 */
export class ConfigProblem {
  /** The setting (`tasks.max`, `transforms.mask.fields`), or undefined for a problem of the whole config. */
  readonly key: string | undefined;
  /** What is wrong, the line without its `key: ` (it may end with `; accepted: …`). */
  readonly message: string;
  /** The value given, when the message quotes it. */
  readonly value: string | undefined;
  /** What the setting accepts, when the message says so. */
  readonly accepted: string | undefined;
  /** The connector whose setting it is, when the problem was listed for one of several connectors. */
  readonly connector: string | undefined;
  readonly #text: string;

  /** Reads sharesink's problem line `key: "value" why; accepted: what` into its parts. */
  constructor(text: string, connector?: string) {
    this.#text = connector === undefined ? text : `${connector}: ${text}`;
    this.connector = connector;
    const keyed = /^([^\s:]+): ([\s\S]*)$/.exec(text);
    this.key = keyed?.[1];
    this.message = keyed?.[2] ?? text;
    const quoted = /^("(?:[^"\\]|\\.)*")(?=[\s;,]|$)/.exec(this.message)?.[1];
    this.value = quoted === undefined ? undefined : parseQuoted(quoted);
    this.accepted = /; accepted: ([\s\S]*)$/.exec(this.message)?.[1];
  }

  toString(): string {
    return this.#text;
  }

  toJSON(): string {
    return this.#text;
  }
}

function parseQuoted(quoted: string): string | undefined {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}

/** Problems as {@link ConfigProblem}s, a line of text read into its parts (with `connector` for each). */
export function configProblems(
  problems: readonly (string | ConfigProblem)[],
  connector?: string,
): ConfigProblem[] {
  return problems.map((p) =>
    typeof p === 'string'
      ? new ConfigProblem(p, connector)
      : connector === undefined
        ? p
        : new ConfigProblem(String(p), connector),
  );
}

/**
 * One or more configuration problems, all listed, each with the key, the bad value and the fix. The message
 * prints one problem a line; `problems` holds them as objects to read the key of each.
 */
export class ConfigError extends SharesinkError {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly (string | ConfigProblem)[]) {
    super(
      'SHARESINK_CONFIG_INVALID',
      `Invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` +
        problems.map((p) => `  - ${String(p)}`).join('\n'),
    );
    this.problems = configProblems(problems);
  }

  /** The problems as the lines the message prints. */
  problemLines(): string[] {
    return this.problems.map(String);
  }
}
