/**
 * How long one share session's next ShareFetch may wait at the broker (MaxWaitMs). A share session
 * carries one request at a time, so whatever that fetch waits, the session's acknowledgements wait too.
 *
 * - Nothing to acknowledge, nothing held: long-poll `fetchMaxWaitMs`.
 * - Acks could queue behind it (records held) or ride on it: at most `ackFlushDelayMs` (ADR 0005).
 * - The previous answer was full (a backlog is likely): with a backlog the broker sometimes acquires
 *   nothing for a fetch and answers it only when its MaxWaitMs runs out, though records are waiting
 *   (Kafka 4.4: one such empty answer per ~15 fetches in a 1-task drain with 4 batches of 500 in
 *   flight; why is open, see ADR 0005). While a backlog is likely the wait is {@link BACKLOG_WAIT_MS};
 *   a few empty answers in a row end that assumption.
 */
export const BACKLOG_WAIT_MS = 10;
/** Empty answers in a row after which the partition counts as caught up again. */
const EMPTY_ANSWERS_TO_CATCH_UP = 3;

export class FetchPacing {
  private backlog = false;
  private emptyInARow = 0;

  /** MaxWaitMs for the next ShareFetch. */
  waitMs(o: { longPollMs: number; ackFlushDelayMs: number; acksMayWait: boolean }): number {
    let wait = o.longPollMs;
    if (o.acksMayWait) wait = Math.min(wait, o.ackFlushDelayMs);
    if (this.backlog) wait = Math.min(wait, BACKLOG_WAIT_MS);
    return wait;
  }

  /** Notes a successful answer: `records` delivered, `maxRecords` asked for. */
  answered(records: number, maxRecords: number): void {
    if (records >= maxRecords) {
      this.backlog = true;
      this.emptyInARow = 0;
    } else if (records > 0) {
      this.backlog = false;
      this.emptyInARow = 0;
    } else if (++this.emptyInARow >= EMPTY_ANSWERS_TO_CATCH_UP) {
      this.backlog = false;
    }
  }
}
