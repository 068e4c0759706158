/**
 * Lines that come in bursts of one cause: a slow sink times out every put, and a put gathering 8
 * batches timed out 8 at once, each batch with its own line. Per batch is the right grain for a failure,
 * but 8 identical lines, and more every few seconds, bury everything else. Said the way the Kafka
 * retry lines are (src/observability/retry-lines.ts), on the same RepeatedLines: the first line of a cause is
 * logged, then one per 30 s carrying `repeatsLeftOut`, the count held back since the last one. The
 * counters still count every batch; the log only stops repeating itself.
 */
import type { Logger } from 'pino';
import { RepeatedLines, REPEAT_WINDOW_MS } from './repeated-lines.js';

export class BurstLines {
  readonly #repeats: RepeatedLines;

  constructor(now: () => number = Date.now, windowMs = REPEAT_WINDOW_MS) {
    this.#repeats = new RepeatedLines(windowMs, now);
  }

  /**
   * Logs `msg` at `level` with `fields` unless a line of `cause` (e.g. `put-timeout`) was logged less
   * than the window ago. True when it was logged.
   */
  say(log: Logger, level: 'warn' | 'info', cause: string, fields: object, msg: string): boolean {
    const left = this.#repeats.admit(cause);
    if (left === undefined) return false;
    log[level](left > 0 ? { ...fields, repeatsLeftOut: left } : fields, msg);
    return true;
  }
}
