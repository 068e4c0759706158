/**
 * A retriable condition reported by how long it has lasted rather than by how often it was seen. A
 * coordinator that is loading, a group coordinator being elected on a fresh broker: these clear within
 * seconds, and a WARN for every retry would teach the operator to ignore warnings. So each failure is
 * logged at debug; a wait that lasts `warnAfterMs` gets exactly one WARN naming what is awaited, and,
 * when it finally ends, one INFO line saying so.
 */
import type { Logger } from 'pino';

/** How long a retriable condition may last before it is worth a warning. */
export const STILL_WAITING_WARN_AFTER_MS = 10_000;

export interface StillWaitingOptions {
  readonly logger: Logger;
  /** What is awaited, as a noun phrase: `the share group coordinator of group g1`. */
  readonly what: string;
  /** Default {@link STILL_WAITING_WARN_AFTER_MS}. */
  readonly warnAfterMs?: number;
  /** Default `Date.now`; tests pass a fake clock. */
  readonly now?: () => number;
}

export class StillWaiting {
  readonly #o: StillWaitingOptions;
  readonly #warnAfterMs: number;
  readonly #now: () => number;
  #since: number | undefined;
  #warned = false;

  constructor(options: StillWaitingOptions) {
    this.#o = options;
    this.#warnAfterMs = options.warnAfterMs ?? STILL_WAITING_WARN_AFTER_MS;
    this.#now = options.now ?? (() => Date.now());
  }

  /** True from the first failure until {@link succeeded}. */
  get waiting(): boolean {
    return this.#since !== undefined;
  }

  /**
   * Starts the wait now although nothing failed yet: for a call whose first attempt may itself take
   * long (a connection timeout), the wait counts from the call, not from the first failure.
   */
  begin(): void {
    this.#since ??= this.#now();
  }

  /** One failed attempt; `reason` is short (an error name such as COORDINATOR_LOAD_IN_PROGRESS). */
  failed(reason: string, fields: Readonly<Record<string, unknown>> = {}): void {
    const now = this.#now();
    this.#since ??= now;
    const waitedMs = now - this.#since;
    if (!this.#warned && waitedMs >= this.#warnAfterMs) {
      this.#warned = true;
      this.#o.logger.warn(
        { ...fields, waitedMs },
        `still waiting for ${this.#o.what} after ${seconds(waitedMs)} s: ${reason}`,
      );
      return;
    }
    this.#o.logger.debug({ ...fields, waitedMs }, `waiting for ${this.#o.what}: ${reason}`);
  }

  /** The awaited thing answered; the next failure starts a new wait (which may warn again). */
  succeeded(): void {
    if (this.#since === undefined) return;
    const waitedMs = this.#now() - this.#since;
    // only a wait that was worth a warning is worth saying it ended
    if (this.#warned)
      this.#o.logger.info({ waitedMs }, `${this.#o.what} answered after ${seconds(waitedMs)} s`);
    this.#since = undefined;
    this.#warned = false;
  }
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}
