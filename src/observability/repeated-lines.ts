/**
 * Keeps a kafkajs warning that repeats from flooding the log. With a broker down, every reconnect
 * attempt of every connection logs the same `Connection error: connect ECONNREFUSED host:port`: a
 * share connector whose broker died printed 143 such lines in 36 s on a terminal, burying the few
 * lines that say what sharesink is doing about it ("share fetch failed; retrying", "still waiting
 * for the share group coordinator"). The first line of a kind is logged; repeats within the window
 * are counted, and the first one after it is logged with how many were left out.
 */
import { dropOldest } from '../bounded.js';
export const REPEAT_WINDOW_MS = 30_000;
/** Distinct lines remembered; beyond this the oldest are forgotten (they may then log again). */
const MAX_KINDS = 500;

export class RepeatedLines {
  private readonly seen = new Map<string, { loggedAt: number; left: number }>();

  constructor(
    private readonly windowMs = REPEAT_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Whether to log a line of kind `key` now: undefined to leave it out, else how many lines of that kind
   * were left out since the last one logged (0 for the first).
   */
  admit(key: string): number | undefined {
    const at = this.now();
    const last = this.seen.get(key);
    if (last !== undefined && at - last.loggedAt < this.windowMs) {
      last.left++;
      return undefined;
    }
    const left = last?.left ?? 0;
    this.seen.delete(key);
    this.seen.set(key, { loggedAt: at, left: 0 });
    dropOldest(this.seen, MAX_KINDS);
    return left;
  }
}
